/*
 * sdui.h - umbrella header of the SDUIKit C core.
 *
 * NULL handles: one rule for every function of the core.  A handle is a
 * pointer to one of the core's opaque objects: sdui_pack, sdui_token,
 * sdui_cache, sdui_disk, sdui_disk_rows, sdui_disk_tokens, sdui_json_doc,
 * sdui_json_builder, sdui_expr.
 *   - A function that returns an sdui_status and fills an sdui_error
 *     answers SDUI_ARGUMENT for a NULL handle (as for any other NULL
 *     argument it needs), with a message naming it, and changes nothing.
 *     The builder's value and key calls (json_build.h) return a status
 *     but take no sdui_error: they answer SDUI_ARGUMENT for a NULL
 *     builder and do nothing else.
 *   - Every other function of a handle (an accessor: counts, ids, sizes,
 *     lookups that answer with a value) requires a non-NULL handle and
 *     asserts it: NULL there is a programming error, not bad input.
 *   - Letting go of NULL is a no-op: sdui_*_free(NULL) (sdui_pack_free,
 *     sdui_cache_free, sdui_disk_free, sdui_disk_rows_free,
 *     sdui_disk_tokens_free, sdui_disk_screen_free, sdui_json_doc_free,
 *     sdui_json_builder_free, sdui_expr_free), sdui_token_release(NULL),
 *     sdui_free(NULL); sdui_token_retain(NULL) returns NULL.
 * Not handles: an sdui_error pointer is optional everywhere (NULL: no
 * details); an sdui_limits or sdui_disk_options pointer may be NULL for
 * the defaults where a function says so; an sdui_value is a borrowed place
 * in a value tree (value.h) where NULL means "absent", which every
 * sdui_value_* function accepts and answers as for a missing value, so
 * that lookups chain: sdui_value_get(sdui_value_get(root, "a"), "b").
 */
#ifndef SDUI_SDUI_H
#define SDUI_SDUI_H

#include "version.h"
#include "error.h"
#include "alloc.h"
#include "limits.h"
#include "json.h"
#include "gzip.h"
#include "value.h"
#include "token.h"
#include "json_doc.h"
#include "pack.h"
#include "cache.h"
#include "disk.h"
#include "expr.h"
#include "json_build.h"
#include "number.h"
#include "snapshot.h"
#include "outbox.h"
#include "experiment.h"
#include "locale.h"
#include "catalog.h"

#endif
