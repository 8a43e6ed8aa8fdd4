/*
 * json_doc.c - any JSON document as a value tree (see json_doc.h).
 *
 * The text is first checked by the core's own validator, so grammar,
 * UTF-8, escape and depth faults are reported with the same offsets and
 * line:column as everywhere else; only then does jansson build the tree.
 * A document's values are jansson values, as a token's are, so the
 * sdui_value_* accessors of token.c read both.  A tree built without text
 * (json_build.c) becomes a document through the same constructor.
 */
#include <assert.h>
#include <string.h>

#include <jansson.h>

#include "internal.h"
#include "sdui/json_doc.h"

struct sdui_json_doc {
    json_t *root;
};

/* Validates, then builds the tree (json_doc.h). */
sdui_status sdui_json_doc_parse(const char *text, size_t len,
                                unsigned max_depth, sdui_json_doc **out,
                                sdui_error *err)
{
    json_t *root;
    json_error_t jerr;
    sdui_status st;
    unsigned long failures;

    if (!out || (!text && len > 0))
        return sdui__fail(err, SDUI_ARGUMENT, -1, "json document: NULL argument");
    *out = NULL;
    st = sdui_json_validate(text ? text : "", len, max_depth, err);
    if (st != SDUI_OK)
        return st;
    /* Without JSON_REJECT_DUPLICATES a repeated name keeps its last value. */
    failures = sdui__alloc_failures();
    root = json_loadb(text ? text : "", len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (sdui__alloc_failures() != failures) {
        /* jansson may report a failed allocation as a parse error, or
         * hide it in a tree it returns: trust neither result. */
        json_decref(root);
        return sdui__oom(err);
    }
    if (!root) {
        /* Valid text that jansson refuses: a number past what an int64
         * or a double holds, a NUL in a member name, or memory.  jansson's
         * position is the byte just past the refused token. */
        if (json_error_code(&jerr) == json_error_out_of_memory)
            return sdui__oom(err);
        return sdui__fail_at(err, SDUI_JSON, text ? text : "", len,
                             jerr.position >= 0 && (size_t)jerr.position <= len ? (size_t)jerr.position : len,
                             "json document: %s", jerr.text);
    }
    return sdui__json_doc_adopt(root, out, err);
}

/* A document around a tree made elsewhere, taken over (internal.h). */
sdui_status sdui__json_doc_adopt(json_t *root, sdui_json_doc **out, sdui_error *err)
{
    sdui_json_doc *doc;
    assert(root && out);
    *out = NULL;
    doc = sdui_malloc(sizeof *doc);
    if (!doc) {
        json_decref(root);
        return sdui__oom(err);
    }
    doc->root = root;
    *out = doc;
    return SDUI_OK;
}

/* The top-level value (json_doc.h). */
const sdui_value *sdui_json_doc_root(const sdui_json_doc *doc)
{
    assert(doc);
    return (const sdui_value *)doc->root;
}

/* Releases the tree and the document (json_doc.h). */
void sdui_json_doc_free(sdui_json_doc *doc)
{
    if (!doc)
        return;
    json_decref(doc->root);
    sdui_free(doc);
}
