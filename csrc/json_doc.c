/*
 * json_doc.c - any JSON document as a value tree (see json_doc.h).
 *
 * A document is one block of memory: the document itself, then its value
 * tree (value.c), built under the tree's document rules, the same tree a
 * token has.  Text is first checked by the core's own validator, so
 * grammar, UTF-8, escape and depth faults are reported with the same
 * offsets and line:column as everywhere else; only then is the tree
 * built, which refuses what it cannot hold (value.c: an integer outside
 * the 64-bit range, a decimal past a double's range, a NUL in a member
 * name, nesting past SDUI_TREE_MAX_DEPTH) in the words json_doc.h names
 * and keeps the last value of a repeated member name in the place of the
 * first.  A tree built without text (json_build.c) is laid out from its
 * draft into a document's block the same way (sdui__json_doc_from_draft),
 * so this file is the one place that makes a document.
 */
#include <assert.h>
#include <string.h>

#include "internal.h"
#include "scan.h"
#include "sdui/json_doc.h"
#include "value_tree.h"

struct sdui_json_doc {
    const sdui_value *root;  /* in the tree, after this struct */
    sdui_tree_index *index;  /* the tree's member index, or NULL */
};

/* Where the tree starts in a document's block: after the struct,
 * aligned. */
#define DOC_TREE_OFFSET                                                    \
    ((sizeof(struct sdui_json_doc) + SDUI_TREE_ALIGN - 1) /                \
     SDUI_TREE_ALIGN * SDUI_TREE_ALIGN)

/* A new document block with room for a tree of tree_bytes (SIZE_MAX: too
 * large); *mem receives where the tree goes. */
static sdui_json_doc *doc_alloc(size_t tree_bytes, void **mem)
{
    sdui_json_doc *doc;
    if (tree_bytes == SIZE_MAX || tree_bytes > SIZE_MAX - DOC_TREE_OFFSET)
        return NULL;
    doc = sdui_malloc(DOC_TREE_OFFSET + tree_bytes);
    if (!doc)
        return NULL;
    doc->root = NULL;
    doc->index = NULL;
    *mem = (char *)doc + DOC_TREE_OFFSET;
    return doc;
}

/* Validates, then builds the tree (json_doc.h). */
sdui_status sdui_json_doc_parse(const char *text, size_t len,
                                unsigned max_depth, sdui_json_doc **out,
                                sdui_error *err)
{
    sdui_json_doc *doc;
    sdui_tree_size size;
    sdui_tree_place place;
    sdui_tree tree;
    sdui_status st;
    void *mem;

    if (!out || (!text && len > 0))
        return sdui__fail(err, SDUI_ARGUMENT, -1, "json document: NULL argument");
    *out = NULL;
    if (!text)
        text = "";
    st = sdui_json_validate(text, len, max_depth, err);
    if (st != SDUI_OK)
        return st;
    sdui__tree_measure(text, len, &size);
    doc = doc_alloc(sdui__tree_bytes(&size), &mem);
    if (!doc)
        return sdui__oom(err);
    place.doc = text;
    place.doc_len = len;
    place.base_offset = 0;
    st = sdui__tree_build(text, len, &size, mem, &place, SDUI_TREE_DOCUMENT,
                          &tree, err);
    if (st != SDUI_OK) {
        sdui_free(doc);
        return st;
    }
    doc->root = tree.root;
    doc->index = tree.index;
    *out = doc;
    return SDUI_OK;
}

/* A document laid out from a draft (internal.h). */
sdui_status sdui__json_doc_from_draft(const struct sdui_node *draft, size_t count,
                                      const char *strings, size_t strings_len,
                                      size_t slots, sdui_json_doc **out,
                                      sdui_error *err)
{
    sdui_tree_size size = {count, slots, strings_len};
    sdui_json_doc *doc;
    sdui_tree tree;
    sdui_status st;
    void *mem;
    assert(draft && count > 0 && out);
    *out = NULL;
    doc = doc_alloc(sdui__tree_bytes(&size), &mem);
    if (!doc)
        return sdui__oom(err);
    st = sdui__tree_lay_out(draft, count, strings, strings_len, slots, mem, &tree, err);
    if (st != SDUI_OK) {
        sdui_free(doc);
        return st;
    }
    doc->root = tree.root;
    doc->index = tree.index;
    *out = doc;
    return SDUI_OK;
}

/* The top-level value (json_doc.h). */
const sdui_value *sdui_json_doc_root(const sdui_json_doc *doc)
{
    assert(doc);
    return doc->root;
}

/* Frees the document, its tree and index (json_doc.h). */
void sdui_json_doc_free(sdui_json_doc *doc)
{
    if (!doc)
        return;
    sdui__tree_index_free(doc->index);
    sdui_free(doc);
}
