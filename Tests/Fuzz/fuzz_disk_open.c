/*
 * fuzz_disk_open.c - libFuzzer harness for sdui_disk_open on hostile
 * database files.
 *
 * The input bytes become the cache file (one folder per process, emptied
 * before each input, on /dev/shm when there is one), which is opened with
 * small bounds (4 entries, 200 bytes; 2 screens, 100 payload bytes) and no
 * fsync, and then used as an application would: a read of a few ids as
 * rows and as tokens, a read of a few screens, a batch of three rows that
 * must evict, a batch of two tokens, three screens that must evict, stats,
 * a refresh, a remove, the reads again, and close.  A version-1 file is
 * upgraded at open, so the seeds of version 1 exercise the upgrade.
 * Nothing may crash, leak or hit undefined behaviour, and these must hold:
 *   - every failure fills err (status, message) and returns nothing;
 *   - a successful open leaves err clear;
 *   - a read returns only ids asked for, each once, NUL-terminated;
 *   - a read as tokens too, and each item has a token of its own id or is
 *     bad with none; a reference taken from it outlives the result;
 *   - a screen read returns NULL or a screen with NUL-terminated bytes;
 *   - after a successful batch or screen the stats are within the bounds;
 *   - a call that reports "damaged and was reset" leaves an empty, working
 *     cache behind it (stats succeed with no rows and no screens);
 *   - an open refused because the file is not a cache ("left untouched")
 *     leaves the input byte for byte and moves nothing aside;
 *   - an open that moved a damaged file aside says so (sdui_disk_recovery
 *     names the new path) and that file holds the input byte for byte; an
 *     open that did not moved nothing aside.
 * A broken invariant aborts, which libFuzzer reports as a crash.
 *
 * Seeds (Tests/Fuzz/seeds/disk_open/) are real cache files written by the
 * library (schema version 1), repacked by SQLite with 512-byte pages so
 * they are small, some then changed on purpose: a huge, a REAL and a
 * negative `bytes` value, JSON stored as TEXT, one id changed in the id
 * index, a newer schema, a schema version without its table.  The v2_*
 * seeds are version-2 files (tokens and screens): v2_rows (three of each),
 * v2_bad_tokens (a row that is not JSON, a row holding another id),
 * v2_text_payload (payloads stored as TEXT) and v2_screen_index (a screen
 * filed under another id in the id index).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sdui/sdui.h"

/* Reports a broken invariant and aborts. */
static void broken(const char *what, int line)
{
    fprintf(stderr, "fuzz_disk_open: invariant broken at line %d: %s\n", line,
            what);
    abort();
}

#define REQUIRE(cond) ((cond) ? (void)0 : broken(#cond, __LINE__))

/* The ids read, refreshed and removed: the seeds' ids (with "cab", which
 * the index of one seed holds for "caa") and some others. */
static const char *const read_ids[] = {"a",    "b",    "c",    "caa", "cab",
                                       "tok0", "tok1", "new1", "x"};
#define NREAD (sizeof read_ids / sizeof read_ids[0])

/* The screens read and written. */
static const char *const screen_ids[] = {"home", "a", "s1", "s2", "s3"};
#define NSCREENS (sizeof screen_ids / sizeof screen_ids[0])

#include "fuzz_folder.h"

/* Checks a failed call's error record. */
static void check_failure(sdui_status st, const sdui_error *err)
{
    REQUIRE(st != SDUI_OK);
    REQUIRE(err->status == st);
    REQUIRE(err->message[0] != '\0');
    REQUIRE(st == SDUI_SQLITE || st == SDUI_IO || st == SDUI_OOM);
}

/* Checks the stats of an open cache; returns the row count, or -1. */
static long stats(sdui_disk *d)
{
    sdui_disk_stats s;
    sdui_error err;
    sdui_status st = sdui_disk_get_stats(d, &s, &err);
    if (st != SDUI_OK) {
        check_failure(st, &err);
        return -1;
    }
    REQUIRE(err.status == SDUI_OK);
    REQUIRE(s.max_entries == 4 && s.max_bytes == 200);
    REQUIRE(s.max_screens == 2 && s.max_screen_bytes == 100);
    REQUIRE(s.entries > 0 || s.bytes == 0);
    REQUIRE(s.screens > 0 || s.screen_bytes == 0);
    return (long)(s.entries + s.screens);
}

/*
 * After each call: a failure is well formed, and one that reset the cache
 * leaves an empty, working cache.
 */
static void after_call(sdui_disk *d, sdui_status st, const sdui_error *err)
{
    if (st == SDUI_OK) {
        REQUIRE(err->status == SDUI_OK);
        return;
    }
    check_failure(st, err);
    if (st == SDUI_SQLITE && strstr(err->message, "damaged and was reset")) {
        REQUIRE(sdui_disk_recovered(d) == 1);
        REQUIRE(stats(d) == 0);
    }
}

/* Fills lens with the lengths of read_ids and clears found. */
static void start_reads(size_t *lens, int *found)
{
    size_t i;
    for (i = 0; i < NREAD; i++) {
        lens[i] = strlen(read_ids[i]);
        found[i] = 0;
    }
}

/* A returned id must be one of read_ids, and be returned once. */
static void require_asked_once(const char *id, size_t len, const size_t *lens,
                               int *found)
{
    size_t j;
    for (j = 0; j < NREAD; j++)
        if (len == lens[j] && memcmp(id, read_ids[j], lens[j]) == 0)
            break;
    REQUIRE(j < NREAD); /* asked for */
    REQUIRE(!found[j]); /* once */
    found[j] = 1;
}

/* Reads the ids; every row must be one asked for, once. */
static void read_rows(sdui_disk *d, int64_t now)
{
    size_t lens[NREAD], i;
    int found[NREAD];
    sdui_disk_rows *rows = (sdui_disk_rows *)1;
    sdui_error err;
    sdui_status st;
    start_reads(lens, found);
    st = sdui_disk_get(d, read_ids, lens, NREAD, now, &rows, &err);
    after_call(d, st, &err);
    if (st != SDUI_OK) {
        REQUIRE(rows == NULL);
        return;
    }
    REQUIRE(sdui_disk_rows_count(rows) <= NREAD);
    for (i = 0; i < sdui_disk_rows_count(rows); i++) {
        const sdui_disk_record *r = sdui_disk_rows_at(rows, i);
        REQUIRE(r && r->id && r->etag && r->json);
        REQUIRE(r->id[r->id_len] == '\0' && r->etag[r->etag_len] == '\0' &&
                r->json[r->json_len] == '\0');
        require_asked_once(r->id, r->id_len, lens, found);
    }
    REQUIRE(sdui_disk_rows_at(rows, i) == NULL);
    sdui_disk_rows_free(rows);
}

/* Reads the ids as tokens: asked for, once, each a token of its own id or
 * bad; one taken reference is used after the result is freed. */
static void read_tokens(sdui_disk *d, int64_t now)
{
    size_t lens[NREAD], i;
    int found[NREAD];
    sdui_disk_tokens *t = (sdui_disk_tokens *)1;
    sdui_token *kept = NULL;
    sdui_error err;
    sdui_status st;
    start_reads(lens, found);
    st = sdui_disk_get_tokens(d, read_ids, lens, NREAD, now, NULL, &t, &err);
    after_call(d, st, &err);
    if (st != SDUI_OK) {
        REQUIRE(t == NULL);
        return;
    }
    REQUIRE(sdui_disk_tokens_count(t) <= NREAD);
    for (i = 0; i < sdui_disk_tokens_count(t); i++) {
        const sdui_disk_token *it = sdui_disk_tokens_at(t, i);
        REQUIRE(it && it->id && it->etag);
        REQUIRE(it->id[it->id_len] == '\0' && it->etag[it->etag_len] == '\0');
        require_asked_once(it->id, it->id_len, lens, found);
        REQUIRE(it->bad == (it->token == NULL));
        if (it->token) {
            size_t tl;
            const char *tid = sdui_token_id(it->token, &tl);
            REQUIRE(tl == it->id_len && memcmp(tid, it->id, tl) == 0);
            if (!kept)
                kept = sdui_disk_tokens_take(t, i);
        } else {
            REQUIRE(sdui_disk_tokens_take(t, i) == NULL);
        }
    }
    REQUIRE(sdui_disk_tokens_at(t, i) == NULL);
    sdui_disk_tokens_free(t);
    if (kept) {
        size_t len;
        REQUIRE(sdui_token_json(kept, &len) != NULL && len > 0);
        sdui_token_release(kept);
    }
}

/* Reads the screens: NULL, or NUL-terminated bytes. */
static void read_screens(sdui_disk *d, int64_t now)
{
    size_t i;
    for (i = 0; i < NSCREENS; i++) {
        sdui_disk_screen *sc = (sdui_disk_screen *)1;
        sdui_error err;
        sdui_status st = sdui_disk_get_screen(d, screen_ids[i],
                                              strlen(screen_ids[i]), now, &sc,
                                              &err);
        after_call(d, st, &err);
        if (st != SDUI_OK) {
            REQUIRE(sc == NULL);
            continue;
        }
        if (sc) {
            REQUIRE(sc->etag && sc->payload);
            REQUIRE(sc->etag[sc->etag_len] == '\0' &&
                    sc->payload[sc->payload_len] == '\0');
            sdui_disk_screen_free(sc);
        }
    }
}

/* Writes three screens of 40 bytes: 120 bytes, over the 100 bound. */
static void put_screens(sdui_disk *d, int64_t now)
{
    size_t i;
    for (i = 2; i < NSCREENS; i++) {
        char payload[41];
        sdui_error err;
        sdui_status st;
        memset(payload, 'p', 40);
        payload[40] = '\0';
        st = sdui_disk_put_screen(d, screen_ids[i], strlen(screen_ids[i]),
                                  "\"s\"", 3, payload, 40, now, now, &err);
        after_call(d, st, &err);
        if (st == SDUI_OK) {
            sdui_disk_stats s;
            sdui_error e2;
            if (sdui_disk_get_stats(d, &s, &e2) == SDUI_OK)
                REQUIRE(s.screens <= 2 && s.screen_bytes <= 100);
            else
                after_call(d, e2.status, &e2);
        }
    }
}

/* Writes three rows of about 90 bytes: 270 bytes, over the 200 bound. */
static void put_batch(sdui_disk *d, int64_t now)
{
    static const char *const ids[3] = {"a", "new1", "new2"};
    sdui_disk_record recs[3];
    char json[3][128];
    sdui_error err;
    sdui_status st;
    int i;
    for (i = 0; i < 3; i++) {
        int len = snprintf(json[i], sizeof json[i],
                           "{\"id\":\"%s\",\"version\":2,\"primitive\":"
                           "\"Text\",\"primitiveVersion\":1,\"props\":{}}"
                           "                    ",
                           ids[i]);
        memset(&recs[i], 0, sizeof recs[i]);
        recs[i].id = ids[i];
        recs[i].id_len = strlen(ids[i]);
        recs[i].etag = "\"e\"";
        recs[i].etag_len = 3;
        recs[i].json = json[i];
        recs[i].json_len = (size_t)len;
        recs[i].version = 2;
        recs[i].primitive_version = 1;
        recs[i].fetched_at = now;
        recs[i].expires_at = now + 1000;
    }
    st = sdui_disk_put(d, recs, 3, now, &err);
    after_call(d, st, &err);
    if (st == SDUI_OK) {
        sdui_disk_stats s;
        sdui_error e2;
        /* Eviction kept both bounds (stats may still meet damage). */
        if (sdui_disk_get_stats(d, &s, &e2) == SDUI_OK)
            REQUIRE(s.entries <= 4 && s.bytes <= 200);
        else
            after_call(d, e2.status, &e2);
    }
}

/* Writes two tokens from their handles ("b" replaces a seed's row). */
static void put_tokens(sdui_disk *d, int64_t now)
{
    static const char *const json[2] = {
        "{\"id\":\"b\",\"version\":3,\"primitive\":\"Text\","
        "\"primitiveVersion\":1,\"props\":{}}",
        "{\"id\":\"tok1\",\"version\":3,\"primitive\":\"Text\","
        "\"primitiveVersion\":2,\"props\":{\"t\":1}}"};
    sdui_token *toks[2];
    const char *etags[2] = {"\"t\"", "\"u\""};
    size_t etag_lens[2] = {3, 3};
    sdui_error err;
    sdui_status st;
    int i;
    for (i = 0; i < 2; i++)
        REQUIRE(sdui_token_parse(json[i], strlen(json[i]), NULL, &toks[i],
                                 &err) == SDUI_OK);
    st = sdui_disk_put_tokens(d, (const sdui_token *const *)toks, etags,
                              etag_lens, 2, now, now + 1000, now, &err);
    after_call(d, st, &err);
    if (st == SDUI_OK) {
        sdui_disk_stats s;
        sdui_error e2;
        if (sdui_disk_get_stats(d, &s, &e2) == SDUI_OK)
            REQUIRE(s.entries <= 4 && s.bytes <= 200);
        else
            after_call(d, e2.status, &e2);
    }
    for (i = 0; i < 2; i++)
        sdui_token_release(toks[i]);
}

/* libFuzzer entry point. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sdui_disk_options o;
    sdui_disk *d = (sdui_disk *)1;
    sdui_error err;
    sdui_status st;
    size_t lens[NREAD], i, n = 99;
    char moved[600], notice[1024];

    if (!fuzz_dir[0])
        fuzz_folder_make("fuzz_disk_open", "cache.db");
    fuzz_folder_empty();
    fuzz_write_input(data, size);

    sdui_disk_options_default(&o);
    o.max_entries = 4;
    o.max_bytes = 200;
    o.durable = 0;
    o.max_screens = 2;
    o.max_screen_bytes = 100;
    st = sdui_disk_open(fuzz_file, &o, &d, &err);
    if (st != SDUI_OK) {
        check_failure(st, &err);
        REQUIRE(d == NULL);
        if (strstr(err.message, "left untouched")) {
            REQUIRE(file_is(fuzz_file, data, size));
            REQUIRE(!moved_file(moved, sizeof moved));
        }
        return 0;
    }
    REQUIRE(d != NULL);
    REQUIRE(err.status == SDUI_OK && err.message[0] == '\0');
    if (sdui_disk_recovered(d)) {
        REQUIRE(moved_file(moved, sizeof moved));
        REQUIRE(file_is(moved, data, size));
        REQUIRE(sdui_disk_recovery(d, notice, sizeof notice) > 0);
        REQUIRE(strstr(notice, moved) != NULL);
    } else {
        REQUIRE(!moved_file(moved, sizeof moved));
        REQUIRE(sdui_disk_recovery(d, notice, sizeof notice) == 0);
    }

    for (i = 0; i < NREAD; i++)
        lens[i] = strlen(read_ids[i]);
    read_rows(d, 10);
    read_tokens(d, 11);
    read_screens(d, 12);
    put_batch(d, 20);
    put_tokens(d, 21);
    put_screens(d, 22);
    (void)stats(d);
    st = sdui_disk_refresh(d, read_ids, lens, NREAD, 30, 40, &n, &err);
    after_call(d, st, &err);
    REQUIRE(st == SDUI_OK ? n <= NREAD : n == 0);
    st = sdui_disk_remove(d, read_ids + 1, lens + 1, 3, &n, &err);
    after_call(d, st, &err);
    REQUIRE(st == SDUI_OK ? n <= 3 : n == 0);
    read_rows(d, 50);
    read_tokens(d, 51);
    read_screens(d, 52);
    (void)stats(d);
    sdui_disk_free(d);
    return 0;
}
