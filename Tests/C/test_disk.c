/*
 * test_disk.c - the SQLite token cache on real files: batches, many-id
 * reads, TTL refresh, eviction by count and bytes, persistence, schema
 * versions, files that are not caches (refused, every byte kept), damaged
 * cache files (bad byte counts, tables changed, a changed id index, pages
 * damaged while open: moved aside), paths that cannot hold a cache
 * (directory, FIFO, socket, dangling link, unwritable folder, full disk),
 * and a writer SIGKILLed during hundreds of batches with every acknowledged
 * batch checked afterwards.  Also: reads as tokens (sdui_disk_get_tokens)
 * and writes from tokens (sdui_disk_put_tokens); screens (round trip,
 * bounds, LRU eviction, damage, durability in the crash test); the
 * upgrade of a version-1 file in place.
 */
#define _DEFAULT_SOURCE /* usleep */
#include <assert.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "check.h"
#include "sqlite_raw.h"
#include "sdui/sdui.h"

/* One row built on the heap-free buffers of a test. */
typedef struct row {
    char id[64], etag[32], json[512];
    sdui_disk_record rec;
} row;

/* Fills a row: the etag is the CRC-32 of the body, so it can be checked. */
static void make_row(row *r, const char *id, int n, int pad, int64_t expires)
{
    size_t len;
    snprintf(r->id, sizeof r->id, "%s", id);
    len = (size_t)snprintf(r->json, sizeof r->json,
                           "{\"id\":\"%s\",\"version\":%d,\"primitive\":\"Text\","
                           "\"primitiveVersion\":1,\"props\":{\"pad\":\"%.*s\"}}",
                           id, n, pad,
                           "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                           "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                           "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    snprintf(r->etag, sizeof r->etag, "\"%08x\"",
             (unsigned)sdui_crc32(0, r->json, len));
    memset(&r->rec, 0, sizeof r->rec);
    r->rec.id = r->id;
    r->rec.id_len = strlen(r->id);
    r->rec.version = n;
    r->rec.primitive_version = 1;
    r->rec.etag = r->etag;
    r->rec.etag_len = strlen(r->etag);
    r->rec.json = r->json;
    r->rec.json_len = len;
    r->rec.fetched_at = 1000;
    r->rec.expires_at = expires;
}

/* Writes rows[0, n) as one batch. */
static sdui_status put_rows(sdui_disk *d, row *rows, size_t n, int64_t now)
{
    sdui_disk_record recs[64];
    sdui_error err;
    size_t i;
    for (i = 0; i < n; i++)
        recs[i] = rows[i].rec;
    return sdui_disk_put(d, recs, n, now, &err);
}

/* Reads one id; returns 1 and copies the record's etag/json when present. */
static int get_one(sdui_disk *d, const char *id, sdui_disk_record *out,
                   char *json, size_t cap, int64_t now)
{
    sdui_disk_rows *rows;
    sdui_error err;
    size_t len = strlen(id);
    int found = 0;
    if (sdui_disk_get(d, &id, &len, 1, now, &rows, &err) != SDUI_OK)
        return -1;
    if (sdui_disk_rows_count(rows) == 1) {
        *out = *sdui_disk_rows_at(rows, 0);
        snprintf(json, cap, "%.*s", (int)out->json_len, out->json);
        found = 1;
    }
    sdui_disk_rows_free(rows);
    return found;
}

/* Batches round-trip; many ids in one call; WAL and schema version set. */
static void test_round_trip(void)
{
    sdui_disk *d;
    sdui_error err;
    row rows[40];
    const char *ids[1200];
    size_t lens[1200], i;
    char names[1200][16], buf[64], json[600];
    sdui_disk_rows *got;
    sdui_disk_record rec;
    const char *p = test_path("round.db");

    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_disk_recovered(d), 0);
    for (i = 0; i < 40; i++) {
        snprintf(buf, sizeof buf, "tok%zu", i);
        make_row(&rows[i], buf, (int)i + 1, (int)i, 5000);
    }
    CHECK_STATUS(put_rows(d, rows, 40, 2000), SDUI_OK);

    /* 1,200 ids (more than one IN chunk), with repeats and unknown ids. */
    for (i = 0; i < 1200; i++) {
        snprintf(names[i], sizeof names[i], "tok%zu", i % 80);
        ids[i] = names[i];
        lens[i] = strlen(names[i]);
    }
    CHECK_STATUS(sdui_disk_get(d, ids, lens, 1200, 3000, &got, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_disk_rows_count(got), 40);
    for (i = 0; i < sdui_disk_rows_count(got); i++) {
        const sdui_disk_record *r = sdui_disk_rows_at(got, i);
        int n = atoi(r->id + 3);
        CHECK(n >= 0 && n < 40);
        CHECK_EQ_INT(r->json_len, rows[n].rec.json_len);
        CHECK(memcmp(r->json, rows[n].json, r->json_len) == 0);
        CHECK_EQ_INT(r->etag_len, rows[n].rec.etag_len);
        CHECK(memcmp(r->etag, rows[n].etag, r->etag_len) == 0);
        CHECK_EQ_INT(r->version, n + 1);
        CHECK_EQ_INT(r->expires_at, 5000);
        CHECK_EQ_INT(r->fetched_at, 1000);
    }
    CHECK(sdui_disk_rows_at(got, 40) == NULL);
    sdui_disk_rows_free(got);

    /* Replacing an id keeps one row with the new body. */
    make_row(&rows[0], "tok0", 9, 3, 7000);
    CHECK_STATUS(put_rows(d, rows, 1, 4000), SDUI_OK);
    CHECK_EQ_INT(get_one(d, "tok0", &rec, json, sizeof json, 4000), 1);
    CHECK_EQ_INT(rec.version, 9);
    CHECK_EQ_STR(json, rows[0].json);
    sdui_disk_free(d);

    raw_value(p, "PRAGMA journal_mode", buf, sizeof buf);
    CHECK_EQ_STR(buf, "wal");
    raw_value(p, "PRAGMA user_version", buf, sizeof buf);
    CHECK_EQ_STR(buf, "2");
    raw_value(p, "SELECT group_concat(name, ' ') FROM (SELECT name FROM"
                  " sqlite_master WHERE type='table' ORDER BY name)",
               buf, sizeof buf);
    CHECK_EQ_STR(buf, "screens tokens"); /* a new file: the whole schema */

    /* Everything is still there after reopening. */
    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_OK);
    CHECK_EQ_INT(get_one(d, "tok39", &rec, json, sizeof json, 5000), 1);
    CHECK_EQ_STR(json, rows[39].json);
    CHECK_EQ_INT(get_one(d, "nope", &rec, json, sizeof json, 5000), 0);
    sdui_disk_free(d);
    sdui_disk_free(NULL);
}

/* 304: refresh moves fetched_at and expires_at; remove deletes. */
static void test_refresh_and_remove(void)
{
    sdui_disk *d;
    sdui_error err;
    row r[2];
    const char *ids[3] = {"a", "b", "missing"};
    size_t lens[3] = {1, 1, 7}, n = 99;
    sdui_disk_record rec;
    char json[600];

    CHECK_STATUS(sdui_disk_open(test_path("ttl.db"), NULL, &d, &err), SDUI_OK);
    make_row(&r[0], "a", 1, 1, 100);
    make_row(&r[1], "b", 1, 1, 100);
    CHECK_STATUS(put_rows(d, r, 2, 50), SDUI_OK);
    CHECK_STATUS(sdui_disk_refresh(d, ids, lens, 3, 200, 90000, &n, &err),
                 SDUI_OK);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(get_one(d, "a", &rec, json, sizeof json, 300), 1);
    CHECK_EQ_INT(rec.fetched_at, 200);
    CHECK_EQ_INT(rec.expires_at, 90000);
    CHECK_EQ_STR(json, r[0].json); /* the body is kept */
    CHECK_STATUS(sdui_disk_remove(d, ids, lens, 3, &n, &err), SDUI_OK);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(get_one(d, "b", &rec, json, sizeof json, 300), 0);
    sdui_disk_free(d);
}

/* Least recently accessed rows go first, by count and by bytes. */
static void test_eviction(void)
{
    sdui_disk *d;
    sdui_disk_options o;
    sdui_disk_stats s;
    sdui_error err;
    row r;
    char id[16], json[600];
    sdui_disk_record rec;
    int i;

    sdui_disk_options_default(&o);
    o.max_entries = 10;
    o.durable = 0;
    CHECK_STATUS(sdui_disk_open(test_path("evict.db"), &o, &d, &err), SDUI_OK);
    for (i = 0; i < 10; i++) {
        snprintf(id, sizeof id, "e%d", i);
        make_row(&r, id, 1, 10, 1 << 30);
        CHECK_STATUS(put_rows(d, &r, 1, 100 + i), SDUI_OK);
    }
    /* Reading e0 and e1 makes them recent; the next batches evict e2, e3. */
    CHECK_EQ_INT(get_one(d, "e0", &rec, json, sizeof json, 500), 1);
    CHECK_EQ_INT(get_one(d, "e1", &rec, json, sizeof json, 501), 1);
    make_row(&r, "new1", 1, 10, 1 << 30);
    CHECK_STATUS(put_rows(d, &r, 1, 600), SDUI_OK);
    make_row(&r, "new2", 1, 10, 1 << 30);
    CHECK_STATUS(put_rows(d, &r, 1, 601), SDUI_OK);
    CHECK_EQ_INT(get_one(d, "e0", &rec, json, sizeof json, 700), 1);
    CHECK_EQ_INT(get_one(d, "e1", &rec, json, sizeof json, 700), 1);
    CHECK_EQ_INT(get_one(d, "e2", &rec, json, sizeof json, 700), 0);
    CHECK_EQ_INT(get_one(d, "e3", &rec, json, sizeof json, 700), 0);
    CHECK_EQ_INT(get_one(d, "e4", &rec, json, sizeof json, 700), 1);
    CHECK_STATUS(sdui_disk_get_stats(d, &s, &err), SDUI_OK);
    CHECK_EQ_INT(s.entries, 10);
    CHECK_EQ_INT(s.evictions, 2);
    sdui_disk_free(d);

    /* Byte bound: rows of about 120 bytes under a 1,000-byte bound. */
    sdui_disk_options_default(&o);
    o.max_bytes = 1000;
    o.durable = 0;
    CHECK_STATUS(sdui_disk_open(test_path("bytes.db"), &o, &d, &err), SDUI_OK);
    for (i = 0; i < 30; i++) {
        snprintf(id, sizeof id, "b%d", i);
        make_row(&r, id, 1, 20, 1 << 30);
        CHECK_STATUS(put_rows(d, &r, 1, 100 + i), SDUI_OK);
        CHECK_STATUS(sdui_disk_get_stats(d, &s, &err), SDUI_OK);
        CHECK(s.bytes <= 1000);
    }
    CHECK(s.entries < 30 && s.entries > 0);
    CHECK_EQ_INT(get_one(d, "b29", &rec, json, sizeof json, 900), 1);
    CHECK_EQ_INT(get_one(d, "b0", &rec, json, sizeof json, 900), 0);
    sdui_disk_free(d);
}

/* A bad row refuses the whole batch; nothing of it is stored. */
static void test_all_or_nothing(void)
{
    sdui_disk *d;
    sdui_error err;
    row r[3];
    sdui_disk_record recs[3];
    sdui_disk_stats s;
    int i;
    CHECK_STATUS(sdui_disk_open(test_path("atomic.db"), NULL, &d, &err),
                 SDUI_OK);
    for (i = 0; i < 3; i++) {
        char id[16];
        snprintf(id, sizeof id, "r%d", i);
        make_row(&r[i], id, 1, 1, 100);
        recs[i] = r[i].rec;
    }
    recs[2].id_len = 0;
    CHECK_STATUS(sdui_disk_put(d, recs, 3, 1, &err), SDUI_ARGUMENT);
    CHECK_STATUS(sdui_disk_get_stats(d, &s, &err), SDUI_OK);
    CHECK_EQ_INT(s.entries, 0);
    sdui_disk_free(d);
}

/* A cache file of a newer schema is refused and left untouched. */
static void test_newer_schema(void)
{
    const char *p = test_path("newer.db");
    sqlite3 *db;
    sdui_disk *d = (sdui_disk *)1;
    sdui_error err;
    char buf[32];
    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_OK);
    sdui_disk_free(d);
    d = (sdui_disk *)1;
    /* What a later build's upgrade could have done. */
    CHECK(sqlite3_open(p, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, "CREATE TABLE future(x); PRAGMA user_version=7",
                       NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_SQLITE);
    CHECK(d == NULL);
    CHECK_MSG_HAS("newer version");
    CHECK_MSG_HAS(p);
    raw_value(p, "PRAGMA user_version", buf, sizeof buf);
    CHECK_EQ_STR(buf, "7");
}

/*
 * Opens a file at p (named name in the test folder) that is not a cache:
 * the open is refused naming the path and `why`, the file keeps every
 * byte, and nothing is moved aside.
 */
static void check_refused(const char *p, const char *name, const char *why)
{
    sdui_disk *d = (sdui_disk *)1;
    sdui_error err;
    unsigned char *before, *after;
    long n_before, n_after;
    before = file_bytes(p, &n_before);
    CHECKF(sdui_disk_open(p, NULL, &d, &err) == SDUI_SQLITE, "%s: opened",
           name);
    CHECK(d == NULL);
    CHECK_MSG_HAS(p);
    CHECK_MSG_HAS("not an SDUIKit token cache file");
    CHECK_MSG_HAS("left untouched");
    CHECK_MSG_HAS(why);
    after = file_bytes(p, &n_after);
    CHECKF(before && after && n_before == n_after &&
               memcmp(before, after, (size_t)n_before) == 0,
           "%s changed", name);
    CHECKF(!moved_aside(name), "%s moved aside", name);
    free(before);
    free(after);
}

/* Garbage is no cache: refused, untouched.  A cache whose pages are
 * damaged is moved aside and a fresh cache is made, saying where. */
static void test_damaged_files(void)
{
    const char *p;
    FILE *f;
    sdui_disk *d;
    sdui_error err;
    row r[20];
    sdui_disk_record rec;
    char json[600], id[16], notice[1024], keep[512];
    int i;
    long size;

    p = test_path("garbage.db");
    CHECK(write_garbage(p, 5000));
    snprintf(keep, sizeof keep, "%s", p);
    check_refused(keep, "garbage.db", "not a SQLite database");

    /* A real cache whose later pages are overwritten. */
    p = test_path("pages.db");
    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_OK);
    for (i = 0; i < 20; i++) {
        snprintf(id, sizeof id, "p%d", i);
        make_row(&r[i], id, 1, 140, 100);
    }
    for (i = 0; i < 10; i++)
        CHECK_STATUS(put_rows(d, r, 20, i), SDUI_OK);
    sdui_disk_free(d); /* checkpoints the WAL into the file */
    f = fopen(p, "r+b");
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    CHECK(size > 8192);
    fseek(f, 4096, SEEK_SET);
    for (i = 0; i < 4096; i++)
        fputc(0xA5, f);
    fclose(f);
    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_disk_recovered(d), 1);
    CHECK(moved_aside("pages.db"));
    CHECK(sdui_disk_recovery(d, notice, sizeof notice) == strlen(notice));
    CHECKF(strstr(notice, "token cache") && strstr(notice, p) &&
               strstr(notice, "moved aside to"),
           "notice \"%s\"", notice);
    CHECK_EQ_INT(get_one(d, "p1", &rec, json, sizeof json, 2), 0);
    sdui_disk_free(d);

    /* A path that cannot be a file is an error, not a crash. */
    CHECK_STATUS(sdui_disk_open(test_dir, NULL, &d, &err), SDUI_SQLITE);
    CHECK_STATUS(sdui_disk_open(NULL, NULL, &d, &err), SDUI_ARGUMENT);
}

/* Opens a cache with small bounds and no fsync. */
static sdui_status open_small(const char *p, size_t max_entries,
                              size_t max_bytes, sdui_disk **d,
                              sdui_error *err)
{
    sdui_disk_options o;
    sdui_disk_options_default(&o);
    o.max_entries = max_entries;
    o.max_bytes = max_bytes;
    o.durable = 0;
    return sdui_disk_open(p, &o, d, err);
}

/* Parses a row's JSON into a token (NULL on failure). */
static sdui_token *token_of(const row *r)
{
    sdui_token *tok = NULL;
    sdui_error err;
    sdui_token_parse(r->json, r->rec.json_len, NULL, &tok, &err);
    return tok;
}

/* The item of a get_tokens result with id, or NULL. */
static const sdui_disk_token *item_of(const sdui_disk_tokens *t,
                                      const char *id)
{
    size_t i;
    for (i = 0; i < sdui_disk_tokens_count(t); i++) {
        const sdui_disk_token *it = sdui_disk_tokens_at(t, i);
        if (it->id_len == strlen(id) && memcmp(it->id, id, it->id_len) == 0)
            return it;
    }
    return NULL;
}

/* The index of the item with id in a get_tokens result, or -1. */
static long index_of(const sdui_disk_tokens *t, const char *id)
{
    const sdui_disk_token *it = item_of(t, id);
    return it ? (long)(it - sdui_disk_tokens_at(t, 0)) : -1;
}

/* Rows written behind the cache's back that make no token: JSON that does
 * not parse, a JSON object that is no token, a token of another id. */
static const char bad_rows_sql[] =
    "INSERT INTO tokens(id, version, etag, bytes, primitive_version,"
    " fetched_at, expires_at, last_access, json) VALUES"
    " ('bad-json', 1, '\"b1\"', 8, 1, 11, 12, 13, CAST('not json' AS BLOB)),"
    " ('bad-schema', 1, '\"b2\"', 17, 1, 11, 12, 13,"
    "  CAST('{\"id\":\"bad-schema\"}' AS BLOB)),"
    " ('bad-id', 1, '\"b3\"', 80, 1, 11, 12, 13,"
    "  CAST('{\"id\":\"someone\",\"version\":1,\"primitive\":\"Text\","
    "\"primitiveVersion\":1,\"props\":{}}' AS BLOB))";

/*
 * Many ids read as tokens in one call: more ids than one IN chunk, with
 * repeats and ids not cached; each good row parses to the token that was
 * put; rows that make no token (bad JSON, not a token, another id, over
 * the limits) are returned with bad = 1 and no token, without failing
 * the call; the reads are marked; a taken token outlives the result.
 */
static void test_get_tokens(void)
{
    const char *p = test_path("get-tokens.db");
    static row rows[30];
    static char names[1200][16];
    const char *ids[1200];
    size_t lens[1200], i;
    sdui_disk *d;
    sdui_disk_tokens *t = (sdui_disk_tokens *)1;
    sdui_limits lim;
    sdui_error err;
    sdui_token *kept;
    char buf[64];
    long k;

    CHECK_STATUS(open_small(p, 1000, 1 << 20, &d, &err), SDUI_OK);
    for (i = 0; i < 30; i++) {
        snprintf(buf, sizeof buf, "tok%zu", i);
        /* tok29 is larger than the limit of the read below. */
        make_row(&rows[i], buf, (int)i + 1, i == 29 ? 140 : (int)i, 5000);
    }
    CHECK_STATUS(put_rows(d, rows, 30, 2000), SDUI_OK);
    sdui_disk_free(d);
    CHECK(raw_exec(p, bad_rows_sql) == SQLITE_OK);

    /* 1,200 ids: tok0..tok699 (700 distinct, two IN chunks), repeated,
     * the bad rows among them. */
    for (i = 0; i < 1200; i++) {
        if (i == 3)
            snprintf(names[i], sizeof names[i], "bad-json");
        else if (i == 600)
            snprintf(names[i], sizeof names[i], "bad-schema");
        else if (i == 1100)
            snprintf(names[i], sizeof names[i], "bad-id");
        else
            snprintf(names[i], sizeof names[i], "tok%zu", i % 700);
        ids[i] = names[i];
        lens[i] = strlen(names[i]);
    }
    sdui_limits_default(&lim);
    lim.max_token_bytes = 200;
    CHECK(rows[29].rec.json_len > 200 && rows[28].rec.json_len <= 200);
    CHECK_STATUS(open_small(p, 1000, 1 << 20, &d, &err), SDUI_OK);
    CHECK_STATUS(sdui_disk_get_tokens(d, ids, lens, 1200, 7000, &lim, &t,
                                      &err),
                 SDUI_OK);
    CHECK_EQ_INT(sdui_disk_tokens_count(t), 33);
    for (i = 0; i < 30; i++) {
        const sdui_disk_token *it = item_of(t, rows[i].id);
        size_t len = 0;
        const char *json;
        if (!CHECKF(it != NULL, "%s missing", rows[i].id))
            continue;
        CHECK(it->id[it->id_len] == '\0' && it->etag[it->etag_len] == '\0');
        CHECK_EQ_INT(it->etag_len, rows[i].rec.etag_len);
        CHECK(memcmp(it->etag, rows[i].etag, it->etag_len) == 0);
        CHECK_EQ_INT(it->fetched_at, 1000);
        CHECK_EQ_INT(it->expires_at, 5000);
        CHECK_EQ_INT(it->last_access, 2000); /* as stored before the read */
        if (i == 29) { /* over lim.max_token_bytes */
            CHECK(it->bad == 1 && it->token == NULL);
            continue;
        }
        CHECKF(it->bad == 0 && it->token != NULL, "%s bad", rows[i].id);
        if (!it->token)
            continue;
        json = sdui_token_json(it->token, &len);
        CHECK_EQ_INT(len, rows[i].rec.json_len);
        CHECK(memcmp(json, rows[i].json, len) == 0);
        CHECK_EQ_INT(sdui_token_version(it->token), (int64_t)i + 1);
        CHECK_EQ_INT(sdui_token_primitive_version(it->token), 1);
        CHECK_EQ_STR(sdui_token_id(it->token, NULL), rows[i].id);
    }
    for (i = 0; i < 3; i++) {
        static const char *const bad[3] = {"bad-json", "bad-schema",
                                           "bad-id"};
        const sdui_disk_token *it = item_of(t, bad[i]);
        if (!CHECKF(it != NULL, "%s missing", bad[i]))
            continue;
        CHECKF(it->bad == 1 && it->token == NULL, "%s not bad", bad[i]);
        CHECK_EQ_INT(it->etag_len, 4); /* the row's other fields are there */
        CHECK_EQ_INT(it->expires_at, 12);
        CHECK(sdui_disk_tokens_take(t, (size_t)index_of(t, bad[i])) == NULL);
    }
    CHECK(sdui_disk_tokens_at(t, 33) == NULL);
    CHECK(sdui_disk_tokens_take(t, 33) == NULL);

    /* A taken reference outlives the result. */
    k = index_of(t, "tok7");
    kept = k >= 0 ? sdui_disk_tokens_take(t, (size_t)k) : NULL;
    CHECK(kept != NULL && kept == sdui_disk_tokens_at(t, (size_t)k)->token);
    sdui_disk_tokens_free(t);
    sdui_disk_tokens_free(NULL);
    if (kept) {
        CHECK_EQ_STR(sdui_token_id(kept, NULL), "tok7");
        CHECK_EQ_STR(sdui_token_json(kept, NULL), rows[7].json);
        CHECK(sdui_value_count(sdui_token_props(kept)) == 1);
        sdui_token_release(kept);
    }

    /* No id, one id not cached: an empty result. */
    CHECK_STATUS(sdui_disk_get_tokens(d, ids, lens, 0, 7000, NULL, &t, &err),
                 SDUI_OK);
    CHECK_EQ_INT(sdui_disk_tokens_count(t), 0);
    sdui_disk_tokens_free(t);
    CHECK_STATUS(sdui_disk_get_tokens(d, ids + 699, lens + 699, 1, 7000,
                                      NULL, &t, &err),
                 SDUI_OK);
    CHECK_EQ_INT(sdui_disk_tokens_count(t), 0);
    sdui_disk_tokens_free(t);
    /* Arguments. */
    t = (sdui_disk_tokens *)1;
    CHECK_STATUS(sdui_disk_get_tokens(d, NULL, lens, 1, 0, NULL, &t, &err),
                 SDUI_ARGUMENT);
    CHECK(t == (sdui_disk_tokens *)1); /* unchanged (sdui.h) */
    CHECK_STATUS(sdui_disk_get_tokens(NULL, ids, lens, 1, 0, NULL, &t, &err),
                 SDUI_ARGUMENT);
    CHECK_STATUS(sdui_disk_get_tokens(d, ids, lens, 1, 0, NULL, NULL, &err),
                 SDUI_ARGUMENT);
    sdui_disk_free(d); /* writes the remembered reads */

    /* The reads were marked: read rows at 7000, the others as they were. */
    raw_value(p, "SELECT last_access FROM tokens WHERE id='tok3'", buf,
               sizeof buf);
    CHECK_EQ_STR(buf, "7000");
    raw_value(p, "SELECT last_access FROM tokens WHERE id='bad-id'", buf,
               sizeof buf);
    CHECK_EQ_STR(buf, "7000");
    CHECK(raw_exec(p, "UPDATE tokens SET last_access=1 WHERE id='tok5'") ==
          SQLITE_OK);
    raw_value(p, "SELECT count(*) FROM tokens WHERE last_access=7000", buf,
               sizeof buf);
    CHECK_EQ_STR(buf, "32");
}

/*
 * Tokens written from their handles: the row holds the token's id,
 * version, primitive version and exact JSON (and its length in `bytes`),
 * reads back equal, replaces a row of the same id, and evicts to the
 * bounds like sdui_disk_put.
 */
static void test_put_tokens(void)
{
    const char *p = test_path("put-tokens.db");
    static row rows[8];
    sdui_token *toks[8];
    const char *etags[8];
    size_t etag_lens[8], i;
    sdui_disk *d;
    sdui_disk_tokens *t;
    sdui_disk_stats s;
    sdui_error err;
    char buf[64], sql[128];

    for (i = 0; i < 8; i++) {
        snprintf(buf, sizeof buf, "pt%zu", i);
        make_row(&rows[i], buf, (int)i + 3, (int)i * 5, 9000);
        toks[i] = token_of(&rows[i]);
        etags[i] = rows[i].etag;
        etag_lens[i] = rows[i].rec.etag_len;
    }
    CHECK_STATUS(open_small(p, 5, 1 << 20, &d, &err), SDUI_OK);
    CHECK_STATUS(sdui_disk_put_tokens(d, (const sdui_token *const *)toks,
                                      etags, etag_lens, 3, 100, 9000, 200,
                                      &err),
                 SDUI_OK);
    for (i = 0; i < 3; i++) {
        sdui_disk_record rec;
        char json[600];
        CHECK_EQ_INT(get_one(d, rows[i].id, &rec, json, sizeof json, 300), 1);
        CHECK_EQ_STR(json, rows[i].json);
        CHECK_EQ_INT(rec.version, (int64_t)i + 3);
        CHECK_EQ_INT(rec.primitive_version, 1);
        CHECK_EQ_INT(rec.fetched_at, 100);
        CHECK_EQ_INT(rec.expires_at, 9000);
    }
    /* Read back as tokens: equal JSON. */
    {
        const char *ids[3];
        size_t lens[3];
        for (i = 0; i < 3; i++) {
            ids[i] = rows[i].id;
            lens[i] = strlen(rows[i].id);
        }
        CHECK_STATUS(sdui_disk_get_tokens(d, ids, lens, 3, 300, NULL, &t,
                                          &err),
                     SDUI_OK);
        CHECK_EQ_INT(sdui_disk_tokens_count(t), 3);
        for (i = 0; i < sdui_disk_tokens_count(t); i++) {
            const sdui_disk_token *it = sdui_disk_tokens_at(t, i);
            int n = atoi(it->id + 2);
            CHECK(it->token &&
                  strcmp(sdui_token_json(it->token, NULL),
                         sdui_token_json(toks[n], NULL)) == 0);
            CHECK_EQ_STR(it->etag, etags[n]);
        }
        sdui_disk_tokens_free(t);
    }

    /* Arguments: nothing of the batch is written. */
    {
        const sdui_token *with_null[3] = {toks[3], toks[4], NULL};
        const char *null_etag[3] = {etags[3], NULL, etags[5]};
        CHECK_STATUS(sdui_disk_put_tokens(d, with_null, etags + 3,
                                          etag_lens + 3, 3, 1, 2, 3, &err),
                     SDUI_ARGUMENT);
        CHECK_STATUS(sdui_disk_put_tokens(d,
                                          (const sdui_token *const *)toks + 3,
                                          null_etag, etag_lens + 3, 3, 1, 2, 3,
                                          &err),
                     SDUI_ARGUMENT);
        CHECK_STATUS(sdui_disk_put_tokens(d,
                                          (const sdui_token *const *)toks + 3,
                                          etags + 3, NULL, 3, 1, 2, 3, &err),
                     SDUI_ARGUMENT);
        CHECK_STATUS(sdui_disk_put_tokens(NULL,
                                          (const sdui_token *const *)toks,
                                          etags, etag_lens, 1, 1, 2, 3, &err),
                     SDUI_ARGUMENT);
        CHECK_STATUS(sdui_disk_put_tokens(d, NULL, NULL, NULL, 0, 1, 2, 3,
                                          &err),
                     SDUI_OK);
        CHECK_STATUS(sdui_disk_get_stats(d, &s, &err), SDUI_OK);
        CHECK_EQ_INT(s.entries, 3);
    }

    /* Eviction: 5 more rows over a bound of 5 evict the 3 oldest. */
    CHECK_STATUS(sdui_disk_put_tokens(d, (const sdui_token *const *)toks + 3,
                                      etags + 3, etag_lens + 3, 5, 100, 9000,
                                      400, &err),
                 SDUI_OK);
    CHECK_STATUS(sdui_disk_get_stats(d, &s, &err), SDUI_OK);
    CHECK_EQ_INT(s.entries, 5);
    CHECK_EQ_INT(s.evictions, 3);
    /* Replacing: pt3 rewritten as another version of itself. */
    {
        row r;
        sdui_token *tok;
        sdui_disk_record rec;
        char json[600];
        make_row(&r, "pt3", 42, 1, 9999);
        tok = token_of(&r);
        CHECK_STATUS(sdui_disk_put_tokens(d, (const sdui_token *const *)&tok,
                                          etags, etag_lens, 1, 500, 9999,
                                          500, &err),
                     SDUI_OK);
        sdui_token_release(tok);
        CHECK_EQ_INT(get_one(d, "pt3", &rec, json, sizeof json, 600), 1);
        CHECK_EQ_INT(rec.version, 42);
        CHECK_EQ_STR(json, r.json);
    }
    CHECK_STATUS(sdui_disk_get_stats(d, &s, &err), SDUI_OK);
    CHECK_EQ_INT(s.entries, 5);
    sdui_disk_free(d);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM tokens WHERE bytes=length(json)");
    raw_value(p, sql, buf, sizeof buf);
    CHECK_EQ_STR(buf, "5");
    for (i = 0; i < 8; i++)
        sdui_token_release(toks[i]);
}

/* Opens a cache with small screen bounds (and roomy token bounds). */
static sdui_status open_screens(const char *p, size_t max_screens,
                                size_t max_screen_bytes, sdui_disk **d,
                                sdui_error *err)
{
    sdui_disk_options o;
    sdui_disk_options_default(&o);
    o.max_screens = max_screens;
    o.max_screen_bytes = max_screen_bytes;
    o.durable = 0;
    return sdui_disk_open(p, &o, d, err);
}

/* Stores screen id with payload "<id>:<fill>" padded with x to len bytes
 * (at least the prefix) and ETag "\"<id>-<fetched>\"". */
static sdui_status put_screen(sdui_disk *d, const char *id, size_t len,
                              int64_t fetched, int64_t now)
{
    static char payload[4096];
    char etag[64];
    sdui_error err;
    size_t n = (size_t)snprintf(payload, sizeof payload, "%s:%lld", id,
                                (long long)fetched);
    assert(len < sizeof payload);
    if (len > n)
        memset(payload + n, 'x', len - n);
    snprintf(etag, sizeof etag, "\"%s-%lld\"", id, (long long)fetched);
    return sdui_disk_put_screen(d, id, strlen(id), etag, strlen(etag),
                                payload, len > n ? len : n, fetched, now,
                                &err);
}

/* 1 if screen id is cached (-1 if the read failed); its fetched_at into
 * *fetched when found. */
static int has_screen(sdui_disk *d, const char *id, int64_t now,
                      int64_t *fetched)
{
    sdui_disk_screen *sc = NULL;
    sdui_error err;
    if (sdui_disk_get_screen(d, id, strlen(id), now, &sc, &err) != SDUI_OK)
        return -1;
    if (!sc)
        return 0;
    if (fetched)
        *fetched = sc->fetched_at;
    sdui_disk_screen_free(sc);
    return 1;
}

/*
 * Screens: a payload (any bytes) and its ETag round-trip, a put replaces,
 * a screen not cached is NULL, they survive reopening, arguments are
 * checked, and a payload over the byte bound alone is refused.
 */
static void test_screens(void)
{
    const char *p = test_path("screens.db");
    static const char payload[] = "{\"screen\":\"home\"}\0tail";
    static char big[1001];
    sdui_disk *d;
    sdui_disk_screen *sc = (sdui_disk_screen *)1;
    sdui_disk_stats s;
    sdui_error err;
    int64_t fetched = 0;

    CHECK_STATUS(open_screens(p, 10, 1000, &d, &err), SDUI_OK);
    CHECK_STATUS(sdui_disk_get_screen(d, "home", 4, 1, &sc, &err), SDUI_OK);
    CHECK(sc == NULL); /* not cached */
    CHECK_STATUS(sdui_disk_put_screen(d, "home", 4, "\"e1\"", 4, payload,
                                      sizeof payload - 1, 100, 200, &err),
                 SDUI_OK);
    CHECK_STATUS(sdui_disk_get_screen(d, "home", 4, 300, &sc, &err), SDUI_OK);
    if (CHECK(sc != NULL)) {
        CHECK_EQ_INT(sc->payload_len, sizeof payload - 1);
        CHECK(memcmp(sc->payload, payload, sizeof payload - 1) == 0);
        CHECK(sc->payload[sc->payload_len] == '\0');
        CHECK_EQ_STR(sc->etag, "\"e1\"");
        CHECK_EQ_INT(sc->etag_len, 4);
        CHECK_EQ_INT(sc->fetched_at, 100);
    }
    sdui_disk_screen_free(sc);
    sdui_disk_screen_free(NULL);

    /* Replaced: one row, the new body. */
    CHECK_STATUS(sdui_disk_put_screen(d, "home", 4, "\"e2\"", 4, "{}", 2,
                                      400, 400, &err),
                 SDUI_OK);
    CHECK_STATUS(sdui_disk_get_screen(d, "home", 4, 500, &sc, &err), SDUI_OK);
    if (CHECK(sc != NULL)) {
        CHECK_EQ_STR(sc->payload, "{}");
        CHECK_EQ_STR(sc->etag, "\"e2\"");
        CHECK_EQ_INT(sc->fetched_at, 400);
    }
    sdui_disk_screen_free(sc);
    /* An empty payload and ETag are stored as such. */
    CHECK_STATUS(sdui_disk_put_screen(d, "empty", 5, NULL, 0, NULL, 0, 1, 1,
                                      &err),
                 SDUI_OK);
    CHECK_STATUS(sdui_disk_get_screen(d, "empty", 5, 2, &sc, &err), SDUI_OK);
    CHECK(sc && sc->payload_len == 0 && sc->etag_len == 0 &&
          sc->payload[0] == '\0' && sc->etag[0] == '\0');
    sdui_disk_screen_free(sc);

    /* Over the byte bound alone: SDUI_LIMIT, nothing written; at the
     * bound: stored (and every other screen evicted). */
    CHECK(put_screen(d, "huge", 1001, 1, 600) == SDUI_LIMIT);
    memset(big, 'b', sizeof big);
    CHECK_STATUS(sdui_disk_put_screen(d, "huge", 4, "e", 1, big, 1001, 1,
                                      600, &err),
                 SDUI_LIMIT);
    CHECK_MSG_HAS("\"huge\"");
    CHECK_MSG_HAS("1001");
    CHECK_EQ_INT(has_screen(d, "huge", 600, NULL), 0);
    CHECK_EQ_INT(has_screen(d, "home", 600, NULL), 1);

    /* Arguments. */
    sc = (sdui_disk_screen *)1;
    CHECK_STATUS(sdui_disk_put_screen(NULL, "a", 1, "e", 1, "p", 1, 1, 1,
                                      &err),
                 SDUI_ARGUMENT);
    CHECK_STATUS(sdui_disk_put_screen(d, "a", 0, "e", 1, "p", 1, 1, 1, &err),
                 SDUI_ARGUMENT);
    CHECK_STATUS(sdui_disk_put_screen(d, NULL, 1, "e", 1, "p", 1, 1, 1, &err),
                 SDUI_ARGUMENT);
    CHECK_STATUS(sdui_disk_put_screen(d, "a", 1, NULL, 1, "p", 1, 1, 1, &err),
                 SDUI_ARGUMENT);
    CHECK_STATUS(sdui_disk_put_screen(d, "a", 1, "e", 1, NULL, 1, 1, 1, &err),
                 SDUI_ARGUMENT);
    CHECK_STATUS(sdui_disk_get_screen(NULL, "a", 1, 1, &sc, &err),
                 SDUI_ARGUMENT);
    CHECK_STATUS(sdui_disk_get_screen(d, "a", 1, 1, NULL, &err),
                 SDUI_ARGUMENT);
    CHECK_STATUS(sdui_disk_get_screen(d, NULL, 1, 1, &sc, &err),
                 SDUI_ARGUMENT);
    CHECK(sc == (sdui_disk_screen *)1); /* unchanged (sdui.h) */

    CHECK_STATUS(sdui_disk_get_stats(d, &s, &err), SDUI_OK);
    CHECK_EQ_INT(s.screens, 2);
    CHECK_EQ_INT(s.screen_bytes, 2);
    CHECK_EQ_INT(s.max_screens, 10);
    CHECK_EQ_INT(s.max_screen_bytes, 1000);
    CHECK_EQ_INT(s.entries, 0); /* screens are not tokens */
    CHECK_EQ_INT(s.bytes, 0);
    sdui_disk_free(d);

    /* Kept across reopening. */
    CHECK_STATUS(open_screens(p, 10, 1000, &d, &err), SDUI_OK);
    CHECK_EQ_INT(has_screen(d, "home", 700, &fetched), 1);
    CHECK_EQ_INT(fetched, 400);
    CHECK_STATUS(put_screen(d, "fits", 1000, 5, 800), SDUI_OK);
    CHECK_EQ_INT(has_screen(d, "home", 900, NULL), 0);
    CHECK_EQ_INT(has_screen(d, "fits", 900, NULL), 1);
    sdui_disk_free(d);

    /* The defaults. */
    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_OK);
    CHECK_STATUS(sdui_disk_get_stats(d, &s, &err), SDUI_OK);
    CHECK_EQ_INT(s.max_screens, SDUI_DISK_DEFAULT_MAX_SCREENS);
    CHECK_EQ_INT(s.max_screen_bytes, SDUI_DISK_DEFAULT_MAX_SCREEN_BYTES);
    sdui_disk_free(d);
}

/*
 * Screens are evicted by count and by payload bytes, least recently read
 * first, and apart from the tokens: token batches do not evict screens,
 * nor screens tokens.
 */
static void test_screen_eviction(void)
{
    sdui_disk *d;
    sdui_disk_stats s;
    sdui_disk_options o;
    sdui_error err;
    char id[16];
    row r;
    int i;

    /* By count: s0..s2 at 1..3; reading s0 makes it recent, so s3 evicts
     * s1; then s0 and s2 are read, so s4 evicts s3. */
    CHECK_STATUS(open_screens(test_path("screen-count.db"), 3, 100000, &d,
                              &err),
                 SDUI_OK);
    for (i = 0; i < 3; i++) {
        snprintf(id, sizeof id, "s%d", i);
        CHECK_STATUS(put_screen(d, id, 50, i + 1, i + 1), SDUI_OK);
    }
    CHECK_EQ_INT(has_screen(d, "s0", 10, NULL), 1);
    CHECK_STATUS(put_screen(d, "s3", 50, 11, 11), SDUI_OK);
    CHECK_EQ_INT(has_screen(d, "s1", 12, NULL), 0);
    CHECK_EQ_INT(has_screen(d, "s0", 12, NULL), 1);
    CHECK_EQ_INT(has_screen(d, "s2", 12, NULL), 1);
    CHECK_STATUS(put_screen(d, "s4", 50, 13, 13), SDUI_OK);
    CHECK_EQ_INT(has_screen(d, "s3", 14, NULL), 0);
    CHECK_EQ_INT(has_screen(d, "s0", 14, NULL), 1);
    CHECK_EQ_INT(has_screen(d, "s2", 14, NULL), 1);
    CHECK_EQ_INT(has_screen(d, "s4", 14, NULL), 1);
    /* s0, s2 and s4 read at 14: a tie, broken by id; s5 evicts s0. */
    CHECK_STATUS(put_screen(d, "s5", 50, 15, 15), SDUI_OK);
    CHECK_EQ_INT(has_screen(d, "s0", 16, NULL), 0);
    CHECK_EQ_INT(has_screen(d, "s2", 16, NULL), 1);
    CHECK_STATUS(sdui_disk_get_stats(d, &s, &err), SDUI_OK);
    CHECK_EQ_INT(s.screens, 3);
    CHECK_EQ_INT(s.screen_evictions, 3);
    CHECK_EQ_INT(s.evictions, 0);
    sdui_disk_free(d);

    /* By bytes: payloads of 400 under 1,000 bytes keep two. */
    CHECK_STATUS(open_screens(test_path("screen-bytes.db"), 100, 1000, &d,
                              &err),
                 SDUI_OK);
    for (i = 0; i < 6; i++) {
        snprintf(id, sizeof id, "b%d", i);
        CHECK_STATUS(put_screen(d, id, 400, i, i), SDUI_OK);
        CHECK_STATUS(sdui_disk_get_stats(d, &s, &err), SDUI_OK);
        CHECK(s.screen_bytes <= 1000);
    }
    CHECK_EQ_INT(s.screens, 2);
    CHECK_EQ_INT(s.screen_bytes, 800);
    CHECK_EQ_INT(s.screen_evictions, 4);
    CHECK_EQ_INT(has_screen(d, "b5", 20, NULL), 1);
    CHECK_EQ_INT(has_screen(d, "b4", 20, NULL), 1);
    sdui_disk_free(d);

    /* Apart from the tokens: 2 token entries, 2 screens. */
    sdui_disk_options_default(&o);
    o.max_entries = 2;
    o.max_screens = 2;
    o.durable = 0;
    CHECK_STATUS(sdui_disk_open(test_path("screen-apart.db"), &o, &d, &err),
                 SDUI_OK);
    CHECK_STATUS(put_screen(d, "x", 10, 1, 1), SDUI_OK);
    CHECK_STATUS(put_screen(d, "y", 10, 2, 2), SDUI_OK);
    for (i = 0; i < 10; i++) {
        snprintf(id, sizeof id, "t%d", i);
        make_row(&r, id, 1, 1, 1 << 30);
        CHECK_STATUS(put_rows(d, &r, 1, 10 + i), SDUI_OK);
    }
    CHECK_STATUS(put_screen(d, "z", 10, 30, 30), SDUI_OK);
    CHECK_STATUS(sdui_disk_get_stats(d, &s, &err), SDUI_OK);
    CHECK_EQ_INT(s.entries, 2);
    CHECK_EQ_INT(s.evictions, 8);
    CHECK_EQ_INT(s.screens, 2);
    CHECK_EQ_INT(s.screen_evictions, 1);
    CHECK_EQ_INT(has_screen(d, "y", 40, NULL), 1);
    sdui_disk_free(d);
}

/* The exact schema of version 1 (the first release), as it wrote it. */
static const char v1_schema_sql[] =
    "CREATE TABLE IF NOT EXISTS tokens("
    " id TEXT PRIMARY KEY NOT NULL,"
    " version INTEGER NOT NULL,"
    " etag TEXT NOT NULL,"
    " bytes INTEGER NOT NULL,"
    " primitive_version INTEGER NOT NULL,"
    " fetched_at INTEGER NOT NULL,"
    " expires_at INTEGER NOT NULL,"
    " last_access INTEGER NOT NULL,"
    " json BLOB NOT NULL);"
    "CREATE INDEX IF NOT EXISTS tokens_last_access"
    " ON tokens(last_access, id);";

/* Writes a version-1 file at p holding rows[0, n), as version 1 did (WAL,
 * the schema, user_version 1, then the rows), plus `extra` SQL. */
static int make_v1_file(const char *p, const row *rows, size_t n,
                        const char *extra)
{
    sqlite3 *db;
    sqlite3_stmt *st = NULL;
    size_t i;
    int rc = sqlite3_open(p, &db);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, v1_schema_sql, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "PRAGMA user_version=1; COMMIT", NULL, NULL,
                          NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(
            db,
            "INSERT OR REPLACE INTO tokens(id, version, etag, json, bytes,"
            " primitive_version, fetched_at, expires_at, last_access)"
            " VALUES(?,?,?,?,?,?,?,?,?)",
            -1, &st, NULL);
    for (i = 0; rc == SQLITE_OK && i < n; i++) {
        const sdui_disk_record *r = &rows[i].rec;
        sqlite3_bind_text(st, 1, r->id, (int)r->id_len, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, r->version);
        sqlite3_bind_text(st, 3, r->etag, (int)r->etag_len, SQLITE_STATIC);
        sqlite3_bind_blob(st, 4, r->json, (int)r->json_len, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, (sqlite3_int64)r->json_len);
        sqlite3_bind_int64(st, 6, r->primitive_version);
        sqlite3_bind_int64(st, 7, r->fetched_at);
        sqlite3_bind_int64(st, 8, r->expires_at);
        sqlite3_bind_int64(st, 9, 77);
        rc = sqlite3_step(st);
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_OK && extra)
        rc = sqlite3_exec(db, extra, NULL, NULL, NULL);
    sqlite3_close(db);
    return rc == SQLITE_OK;
}

/*
 * A version-1 file is upgraded in place: every token is kept (as rows and
 * as tokens), screens work, user_version is 2, and nothing is moved
 * aside, and it is marked as a cache file.  A file of version 3 is
 * refused and untouched; a version-1 file (made before application ids)
 * with a table of its own, or with the screens table already, is not
 * provably a cache: refused and untouched.
 */
static void test_upgrade_from_v1(void)
{
    static row rows[12];
    const char *ids[12];
    size_t lens[12], i;
    char p[512], buf[64];
    sdui_disk *d = NULL;
    sdui_disk_rows *got;
    sdui_disk_tokens *t;
    sdui_disk_stats s;
    sdui_error err;

    for (i = 0; i < 12; i++) {
        snprintf(buf, sizeof buf, "old%zu", i);
        make_row(&rows[i], buf, (int)i + 1, (int)i * 3, 4000 + (int)i);
        ids[i] = rows[i].id;
        lens[i] = rows[i].rec.id_len;
    }
    snprintf(p, sizeof p, "%s", test_path("v1.db"));
    CHECK(make_v1_file(p, rows, 12, NULL));
    raw_value(p, "PRAGMA user_version", buf, sizeof buf);
    CHECK_EQ_STR(buf, "1");

    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_disk_recovered(d), 0);
    CHECK(!moved_aside("v1.db"));
    CHECK_STATUS(sdui_disk_get(d, ids, lens, 12, 5000, &got, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_disk_rows_count(got), 12);
    for (i = 0; i < sdui_disk_rows_count(got); i++) {
        const sdui_disk_record *r = sdui_disk_rows_at(got, i);
        int n = atoi(r->id + 3);
        CHECK(r->json_len == rows[n].rec.json_len &&
              memcmp(r->json, rows[n].json, r->json_len) == 0);
        CHECK(r->etag_len == rows[n].rec.etag_len &&
              memcmp(r->etag, rows[n].etag, r->etag_len) == 0);
        CHECK_EQ_INT(r->version, n + 1);
        CHECK_EQ_INT(r->expires_at, 4000 + n);
        CHECK_EQ_INT(r->last_access, 77);
    }
    sdui_disk_rows_free(got);
    CHECK_STATUS(sdui_disk_get_tokens(d, ids, lens, 12, 5000, NULL, &t, &err),
                 SDUI_OK);
    CHECK_EQ_INT(sdui_disk_tokens_count(t), 12);
    for (i = 0; i < sdui_disk_tokens_count(t); i++)
        CHECK(!sdui_disk_tokens_at(t, i)->bad);
    sdui_disk_tokens_free(t);
    CHECK_STATUS(put_screen(d, "home", 100, 1, 6000), SDUI_OK);
    CHECK_EQ_INT(has_screen(d, "home", 6001, NULL), 1);
    CHECK_STATUS(sdui_disk_get_stats(d, &s, &err), SDUI_OK);
    CHECK_EQ_INT(s.entries, 12);
    CHECK_EQ_INT(s.screens, 1);
    sdui_disk_free(d);
    raw_value(p, "PRAGMA user_version", buf, sizeof buf);
    CHECK_EQ_STR(buf, "2");
    raw_value(p, "SELECT count(*) FROM sqlite_master", buf, sizeof buf);
    CHECK_EQ_STR(buf, "6"); /* 2 tables, their id indexes, 2 access indexes */
    raw_value(p, "PRAGMA integrity_check", buf, sizeof buf);
    CHECK_EQ_STR(buf, "ok");
    /* Marked as a cache file on its way. */
    raw_value(p, "PRAGMA application_id", buf, sizeof buf);
    CHECK_EQ_INT(atol(buf), SDUI_DISK_APPLICATION_ID);

    /* Reopened as version 2: nothing more runs, everything is there. */
    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_disk_recovered(d), 0);
    CHECK_EQ_INT(has_screen(d, "home", 7000, NULL), 1);
    CHECK_STATUS(sdui_disk_get_stats(d, &s, &err), SDUI_OK);
    CHECK_EQ_INT(s.entries, 12);
    sdui_disk_free(d);

    /* Version 3: refused, untouched (version, rows, no move). */
    CHECK(raw_exec(p, "PRAGMA user_version=3") == SQLITE_OK);
    d = (sdui_disk *)1;
    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_SQLITE);
    CHECK(d == NULL);
    CHECK_MSG_HAS("newer version");
    CHECK_MSG_HAS("schema 3");
    raw_value(p, "PRAGMA user_version", buf, sizeof buf);
    CHECK_EQ_STR(buf, "3");
    raw_value(p, "SELECT count(*) FROM tokens", buf, sizeof buf);
    CHECK_EQ_STR(buf, "12");
    CHECK(!moved_aside("v1.db"));

    /* Version 1 with a table of its own, made before application ids:
     * not provably ours, so refused and left as it was. */
    snprintf(p, sizeof p, "%s", test_path("v1-extra.db"));
    CHECK(make_v1_file(p, rows, 3, "CREATE TABLE mine(x)"));
    check_refused(p, "v1-extra.db", "not the tables of that version");

    /* Version 1 claiming the screens table already: not version 1's
     * objects, refused too. */
    snprintf(p, sizeof p, "%s", test_path("v1-screens.db"));
    CHECK(make_v1_file(p, rows, 3,
                       "CREATE TABLE screens(id TEXT PRIMARY KEY NOT NULL,"
                       " etag TEXT NOT NULL, fetched_at INTEGER NOT NULL,"
                       " last_access INTEGER NOT NULL,"
                       " payload BLOB NOT NULL)"));
    check_refused(p, "v1-screens.db", "not the tables of that version");

    /* A version-1 file with no rows upgrades too. */
    snprintf(p, sizeof p, "%s", test_path("v1-empty.db"));
    CHECK(make_v1_file(p, rows, 0, NULL));
    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_disk_recovered(d), 0);
    CHECK_STATUS(put_screen(d, "a", 10, 1, 1), SDUI_OK);
    sdui_disk_free(d);
}

/*
 * Reads ids "<prefix><0..n)" and sums the JSON lengths of the rows found
 * into *bytes; returns the row count, or -1 if the read failed.
 */
static long sum_rows(sdui_disk *d, const char *prefix, int n, size_t *bytes)
{
    char names[64][16];
    const char *ids[64];
    size_t lens[64], k;
    sdui_disk_rows *rows;
    sdui_error err;
    long count;
    int i;
    assert(n <= 64);
    for (i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "%s%d", prefix, i);
        ids[i] = names[i];
        lens[i] = strlen(names[i]);
    }
    if (sdui_disk_get(d, ids, lens, (size_t)n, 0, &rows, &err) != SDUI_OK)
        return -1;
    *bytes = 0;
    for (k = 0; k < sdui_disk_rows_count(rows); k++)
        *bytes += sdui_disk_rows_at(rows, k)->json_len;
    count = (long)sdui_disk_rows_count(rows);
    sdui_disk_rows_free(rows);
    return count;
}

/*
 * A damaged `bytes` column (huge, negative, or a REAL far out of range)
 * neither stops later writes nor lifts the byte bound: totals count the
 * stored JSON itself.
 */
static void test_damaged_bytes(void)
{
    static const char *const values[] = {"9223372036854775807", "-1000000",
                                         "-1e300"};
    size_t v;
    for (v = 0; v < sizeof values / sizeof values[0]; v++) {
        char p[512], name[32], sql[128], id[16];
        sdui_disk *d;
        sdui_disk_stats s;
        sdui_error err;
        size_t bytes = 0;
        row r;
        int i;
        snprintf(name, sizeof name, "bytes%zu.db", v);
        snprintf(p, sizeof p, "%s", test_path(name));
        CHECK_STATUS(open_small(p, 100, 2000, &d, &err), SDUI_OK);
        for (i = 0; i < 10; i++) {
            snprintf(id, sizeof id, "d%d", i);
            make_row(&r, id, 1, 20, 1 << 30);
            CHECK_STATUS(put_rows(d, &r, 1, 100 + i), SDUI_OK);
        }
        sdui_disk_free(d);
        snprintf(sql, sizeof sql, "UPDATE tokens SET bytes=%s WHERE id='d3'",
                 values[v]);
        CHECK(raw_exec(p, sql) == SQLITE_OK);

        CHECK_STATUS(open_small(p, 100, 2000, &d, &err), SDUI_OK);
        for (i = 10; i < 30; i++) {
            snprintf(id, sizeof id, "d%d", i);
            make_row(&r, id, 1, 20, 1 << 30);
            if (!CHECKF(put_rows(d, &r, 1, 100 + i) == SDUI_OK,
                        "bytes=%s: batch %d refused", values[v], i))
                break;
            CHECK_STATUS(sdui_disk_get_stats(d, &s, &err), SDUI_OK);
            CHECKF(s.bytes <= 2000, "bytes=%s: %zu bytes over the bound",
                   values[v], s.bytes);
            CHECKF(sum_rows(d, "d", 30, &bytes) == (long)s.entries &&
                       bytes == s.bytes,
                   "bytes=%s: stats say %zu rows, %zu bytes; the rows hold "
                   "%zu bytes",
                   values[v], s.entries, s.bytes, bytes);
        }
        CHECK(s.entries > 5 && s.entries < 30); /* the bound evicted */
        sdui_disk_free(d);
    }
}

/*
 * A file at our schema version whose tables are not ours (other columns, a
 * trigger of its own) without the cache's application_id, or an
 * unversioned file of another program, is not a cache: it is refused, not
 * used, written into or moved aside.  The same changes made to a cache
 * file (one with the application_id) are damage: it is moved aside, and a
 * fresh cache works.
 */
static void test_foreign_schema(void)
{
    static const char *const sql[] = {
        /* Our table without the json column: every open failed before. */
        "CREATE TABLE tokens(id TEXT PRIMARY KEY NOT NULL, version INTEGER,"
        " etag TEXT, bytes INTEGER, primitive_version INTEGER,"
        " fetched_at INTEGER, expires_at INTEGER, last_access INTEGER);"
        "PRAGMA user_version=1",
        /* Our schema plus a trigger that undoes eviction. */
        "CREATE TABLE tokens(id TEXT PRIMARY KEY NOT NULL,"
        " version INTEGER NOT NULL, etag TEXT NOT NULL,"
        " bytes INTEGER NOT NULL, primitive_version INTEGER NOT NULL,"
        " fetched_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,"
        " last_access INTEGER NOT NULL, json BLOB NOT NULL);"
        "CREATE INDEX tokens_last_access ON tokens(last_access, id);"
        "CREATE TRIGGER keep AFTER DELETE ON tokens BEGIN"
        " INSERT INTO tokens VALUES(old.id || 'x', 1, '', 1, 1, 1, 1, 1, x'00');"
        " END;"
        "PRAGMA user_version=1",
        /* Another program's database. */
        "CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES('mine')",
    };
    static const char *const why[] = {
        "not the tables of that version", "not the tables of that version",
        "tables of another program"};
    size_t k;
    for (k = 0; k < sizeof sql / sizeof sql[0]; k++) {
        char p[512], name[32];
        snprintf(name, sizeof name, "foreign%zu.db", k);
        snprintf(p, sizeof p, "%s", test_path(name));
        CHECK(raw_exec(p, sql[k]) == SQLITE_OK);
        check_refused(p, name, why[k]);
    }
    /* The trigger added to a cache file: damage, moved aside. */
    {
        char p[512], buf[32];
        sdui_disk *d;
        sdui_error err;
        row r[6];
        int i;
        snprintf(p, sizeof p, "%s", test_path("trigger.db"));
        CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_OK);
        sdui_disk_free(d);
        CHECK(raw_exec(p, "CREATE TRIGGER keep AFTER DELETE ON tokens BEGIN"
                          " INSERT INTO tokens VALUES(old.id || 'x', 1, '',"
                          " 1, 1, 1, 1, 1, x'00'); END;") == SQLITE_OK);
        CHECK_STATUS(open_small(p, 4, 100000, &d, &err), SDUI_OK);
        if (!d)
            return;
        CHECK_EQ_INT(sdui_disk_recovered(d), 1);
        CHECK(moved_aside("trigger.db"));
        for (i = 0; i < 6; i++) {
            char id[16];
            snprintf(id, sizeof id, "f%d", i);
            make_row(&r[i], id, 1, 1, 1 << 30);
        }
        CHECK_STATUS(put_rows(d, r, 6, 1), SDUI_OK);
        sdui_disk_free(d);
        raw_value(p, "SELECT count(*) FROM tokens", buf, sizeof buf);
        CHECK_EQ_STR(buf, "4");
    }
}

/* The root page of a table or index of the file, and its page size. */
static long root_page(const char *path, const char *name, long *page_size)
{
    char sql[160], buf[32];
    snprintf(sql, sizeof sql,
             "SELECT rootpage FROM sqlite_master WHERE name='%s'", name);
    raw_value(path, sql, buf, sizeof buf);
    *page_size = 0;
    if (!buf[0])
        return 0;
    {
        char ps[32];
        raw_value(path, "PRAGMA page_size", ps, sizeof ps);
        *page_size = atol(ps);
    }
    return atol(buf);
}

/*
 * Replaces the one occurrence of `from` in the root page of index `name`
 * by `to` (same length): a one-byte change of the index, not the table.
 * Returns 1 if it was found exactly once.
 */
static int patch_index(const char *path, const char *name, const char *from,
                       const char *to)
{
    static unsigned char page[65536];
    long size, root = root_page(path, name, &size), i, hits = 0, at = 0;
    size_t n = strlen(from);
    if (!root || size <= 0 || size > (long)sizeof page ||
        !page_io(path, root, size, page, 0))
        return 0;
    for (i = 0; i + (long)n <= size; i++)
        if (memcmp(page + i, from, n) == 0) {
            hits++;
            at = i;
        }
    if (hits != 1)
        return 0;
    memcpy(page + at, to, n);
    return page_io(path, root, size, page, 1);
}

/* Fills the root page of table or index `name` with one byte value. */
static int smash_root(const char *path, const char *name)
{
    static unsigned char page[65536];
    long size, root = root_page(path, name, &size);
    if (!root || size <= 0 || size > (long)sizeof page)
        return 0;
    memset(page, 0xA5, (size_t)size);
    return page_io(path, root, size, page, 1);
}

/* Rows "ix-010", "ix-020", ... "ix-200": ids far apart in the index. */
static void put_index_rows(sdui_disk *d)
{
    static row r[20];
    int i;
    for (i = 0; i < 20; i++) {
        char id[16];
        snprintf(id, sizeof id, "ix-%03d", (i + 1) * 10);
        make_row(&r[i], id, 1, 5, 1 << 30);
    }
    CHECK(put_rows(d, r, 20, 1) == SDUI_OK);
}

/*
 * A returned row must be one that was asked for, and its body must be its
 * own (make_row writes "id":"<id>" into the JSON).
 */
static void check_rows_asked(const sdui_disk_rows *rows, const char *const *ids,
                             size_t n)
{
    size_t i, j;
    for (i = 0; i < sdui_disk_rows_count(rows); i++) {
        const sdui_disk_record *r = sdui_disk_rows_at(rows, i);
        char own[80];
        int asked = 0;
        for (j = 0; j < n; j++)
            asked |= r->id_len == strlen(ids[j]) &&
                     memcmp(r->id, ids[j], r->id_len) == 0;
        snprintf(own, sizeof own, "\"id\":\"%.*s\"", (int)r->id_len, r->id);
        CHECKF(asked, "row \"%.*s\" was not asked for", (int)r->id_len,
               r->id);
        CHECKF(strstr(r->json, own) != NULL,
               "row \"%.*s\" carries another row's body: %s", (int)r->id_len,
               r->id, r->json);
    }
}

/*
 * One id in the id index changed while the file was closed: quick_check
 * passes it, integrity_check does not, so open moves the file aside.
 */
static void test_index_damage_at_open(void)
{
    char p[512], buf[128], json[600];
    sdui_disk *d;
    sdui_error err;
    sdui_disk_record rec;

    snprintf(p, sizeof p, "%s", test_path("index.db"));
    CHECK_STATUS(open_small(p, 100, 100000, &d, &err), SDUI_OK);
    put_index_rows(d);
    sdui_disk_free(d);
    CHECK(patch_index(p, "sqlite_autoindex_tokens_1", "ix-050", "ix-051"));
    raw_value(p, "PRAGMA quick_check", buf, sizeof buf);
    CHECKF(strcmp(buf, "ok") == 0, "quick_check already sees it: %s", buf);
    raw_value(p, "PRAGMA integrity_check", buf, sizeof buf);
    CHECKF(strcmp(buf, "ok") != 0, "integrity_check misses it");

    CHECK_STATUS(open_small(p, 100, 100000, &d, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_disk_recovered(d), 1);
    CHECK(moved_aside("index.db"));
    CHECK_EQ_INT(get_one(d, "ix-051", &rec, json, sizeof json, 2), 0);
    CHECK_EQ_INT(get_one(d, "ix-050", &rec, json, sizeof json, 2), 0);
    sdui_disk_free(d);
}

/*
 * Damages the closed-over pages of an open cache: checkpoints its WAL into
 * the file, applies `damage`, then commits a header change through another
 * connection so the open one drops its page cache and reads the damage.
 */
static int damage_while_open(const char *p, int (*damage)(const char *))
{
    char buf[64];
    raw_value(p, "PRAGMA wal_checkpoint(TRUNCATE)", buf, sizeof buf);
    if (strcmp(buf, "0") != 0 || !damage(p))
        return 0;
    return raw_exec(p, "PRAGMA user_version=2") == SQLITE_OK;
}

/* The id index change of the tests below. */
static int change_index_id(const char *p)
{
    return patch_index(p, "sqlite_autoindex_tokens_1", "ix-050", "ix-051");
}

/* Garbage over the roots of the table and of its id index. */
static int smash_roots(const char *p)
{
    return smash_root(p, "tokens") &&
           smash_root(p, "sqlite_autoindex_tokens_1");
}

/* After a reset the cache works again: a row goes in and comes back. */
static void check_fresh(sdui_disk *d)
{
    sdui_disk_stats s;
    sdui_disk_record rec;
    sdui_error err;
    char json[600];
    row r;
    make_row(&r, "after", 1, 1, 1 << 30);
    CHECK(put_rows(d, &r, 1, 10) == SDUI_OK);
    CHECK_EQ_INT(get_one(d, "after", &rec, json, sizeof json, 11), 1);
    CHECK_STATUS(sdui_disk_get_stats(d, &s, &err), SDUI_OK);
    CHECK_EQ_INT(s.entries, 1);
}

/*
 * The id index changed under an open cache: looking up the changed id
 * finds another row.  A refresh must not change that row, and a read must
 * not return it: the read reports the damage, and the file is moved aside
 * and the cache starts afresh.
 */
static void test_index_damage_at_run_time(void)
{
    char p[512];
    sdui_disk *d;
    sdui_error err;
    sdui_disk_rows *rows = NULL;
    const char *ids[2] = {"ix-051", "ix-010"};
    size_t lens[2] = {6, 6}, n = 9;
    char buf[32];

    snprintf(p, sizeof p, "%s", test_path("live-index.db"));
    CHECK_STATUS(open_small(p, 100, 100000, &d, &err), SDUI_OK);
    put_index_rows(d);
    CHECK(damage_while_open(p, change_index_id));

    /* A refresh of the changed id does not make the other row fresh. */
    CHECK_STATUS(sdui_disk_refresh(d, ids, lens, 1, 7, 8, &n, &err), SDUI_OK);
    CHECK_EQ_INT(n, 0);
    raw_value(p, "SELECT expires_at FROM tokens NOT INDEXED"
                  " WHERE id='ix-050'", buf, sizeof buf);
    CHECK_EQ_STR(buf, "1073741824");

    CHECK_STATUS(sdui_disk_get(d, ids, lens, 2, 5, &rows, &err), SDUI_SQLITE);
    CHECK_MSG_HAS("damaged");
    CHECK_MSG_HAS("reset");
    CHECK_MSG_HAS(p);
    if (rows)
        check_rows_asked(rows, ids, 2);
    sdui_disk_rows_free(rows);
    CHECK_EQ_INT(sdui_disk_recovered(d), 1);
    CHECK(moved_aside("live-index.db"));
    check_fresh(d);
    sdui_disk_free(d);
}

/*
 * Pages damaged under an open cache: each call that meets SQLITE_CORRUPT
 * fails once with a message saying the cache was reset; the file is moved
 * aside and the next calls work on a fresh file.
 */
static void test_damage_at_run_time(void)
{
    static const char *const ops[] = {"get", "put", "refresh", "remove",
                                      "stats"};
    size_t op;
    for (op = 0; op < sizeof ops / sizeof ops[0]; op++) {
        char p[512], name[32];
        const char *id = "ix-030";
        size_t len = 6, n = 7;
        sdui_disk *d;
        sdui_error err;
        sdui_disk_rows *rows = NULL;
        sdui_disk_stats s;
        sdui_status st = SDUI_OK;
        row r;
        snprintf(name, sizeof name, "live-%s.db", ops[op]);
        snprintf(p, sizeof p, "%s", test_path(name));
        CHECK_STATUS(open_small(p, 100, 100000, &d, &err), SDUI_OK);
        put_index_rows(d);
        CHECK(damage_while_open(p, smash_roots));
        make_row(&r, "ix-999", 1, 1, 1 << 30);
        switch (op) {
        case 0:
            st = sdui_disk_get(d, &id, &len, 1, 5, &rows, &err);
            CHECK(rows == NULL);
            break;
        case 1:
            st = sdui_disk_put(d, &r.rec, 1, 5, &err);
            break;
        case 2:
            st = sdui_disk_refresh(d, &id, &len, 1, 5, 6, &n, &err);
            CHECK_EQ_INT(n, 0);
            break;
        case 3:
            st = sdui_disk_remove(d, &id, &len, 1, &n, &err);
            CHECK_EQ_INT(n, 0);
            break;
        default:
            st = sdui_disk_get_stats(d, &s, &err);
            break;
        }
        CHECKF(st == SDUI_SQLITE, "%s: status %s (%s)", ops[op],
               sdui_status_name(st), err.message);
        CHECKF(strstr(err.message, "damaged") && strstr(err.message, "reset"),
               "%s: message \"%s\"", ops[op], err.message);
        sdui_disk_rows_free(rows);
        CHECKF(sdui_disk_recovered(d) == 1, "%s: not recovered", ops[op]);
        CHECKF(moved_aside(name), "%s: not moved aside", ops[op]);
        check_fresh(d);
        sdui_disk_free(d);
    }
}

/* Screens "sc-010", "sc-020", ... "sc-200": ids far apart in the index. */
static void put_index_screens(sdui_disk *d)
{
    int i;
    for (i = 0; i < 20; i++) {
        char id[16];
        snprintf(id, sizeof id, "sc-%03d", (i + 1) * 10);
        CHECK(put_screen(d, id, 20, 1, 1) == SDUI_OK);
    }
}

/* One id changed in the screens' id index. */
static int change_screen_index_id(const char *p)
{
    return patch_index(p, "sqlite_autoindex_screens_1", "sc-050", "sc-051");
}

/* Garbage over the roots of the screens table and of its id index. */
static int smash_screen_roots(const char *p)
{
    return smash_root(p, "screens") &&
           smash_root(p, "sqlite_autoindex_screens_1");
}

/* After a reset the screens work again, on an empty table. */
static void check_fresh_screens(sdui_disk *d)
{
    sdui_disk_stats s;
    sdui_error err;
    CHECK_STATUS(sdui_disk_get_stats(d, &s, &err), SDUI_OK);
    CHECK_EQ_INT(s.screens, 0);
    CHECK(put_screen(d, "after", 10, 1, 10) == SDUI_OK);
    CHECK_EQ_INT(has_screen(d, "after", 11, NULL), 1);
}

/*
 * Damage in the screens, handled as in the tokens: an id index changed
 * while closed is found at open (the file moved aside); changed under an
 * open cache, the lookup of the changed id finds another screen's row,
 * which is not returned: the read fails, saying the cache was reset.
 * Pages smashed under an open cache fail a put or a get the same way.
 */
static void test_screen_damage(void)
{
    char p[512], name[32];
    sdui_disk *d;
    sdui_disk_screen *sc = NULL;
    sdui_error err;
    char buf[128];
    int op;

    /* At open. */
    snprintf(p, sizeof p, "%s", test_path("screen-index.db"));
    CHECK_STATUS(open_screens(p, 100, 100000, &d, &err), SDUI_OK);
    put_index_screens(d);
    sdui_disk_free(d);
    CHECK(change_screen_index_id(p));
    raw_value(p, "PRAGMA integrity_check", buf, sizeof buf);
    CHECKF(strcmp(buf, "ok") != 0, "integrity_check misses it");
    CHECK_STATUS(open_screens(p, 100, 100000, &d, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_disk_recovered(d), 1);
    CHECK(moved_aside("screen-index.db"));
    CHECK_EQ_INT(has_screen(d, "sc-050", 2, NULL), 0);
    sdui_disk_free(d);

    /* At run time: the other row is not handed out. */
    snprintf(p, sizeof p, "%s", test_path("screen-live-index.db"));
    CHECK_STATUS(open_screens(p, 100, 100000, &d, &err), SDUI_OK);
    put_index_screens(d);
    CHECK(damage_while_open(p, change_screen_index_id));
    CHECK_STATUS(sdui_disk_get_screen(d, "sc-051", 6, 5, &sc, &err),
                 SDUI_SQLITE);
    CHECK(sc == NULL);
    CHECK_MSG_HAS("damaged");
    CHECK_MSG_HAS("reset");
    CHECK_MSG_HAS("a screen not asked for");
    CHECK_MSG_HAS(p);
    CHECK_EQ_INT(sdui_disk_recovered(d), 1);
    CHECK(moved_aside("screen-live-index.db"));
    check_fresh_screens(d);
    check_fresh(d);
    sdui_disk_free(d);

    /* Smashed pages under a put and under a get. */
    for (op = 0; op < 2; op++) {
        sdui_status st;
        snprintf(name, sizeof name, "screen-live-%d.db", op);
        snprintf(p, sizeof p, "%s", test_path(name));
        CHECK_STATUS(open_screens(p, 100, 100000, &d, &err), SDUI_OK);
        put_index_screens(d);
        CHECK(damage_while_open(p, smash_screen_roots));
        sc = NULL;
        if (op == 0)
            st = sdui_disk_put_screen(d, "sc-999", 6, "e", 1, "p", 1, 1, 5,
                                      &err);
        else
            st = sdui_disk_get_screen(d, "sc-030", 6, 5, &sc, &err);
        CHECKF(st == SDUI_SQLITE, "op %d: status %s (%s)", op,
               sdui_status_name(st), err.message);
        CHECK(sc == NULL);
        CHECKF(strstr(err.message, "damaged") && strstr(err.message, "reset"),
               "op %d: message \"%s\"", op, err.message);
        CHECK_EQ_INT(sdui_disk_recovered(d), 1);
        CHECK(moved_aside(name));
        check_fresh_screens(d);
        sdui_disk_free(d);
    }
}

/* An open that recovers from a damaged file leaves no error behind. */
static void test_error_cleared_after_recovery(void)
{
    static const unsigned char zeros[16] = {0};
    char p[512];
    sdui_disk *d;
    sdui_error err;
    FILE *f;
    snprintf(p, sizeof p, "%s", test_path("cleared.db"));
    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_OK);
    sdui_disk_free(d);
    /* The header's first bytes gone; its application_id still there. */
    f = fopen(p, "r+b");
    CHECK(f != NULL);
    if (f) {
        fwrite(zeros, 1, sizeof zeros, f);
        fclose(f);
    }
    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_OK);
    CHECK_EQ_INT(sdui_disk_recovered(d), 1);
    CHECK_EQ_INT(err.status, SDUI_OK);
    CHECK_EQ_STR(err.message, "");
    sdui_disk_free(d);
}

/* What a child process does with the cache path; fills *e. */
typedef void (*child_fn)(const char *path, sdui_error *e);

/*
 * Runs fn(path) in a child process, so a hang (cut by an alarm), a resource
 * limit, a syscall filter or another user stays there.  Returns 0 with the
 * child's error record in *out, or -1 if the child did not report.
 */
static int in_child(const char *path, child_fn fn, sdui_error *out)
{
    int fds[2], status;
    ssize_t got;
    pid_t pid;
    if (pipe(fds) != 0)
        return -1;
    pid = fork();
    if (pid == 0) {
        sdui_error e;
        close(fds[0]);
        alarm(10); /* nothing here may hang */
        memset(&e, 0, sizeof e);
        fn(path, &e);
        if (write(fds[1], &e, sizeof e) != (ssize_t)sizeof e)
            _exit(1);
        _exit(0);
    }
    close(fds[1]);
    got = read(fds[0], out, sizeof *out);
    close(fds[0]);
    waitpid(pid, &status, 0);
    return got == (ssize_t)sizeof *out && WIFEXITED(status) ? 0 : -1;
}

/* Child: opens and closes the cache. */
static void child_open(const char *path, sdui_error *e)
{
    sdui_disk *d = NULL;
    sdui_disk_open(path, NULL, &d, e);
    sdui_disk_free(d);
}

/* Child: opens with files that may not grow (writes fail with EFBIG). */
static void child_open_no_growth(const char *path, sdui_error *e)
{
    struct rlimit rl = {0, 0};
    signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
        _exit(2);
    child_open(path, e);
}

/* Child: opens as the unprivileged user "nobody" (root writes anywhere). */
static void child_open_as_nobody(const char *path, sdui_error *e)
{
    if (getuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
        _exit(2);
    child_open(path, e);
}

#ifdef HAVE_DISK_FULL
/* Child: opens on a full disk. */
static void child_open_disk_full(const char *path, sdui_error *e)
{
    make_disk_full();
    child_open(path, e);
}

/* Child: opens, then the disk fills up before a batch is written. */
static void child_put_disk_full(const char *path, sdui_error *e)
{
    sdui_disk *d = NULL;
    row r;
    if (open_small(path, 100, 100000, &d, e) != SDUI_OK)
        return;
    make_disk_full();
    make_row(&r, "x", 1, 1, 1 << 30);
    sdui_disk_put(d, &r.rec, 1, 5, e);
    if (sdui_disk_recovered(d))
        snprintf(e->message, sizeof e->message, "moved aside");
    sdui_disk_free(d);
}

/* Child: opens, writes a row, then the disk fills up before a batch of
 * tokens is written; reports how many rows are left. */
static void child_put_tokens_disk_full(const char *path, sdui_error *e)
{
    sdui_disk *d = NULL;
    sdui_disk_stats s;
    sdui_error e2;
    static row r[4];
    sdui_token *toks[3];
    const char *etags[3];
    size_t lens[3];
    int i;
    if (open_small(path, 100, 100000, &d, e) != SDUI_OK)
        return;
    make_row(&r[3], "before", 1, 1, 1 << 30);
    if (sdui_disk_put(d, &r[3].rec, 1, 4, e) != SDUI_OK)
        return;
    make_disk_full();
    for (i = 0; i < 3; i++) {
        char id[8];
        snprintf(id, sizeof id, "full%d", i);
        make_row(&r[i], id, 1, 1, 1 << 30);
        toks[i] = token_of(&r[i]);
        etags[i] = r[i].etag;
        lens[i] = r[i].rec.etag_len;
    }
    sdui_disk_put_tokens(d, (const sdui_token *const *)toks, etags, lens, 3,
                         1, 2, 5, e);
    if (sdui_disk_get_stats(d, &s, &e2) == SDUI_OK)
        e->line = (int)s.entries; /* the rows left, for the parent */
    for (i = 0; i < 3; i++)
        sdui_token_release(toks[i]);
    sdui_disk_free(d);
}
#endif

/*
 * A disk that cannot take the new cache's pages: the open fails with the
 * real cause, not with the message of the rollback after it.
 */
static void test_full_disk(void)
{
    char p[512];
    sdui_error err;
#ifdef HAVE_DISK_FULL
    sqlite3 *other;
#endif

    /* Files may not grow: every write fails with EFBIG. */
    snprintf(p, sizeof p, "%s", test_path("toolarge.db"));
    CHECK(in_child(p, child_open_no_growth, &err) == 0);
    CHECK_EQ_INT(err.status, SDUI_SQLITE);
    CHECK_MSG_HAS("file too large");
    CHECK_MSG_HAS(p);
    CHECKF(!strstr(err.message, "rollback"), "message: %s", err.message);

#ifdef HAVE_DISK_FULL
    /*
     * A new cache, and an empty WAL-mode file (unversioned, no tables) to
     * add the schema to.
     */
    snprintf(p, sizeof p, "%s", test_path("full.db"));
    CHECK(in_child(p, child_open_disk_full, &err) == 0);
    CHECK_EQ_INT(err.status, SDUI_SQLITE);
    CHECK_MSG_HAS("no space left on device");
    CHECK_MSG_HAS(p);
    CHECKF(!strstr(err.message, "rollback"), "message: %s", err.message);
    snprintf(p, sizeof p, "%s", test_path("full-empty.db"));
    CHECK(raw_exec(p, "PRAGMA journal_mode=WAL; CREATE TABLE t(x);"
                      " DROP TABLE t") == SQLITE_OK);
    CHECK(in_child(p, child_open_disk_full, &err) == 0);
    CHECK_EQ_INT(err.status, SDUI_SQLITE);
    CHECK_MSG_HAS("no space left on device");
    CHECKF(!strstr(err.message, "rollback"), "message: %s", err.message);

    /*
     * The same while another connection holds the file open (its shared
     * memory exists), so the first write to fail is the schema's commit,
     * after which SQLite has rolled back already.
     */
    snprintf(p, sizeof p, "%s", test_path("full-shared.db"));
    CHECK(sqlite3_open(p, &other) == SQLITE_OK);
    CHECK(sqlite3_exec(other,
                       "PRAGMA journal_mode=WAL; CREATE TABLE t(x);"
                       " DROP TABLE t",
                       NULL, NULL, NULL) == SQLITE_OK);
    CHECK(in_child(p, child_open_disk_full, &err) == 0);
    sqlite3_close(other);
    CHECK_EQ_INT(err.status, SDUI_SQLITE);
    CHECK_MSG_HAS("cannot create the schema");
    CHECK_MSG_HAS("no space left on device");
    CHECKF(!strstr(err.message, "rollback"), "message: %s", err.message);

    /* Full at run time: the batch fails with the cause; it is no damage. */
    snprintf(p, sizeof p, "%s", test_path("full-later.db"));
    CHECK(in_child(p, child_put_disk_full, &err) == 0);
    CHECK_EQ_INT(err.status, SDUI_SQLITE);
    CHECK_MSG_HAS("no space left on device");
    CHECK(!moved_aside("full-later.db"));

    /* The same for a batch of tokens: all or nothing. */
    snprintf(p, sizeof p, "%s", test_path("full-tokens.db"));
    CHECK(in_child(p, child_put_tokens_disk_full, &err) == 0);
    CHECK_EQ_INT(err.status, SDUI_SQLITE);
    CHECK_MSG_HAS("no space left on device");
    CHECK_EQ_INT(err.line, 1); /* the row before, none of the batch */
    CHECK(!moved_aside("full-tokens.db"));
#else
    printf("full disk: no seccomp here; ENOSPC not tested\n");
#endif
}

/* Makes a UNIX socket file at path (left in place); 1 on success. */
static int make_socket_file(const char *path)
{
    struct sockaddr_un a;
    size_t len = strlen(path);
    int fd, ok;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    if (len >= sizeof a.sun_path)
        return 0;
    memcpy(a.sun_path, path, len + 1);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0)
        return 0;
    ok = bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
    close(fd);
    return ok;
}

/*
 * Paths that cannot hold a cache fail fast with an error naming the cause:
 * a directory, a FIFO (which must not block the open), a socket, dangling
 * symbolic links, a missing folder, and an unwritable folder and file.
 */
static void test_unusable_paths(void)
{
    char p[512], target[600], ro[512];
    sdui_disk *d;
    sdui_error err;

    snprintf(p, sizeof p, "%s", test_path("a-folder"));
    CHECK(mkdir(p, 0700) == 0);
    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_SQLITE);
    CHECK_MSG_HAS("is a directory");
    CHECK_MSG_HAS(p);

    snprintf(p, sizeof p, "%s", test_path("a-fifo"));
    CHECK(mkfifo(p, 0600) == 0);
    CHECK(in_child(p, child_open, &err) == 0); /* -1: it hung */
    CHECK_EQ_INT(err.status, SDUI_SQLITE);
    CHECK_MSG_HAS("is a FIFO, not a regular file");
    CHECK_MSG_HAS(p);

    snprintf(p, sizeof p, "%s", test_path("a-socket"));
    CHECK(make_socket_file(p));
    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_SQLITE);
    CHECK_MSG_HAS("is a socket, not a regular file");

    /* A link into a missing folder, and one to a missing file. */
    snprintf(p, sizeof p, "%s", test_path("link-nodir"));
    snprintf(target, sizeof target, "%s/no-such-folder/c.db", test_dir);
    CHECK(symlink(target, p) == 0);
    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_SQLITE);
    CHECK_MSG_HAS("dangling symbolic link");
    CHECK_MSG_HAS("no such file or directory");
    CHECK_MSG_HAS(p);
    snprintf(p, sizeof p, "%s", test_path("link-nofile"));
    snprintf(target, sizeof target, "%s/no-such-file.db", test_dir);
    CHECK(symlink(target, p) == 0);
    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_SQLITE);
    CHECK_MSG_HAS("dangling symbolic link");
    CHECK(access(target, F_OK) != 0); /* nothing created through it */

    /* A link to a real cache is fine. */
    snprintf(target, sizeof target, "%s", test_path("linked.db"));
    CHECK_STATUS(sdui_disk_open(target, NULL, &d, &err), SDUI_OK);
    sdui_disk_free(d);
    snprintf(p, sizeof p, "%s", test_path("link-ok"));
    CHECK(symlink(target, p) == 0);
    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_OK);
    sdui_disk_free(d);

    snprintf(p, sizeof p, "%s/no-such-folder/c.db", test_dir);
    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_SQLITE);
    CHECK_MSG_HAS("no such file or directory");
    CHECK_MSG_HAS(p);

    /*
     * A folder the user cannot write (root writes anywhere, so the child
     * runs as "nobody"): neither a new cache nor an existing one opens.
     */
    snprintf(ro, sizeof ro, "%s", test_path("read-only"));
    CHECK(mkdir(ro, 0700) == 0);
    snprintf(p, sizeof p, "%.500s/old.db", ro);
    CHECK_STATUS(sdui_disk_open(p, NULL, &d, &err), SDUI_OK);
    sdui_disk_free(d);
    CHECK(chmod(p, 0444) == 0 && chmod(ro, 0555) == 0 &&
          chmod(test_dir, 0711) == 0);
    CHECK(in_child(p, child_open_as_nobody, &err) == 0);
    CHECK_EQ_INT(err.status, SDUI_SQLITE);
    CHECK_MSG_HAS("permission denied");
    CHECK_MSG_HAS(p);
    snprintf(p, sizeof p, "%.500s/new.db", ro);
    CHECK(in_child(p, child_open_as_nobody, &err) == 0);
    CHECK_EQ_INT(err.status, SDUI_SQLITE);
    CHECK_MSG_HAS("permission denied");
    CHECK_MSG_HAS(p);
    CHECK(chmod(ro, 0700) == 0 && chmod(test_dir, 0700) == 0);
}

/*
 * The writer of the crash test: batch b holds ids "b<b>-<0..49>".  It writes
 * -1 once the cache is open, then each batch number once committed.
 */
static void crash_writer(const char *p, int fd, int first)
{
    sdui_disk *d;
    sdui_disk_options o;
    sdui_error err;
    static row rows[50];
    int b, j;
    sdui_disk_options_default(&o);
    o.max_entries = 1u << 30;
    o.max_bytes = (size_t)1 << 40;
    if (sdui_disk_open(p, &o, &d, &err) != SDUI_OK)
        _exit(3);
    b = -1;
    if (write(fd, &b, sizeof b) != (ssize_t)sizeof b)
        _exit(5);
    for (b = first;; b++) {
        for (j = 0; j < 50; j++) {
            char id[32];
            snprintf(id, sizeof id, "b%d-%d", b, j);
            make_row(&rows[j], id, b, (b * 31 + j * 7) % 140, 1 << 30);
        }
        if (put_rows(d, rows, 50, b) != SDUI_OK)
            _exit(4);
        /* The screen "last" holds the batch number, durable likewise. */
        {
            char num[16];
            int len = snprintf(num, sizeof num, "%d", b);
            if (sdui_disk_put_screen(d, "last", 4, "e", 1, num, (size_t)len,
                                     b, b, &err) != SDUI_OK)
                _exit(4);
        }
        /* Acknowledged only once the batch is committed. */
        if (write(fd, &b, sizeof b) != (ssize_t)sizeof b)
            _exit(5);
    }
}

/* Every acknowledged batch is whole and each etag matches its body; the
 * screen "last" holds the last acknowledged batch number or a later one. */
static int verify_batches(const char *p, const int *acked, size_t nacked)
{
    sdui_disk *d;
    sdui_error err;
    size_t i;
    int ok = 1;
    char buf[64];
    raw_value(p, "PRAGMA integrity_check", buf, sizeof buf);
    CHECKF(strcmp(buf, "ok") == 0, "integrity_check said \"%s\"", buf);
    if (sdui_disk_open(p, NULL, &d, &err) != SDUI_OK) {
        CHECKF(0, "reopen failed: %s", err.message);
        return 0;
    }
    CHECK_EQ_INT(sdui_disk_recovered(d), 0);
    if (nacked) {
        sdui_disk_screen *sc = NULL;
        CHECK_STATUS(sdui_disk_get_screen(d, "last", 4, 0, &sc, &err),
                     SDUI_OK);
        ok = sc && atoi(sc->payload) >= acked[nacked - 1];
        CHECKF(ok, "the screen of batch %d is lost (holds %s)",
               acked[nacked - 1], sc ? sc->payload : "nothing");
        sdui_disk_screen_free(sc);
    }
    for (i = 0; i < nacked && ok; i++) {
        char names[50][32];
        const char *ids[50];
        size_t lens[50], k;
        sdui_disk_rows *rows;
        int j;
        for (j = 0; j < 50; j++) {
            snprintf(names[j], sizeof names[j], "b%d-%d", acked[i], j);
            ids[j] = names[j];
            lens[j] = strlen(names[j]);
        }
        if (sdui_disk_get(d, ids, lens, 50, 0, &rows, &err) != SDUI_OK) {
            ok = 0;
            break;
        }
        ok = sdui_disk_rows_count(rows) == 50;
        for (k = 0; ok && k < sdui_disk_rows_count(rows); k++) {
            const sdui_disk_record *r = sdui_disk_rows_at(rows, k);
            char etag[32];
            snprintf(etag, sizeof etag, "\"%08x\"",
                     (unsigned)sdui_crc32(0, r->json, r->json_len));
            ok = r->etag_len == strlen(etag) &&
                 memcmp(r->etag, etag, r->etag_len) == 0;
        }
        CHECKF(ok, "acknowledged batch %d is damaged or missing", acked[i]);
        sdui_disk_rows_free(rows);
    }
    sdui_disk_free(d);
    return ok;
}

/*
 * SIGKILL a writer at random moments; no acknowledged batch may be lost.
 * Even rounds time the kill from the fork, so it may land in the open
 * (schema creation, WAL recovery); odd rounds from the moment the writer
 * says the cache is open, so it lands among batches however long the open
 * takes (its integrity check grows with the file).  On a loaded machine a
 * writer may get too little time to commit anything before its kill: the
 * wait before the kill then grows (and shrinks again once batches come), so
 * the test reaches its count of acknowledged batches whatever the load.
 */
static void test_crash_during_writes(void)
{
    const char *p = test_path("crash.db");
    static int acked[100000];
    size_t nacked = 0;
    int next = 0, rounds = 0, kills_mid_batch = 0;
    useconds_t extra = 0; /* added to the wait while rounds end with no batch */
    unsigned seed = (unsigned)time(NULL);
    char keep[512];
    snprintf(keep, sizeof keep, "%s", p);
    printf("crash test seed %u\n", seed);
    srand(seed);
    while ((nacked < 250 || rounds < 25) && rounds < 2000) {
        int fds[2], b, status;
        size_t before = nacked;
        pid_t pid;
        if (pipe(fds) != 0)
            break;
        pid = fork();
        if (pid == 0) {
            close(fds[0]);
            crash_writer(keep, fds[1], next);
        }
        close(fds[1]);
        if (rounds % 2 && read(fds[0], &b, sizeof b) == (ssize_t)sizeof b)
            CHECK_EQ_INT(b, -1);
        usleep((useconds_t)(2000 + rand() % 40000) + extra);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        while (read(fds[0], &b, sizeof b) == (ssize_t)sizeof b &&
               nacked < sizeof acked / sizeof acked[0]) {
            if (b < 0)
                continue; /* the open notice */
            acked[nacked++] = b;
            next = b + 2; /* b + 1 may be committed but unacknowledged */
        }
        close(fds[0]);
        if (nacked > before)
            extra /= 2;
        else if (rounds % 2 && extra < 500000)
            extra = extra * 2 + 5000;
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
            kills_mid_batch++;
        else
            CHECKF(0, "writer exited by itself (status %d)", status);
        rounds++;
        if (!verify_batches(keep, acked, nacked))
            break;
    }
    printf("crash test: %d kills, %zu acknowledged batches of 50 rows, "
           "%d rounds\n", kills_mid_batch, nacked, rounds);
    CHECK(nacked >= 200);
    CHECK(kills_mid_batch >= 25);
}

int main(void)
{
    test_dir_make("disk");
    test_round_trip();
    test_refresh_and_remove();
    test_eviction();
    test_all_or_nothing();
    test_get_tokens();
    test_put_tokens();
    test_screens();
    test_screen_eviction();
    test_upgrade_from_v1();
    test_newer_schema();
    test_damaged_files();
    test_damaged_bytes();
    test_foreign_schema();
    test_index_damage_at_open();
    test_index_damage_at_run_time();
    test_damage_at_run_time();
    test_screen_damage();
    test_error_cleared_after_recovery();
    test_full_disk();
    test_unusable_paths();
    test_crash_during_writes();
    test_dir_remove();
    return check_summary();
}
