/*
 * value_tree.h - building the core's value tree (value.c), not public.
 *
 * The tree is what value.h reads: a compact, read-only block of nodes,
 * array indexes and decoded strings, built in one pass either from JSON
 * text that has already passed the validating scan (scan.c) or from a
 * draft written value by value (json_build.c), into memory its owner
 * gives.  Its owners: a token (token.c), which allocates itself and its
 * tree as one block, and a document (json_doc.c), which does the same.
 * An owner also keeps the tree's member index (sdui_tree_index: the hash
 * of the keys of its objects of more than 16 members, NULL when it has
 * none) and frees it with the tree (sdui__tree_index_free).
 *
 * Two sets of rules (sdui_tree_rules), which differ only where JSON
 * leaves a choice or the two callers report differently:
 *   - SDUI_TREE_TOKEN (a design token, token.h): a repeated member name
 *     or a name holding \u0000 is SDUI_SCHEMA at the name, a number out
 *     of range SDUI_LIMIT at the number;
 *   - SDUI_TREE_DOCUMENT (any document, json_doc.h): a repeated member
 *     name keeps its first place and its last value; a name holding
 *     \u0000, a number out of range are SDUI_JSON, in the words and at
 *     the place json_doc.h gives.
 * Under both, nesting past SDUI_TREE_MAX_DEPTH is SDUI_JSON.  value.c's
 * opening essay has the whole of it, and how it compares with jansson.
 *
 * Thread-safety: measuring and building touch only the caller's memory
 * (and the allocator hook, for the index); a built tree is never written
 * again, so any number of threads may read it at once.
 */
#ifndef SDUI_VALUE_TREE_H
#define SDUI_VALUE_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "sdui/error.h"
#include "sdui/value.h"

/* What a tree built from a text needs room for (sdui__tree_measure). */
typedef struct sdui_tree_size {
    size_t nodes;  /* nodes: values and keys (an upper bound)          */
    size_t slots;  /* array element slots of the arrays' indexes (bound) */
    size_t arena;  /* bytes of the decoded strings and keys, each with a
                    * NUL after it (a bound)                           */
} sdui_tree_size;

/* The alignment the memory given to a build must have. */
#define SDUI_TREE_ALIGN 8

/* The deepest nesting any tree from text takes, the top value at level
 * 1 (jansson's JSON_PARSER_MAX_DEPTH, kept so the two agree). */
#define SDUI_TREE_MAX_DEPTH 2048

/* The rules of a build (see the top of this file). */
typedef enum sdui_tree_rules {
    SDUI_TREE_TOKEN,
    SDUI_TREE_DOCUMENT
} sdui_tree_rules;

/* Where errors point: the text offsets and line:column refer to, and the
 * offset of the tree's text in it. */
typedef struct sdui_tree_place {
    const char *doc;
    size_t doc_len;
    size_t base_offset;
} sdui_tree_place;

/* The member index of a tree's large objects (value.c). */
typedef struct sdui_tree_index sdui_tree_index;

/* A built tree: its top-level value and its member index (NULL when no
 * object has more than 16 members). */
typedef struct sdui_tree {
    const sdui_value *root;
    sdui_tree_index *index;
} sdui_tree;

/*
 * The node: every value and every object key is one, laid out in
 * document order (value.c explains the layout).  Public to the core only
 * so that a draft (json_build.c) can be written in the same form.
 */
typedef struct sdui_node {
    uint32_t kind;  /* SDUI_NODE_*                                          */
    uint32_t flags; /* SDUI_NODE_F_*                                        */
    size_t n;       /* arrays: elements; objects: members (each name once);
                     * strings, keys: bytes                                 */
    size_t size;    /* values: nodes of the subtree, this one included;
                     * keys: the distance to the member's value node (1,
                     * or further when a repeated name took a later value) */
    union {
        int64_t i;
        double d;
        const char *s;                         /* strings, keys: in the arena */
        size_t at;                             /* a draft's strings, keys:
                                                * offset in its string bytes */
        const struct sdui_node *const *index;  /* arrays: an index, or NULL  */
        struct sdui_node *parent;              /* containers, while open     */
        const sdui_tree_index *table;          /* hashed objects             */
    } u;
} sdui_node;

/* Node kinds. */
enum {
    SDUI_NODE_NULL,
    SDUI_NODE_FALSE,
    SDUI_NODE_TRUE,
    SDUI_NODE_INT,
    SDUI_NODE_REAL,
    SDUI_NODE_STRING,
    SDUI_NODE_ARRAY,
    SDUI_NODE_OBJECT,
    SDUI_NODE_KEY
};

/* Node flags. */
#define SDUI_NODE_F_CONTAINERS 1u /* an array with a container among its
                                   * elements (it gets an index)          */
#define SDUI_NODE_F_HASHED 2u     /* an object whose keys are in the index */
#define SDUI_NODE_F_DEAD 4u       /* a key repeated later in its object:
                                   * the member is skipped, its name's
                                   * first key points at the last value   */

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
 * SDUI_TREE_ALIGN; the tree borrows nothing from json afterwards), under
 * rules.  On SDUI_OK *out holds the tree (its index to be freed by the
 * caller).  Errors, with offsets and line:column in place->doc: those of
 * the rules (the top of this file), SDUI_JSON for text that was not
 * scanned, SDUI_OOM (the index, and numbers longer than 63 bytes,
 * allocate; nothing stays allocated on an error).  err may be NULL.
 */
sdui_status sdui__tree_build(const char *json, size_t len,
                             const sdui_tree_size *size, void *mem,
                             const sdui_tree_place *place,
                             sdui_tree_rules rules, sdui_tree *out,
                             sdui_error *err);

/*
 * Lays out a draft as a tree under SDUI_TREE_DOCUMENT's rules.  The draft
 * is count nodes in document order, as a tree has them, except that a
 * string's or key's u.at is the offset of its bytes in strings (each
 * followed by a NUL; strings_len bytes in all), an object's n counts its
 * keys, repeated names included, an open container's u is unset, and
 * slots is the sum of the element counts of the arrays flagged
 * SDUI_NODE_F_CONTAINERS.  mem has sdui__tree_bytes({count, slots,
 * strings_len}) bytes aligned to SDUI_TREE_ALIGN.  On SDUI_OK *out holds
 * the tree (nothing borrowed from the draft); SDUI_OOM for the index.
 */
sdui_status sdui__tree_lay_out(const sdui_node *draft, size_t count,
                               const char *strings, size_t strings_len,
                               size_t slots, void *mem, sdui_tree *out,
                               sdui_error *err);

/* Frees a tree's member index.  NULL is a no-op. */
void sdui__tree_index_free(sdui_tree_index *index);

/* 1 if looking a member up in obj (an object) scans its members (at most
 * 16), 0 if it goes through the index (expr_eval.c counts the work). */
int sdui__tree_scans(const sdui_value *obj);

/* The member named key[0, n) (no NUL inside) of object obj, whose
 * sdui__hash(key, n) is hash, else NULL: sdui_value_get for a caller that
 * hashed the name once ahead of many lookups (a compiled expression's
 * member steps).  obj must be an object (asserted). */
const sdui_value *sdui__value_member(const sdui_value *obj, const char *key, size_t n,
                                     uint64_t hash);

#endif
