/* shim.h - zlib, the inflate peer of the benchmarks. */
#include <zlib.h>
