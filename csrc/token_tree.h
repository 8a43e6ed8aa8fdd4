/*
 * token_tree.h - a token's value tree (token_tree.c), not public.
 *
 * A compact, read-only tree built in one pass from JSON text that has
 * already passed the validating scan (scan.c), into memory the caller
 * gives: token.c allocates a token and its tree as one block, and the
 * tree lives and dies with the token.  What is built and refused is
 * exactly what jansson (the reference parser, json_loadb with duplicate
 * keys refused, \u0000 allowed and any top-level value) builds and
 * refuses on such text, with the errors token.h documents: a duplicate
 * key or a key holding \u0000 (SDUI_SCHEMA, at the key), a number out of
 * range (SDUI_LIMIT, at the number), a value nested past jansson's own
 * limit (SDUI_JSON, jansson's words at jansson's place).
 *
 * The nodes are the sdui_value handles of token.h: an sdui_value pointer
 * into a tree is the address of a node.  A node starts with a tag that no
 * jansson value type takes, so token.c's accessors, which also read
 * documents' jansson trees (json_doc.c), tell the two apart with
 * sdui__tree_holds; an object-member iterator into a tree is odd (a key
 * node's address plus one byte), where a jansson iterator is
 * pointer-aligned (sdui__tree_iter_holds).
 *
 * Thread-safety: measuring and building touch only the caller's memory; a
 * built tree is never written again, so any number of threads may read it
 * at once.  Ownership: every pointer a reader returns (values, strings,
 * keys) points into the tree and is valid as long as its memory is.
 */
#ifndef SDUI_TOKEN_TREE_H
#define SDUI_TOKEN_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "sdui/error.h"
#include "sdui/value.h"

/* What a tree built from a text needs room for (sdui__tree_measure). */
typedef struct sdui_tree_size {
    size_t nodes;  /* nodes: values and keys (an upper bound)          */
    size_t slots;  /* array element slots of the arrays' indexes (bound) */
    size_t keys;   /* object keys                                      */
    size_t arena;  /* bytes of the decoded strings and keys, each with a
                    * NUL after it (a bound)                           */
} sdui_tree_size;

/* The alignment the memory given to sdui__tree_build must have. */
#define SDUI_TREE_ALIGN 8

/* Where errors point: the text offsets and line:column refer to, and the
 * offset of the token's text in it. */
typedef struct sdui_tree_place {
    const char *doc;
    size_t doc_len;
    size_t base_offset;
} sdui_tree_place;

/*
 * Counts, in one quick pass over json[0, len) (scanned text), what a tree
 * built from it needs room for.  Never fails; allocates nothing.
 */
void sdui__tree_measure(const char *json, size_t len, sdui_tree_size *out);

/* The bytes of memory a tree of that size takes, or SIZE_MAX when the sum
 * does not fit a size_t. */
size_t sdui__tree_bytes(const sdui_tree_size *size);

/*
 * Builds the tree of json[0, len), text that has passed the scan and was
 * measured into *size, in mem (sdui__tree_bytes(size) bytes aligned to
 * SDUI_TREE_ALIGN; the tree borrows nothing from json afterwards).  On
 * SDUI_OK *root is the top-level value.  Errors, with offsets and
 * line:column in place->doc: SDUI_SCHEMA (duplicate key, \u0000 in a key),
 * SDUI_LIMIT (a number out of range), SDUI_JSON (nesting past jansson's
 * limit; or text that was not scanned), SDUI_OOM (only objects of more
 * than 16 members and numbers longer than 63 bytes allocate, and free
 * before returning).  err may be NULL.
 */
sdui_status sdui__tree_build(const char *json, size_t len,
                             const sdui_tree_size *size, void *mem,
                             const sdui_tree_place *place,
                             const sdui_value **root, sdui_error *err);

/* 1 if v (not NULL) is a node of a tree, 0 if it is anything else (a
 * jansson value). */
int sdui__tree_holds(const sdui_value *v);

/* 1 if it (not NULL) is a member iterator of a tree's object. */
int sdui__tree_iter_holds(const void *it);

/*
 * Readers of a node v (sdui__tree_holds(v)), with the meaning of the
 * sdui_value_* function of the same name in token.h; sdui__tree_next and
 * the iterator readers take and give iterators of the tree.
 */
sdui_value_type sdui__tree_type(const sdui_value *v);
int sdui__tree_bool(const sdui_value *v);
int64_t sdui__tree_int(const sdui_value *v);
double sdui__tree_real(const sdui_value *v);
const char *sdui__tree_string(const sdui_value *v, size_t *len);
size_t sdui__tree_count(const sdui_value *v);
const sdui_value *sdui__tree_at(const sdui_value *v, size_t i);
const sdui_value *sdui__tree_get(const sdui_value *v, const char *key);
const void *sdui__tree_next(const sdui_value *obj, const void *it);
const char *sdui__tree_iter_key(const void *it, size_t *len);
const sdui_value *sdui__tree_iter_value(const void *it);

#endif
