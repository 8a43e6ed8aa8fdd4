/*
 * catalog_place.h - where a catalog's text sits, for the messages of its
 * errors: a catalog read on its own names itself ("catalog de: $["a"]
 * (byte 5): ...") and counts bytes in its own text; one read from a
 * bundle (catalog_bundle.c) is named by the bundle's path of it
 * ($.catalogs["de"]["a"] (byte 1234): ...) and counts bytes, lines and
 * columns in the bundle.  Internal to the core.
 */
#ifndef SDUI_CATALOG_PLACE_H
#define SDUI_CATALOG_PLACE_H

#include <stddef.h>

#include "sdui/catalog.h"

/* A catalog inside a larger document. */
typedef struct sdui__catalog_place {
    const char *doc;   /* the document (the bundle)                       */
    size_t doc_len;
    size_t base;       /* where the catalog's text starts in it           */
    const char *path;  /* the document's path of the catalog, NUL-ended:
                        * $.catalogs["de"]                                */
} sdui__catalog_place;

/*
 * sdui_strings_add for the canonical tag, with the catalog's errors
 * placed in place's document (NULL: a catalog on its own, as
 * sdui_strings_add).  Not thread-safe on one set, as sdui_strings_add.
 */
sdui_status sdui__strings_add_placed(sdui_strings *strings, const char *tag, const char *json, size_t json_len,
                                     const sdui__catalog_place *place, sdui_error *err);

#endif
