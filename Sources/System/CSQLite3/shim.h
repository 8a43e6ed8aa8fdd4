/* shim.h - the system header this module wraps (the C core includes it directly). */
#include <sqlite3.h>
