/*
 * value.h - the core's one JSON value tree, read-only.
 *
 * Every JSON value the core holds is this tree: a token's content
 * (token.h), a document parsed from text or built value by value
 * (json_doc.h, json_build.h), an expression's data and result (expr.h),
 * a snapshot file's value (snapshot.h).  A tree is built once, in one
 * block of memory, and never changed afterwards.
 *
 * Handles.  An sdui_value is a place in a tree, borrowed from whatever
 * owns the tree (a token, a document): valid as long as its owner is
 * alive, never freed by itself.  Every pointer a function here returns
 * (values, strings, keys, member iterators) is borrowed the same way.
 * NULL is "absent": every function accepts it and answers as for a
 * missing value, so lookups chain (sdui_value_get(sdui_value_get(root,
 * "a"), "b")).
 *
 * Thread-safety: a tree is never written after it is built, so every
 * function here may be called from any number of threads at once on the
 * same tree; none allocates.
 *
 * What a tree holds: null, booleans, 64-bit integers and finite doubles
 * kept apart as the text wrote them (4 is an integer, 4.0 a decimal),
 * UTF-8 strings that may hold NUL bytes (each also NUL-terminated at its
 * length), arrays, and objects whose members keep their document order
 * and whose names are unique and hold no NUL byte.
 *
 * Cost: type, scalars, counts and array elements take constant time; a
 * member by name is a scan of the members while the object has at most
 * 16, and a hash lookup beyond; iterating over an object takes time in
 * proportion to its size.
 */
#ifndef SDUI_VALUE_H
#define SDUI_VALUE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sdui_value sdui_value;

typedef enum sdui_value_type {
    SDUI_VALUE_NULL,
    SDUI_VALUE_BOOL,
    SDUI_VALUE_INT,
    SDUI_VALUE_REAL,
    SDUI_VALUE_STRING,
    SDUI_VALUE_ARRAY,
    SDUI_VALUE_OBJECT
} sdui_value_type;

/* Type of a value; NULL counts as SDUI_VALUE_NULL. */
sdui_value_type sdui_value_type_of(const sdui_value *v);

/* Scalars; 0 / 0.0 / NULL when v is of another type or NULL, except that
 * sdui_value_real also converts an integer to a double. */
int sdui_value_bool(const sdui_value *v);
int64_t sdui_value_int(const sdui_value *v);
double sdui_value_real(const sdui_value *v);
/* A string's UTF-8 bytes (borrowed; may contain NUL, and a NUL follows
 * the last byte), else NULL; *len (may be NULL) gets the byte count, 0
 * when v is not a string. */
const char *sdui_value_string(const sdui_value *v, size_t *len);

/* Element count of an array or member count of an object, else 0. */
size_t sdui_value_count(const sdui_value *v);
/* Array element i (borrowed), or NULL (not an array, or i past the end). */
const sdui_value *sdui_value_at(const sdui_value *v, size_t i);
/* Object member by NUL-terminated key (borrowed), or NULL (not an object,
 * no such member, or key NULL). */
const sdui_value *sdui_value_get(const sdui_value *v, const char *key);

/*
 * Object members in document order.  it starts at NULL:
 *   for (it = sdui_value_next(obj, NULL); it; it = sdui_value_next(obj, it))
 * Returns NULL at the end or when obj is not an object.  An iterator is
 * borrowed like a value and is only ever passed back to these three
 * functions with the object it came from.
 */
const void *sdui_value_next(const sdui_value *obj, const void *it);
/* The member's name (borrowed, NUL-terminated at *len, which may be
 * NULL), or NULL when it is NULL. */
const char *sdui_value_iter_key(const void *it, size_t *len);
/* The member's value (borrowed), or NULL when it is NULL. */
const sdui_value *sdui_value_iter_value(const void *it);

#ifdef __cplusplus
}
#endif
#endif
