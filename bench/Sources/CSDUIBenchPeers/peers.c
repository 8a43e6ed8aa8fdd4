/*
 * peers.c - the benchmark's C peers: zlib and libdeflate inflate, jansson
 * whole-document parse, a plain SQLite insert loop (the floor of the event
 * queue), and resident-memory, page-fault and clock readings.
 */
#include "sdui_bench_peers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <jansson.h>
#include <libdeflate.h>
#include <sqlite3.h>
#include <zlib.h>

/* The output buffer's first size: the caller's hint, else the ISIZE of the
 * last member (the exact size of a single-member file). */
static size_t size_hint(const unsigned char *p, size_t len, size_t hint)
{
    size_t n;
    if (hint > 0)
        return hint;
    if (len < 18)
        return 4096;
    n = (size_t)p[len - 4] | (size_t)p[len - 3] << 8 |
        (size_t)p[len - 2] << 16 | (size_t)p[len - 1] << 24;
    return n < 4096 ? 4096 : n;
}

/* zlib, every member (inflateReset between members). */
long long sdui_bench_zlib_inflate(const void *gz, size_t len, size_t hint, char **out)
{
    z_stream zs;
    size_t cap = size_hint(gz, len, hint), used = 0;
    char *buf = malloc(cap + SDUI_BENCH_PADDING);
    int rc = Z_OK;
    *out = NULL;
    if (!buf)
        return -1;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 15 + 16) != Z_OK) {
        free(buf);
        return -1;
    }
    zs.next_in = (unsigned char *)gz;
    zs.avail_in = (uInt)len;
    for (;;) {
        if (used == cap) {
            char *nb = realloc(buf, cap * 2 + SDUI_BENCH_PADDING);
            if (!nb)
                break;
            buf = nb;
            cap *= 2;
        }
        zs.next_out = (unsigned char *)buf + used;
        zs.avail_out = (uInt)(cap - used);
        rc = inflate(&zs, Z_NO_FLUSH);
        used = cap - zs.avail_out;
        if (rc == Z_STREAM_END) {
            if (zs.avail_in == 0)
                break;
            if (inflateReset(&zs) != Z_OK)
                break;
            continue;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            break;
        if (rc == Z_BUF_ERROR && zs.avail_in == 0)
            break;
    }
    inflateEnd(&zs);
    if (rc != Z_STREAM_END || zs.avail_in != 0) {
        free(buf);
        return -1;
    }
    buf[used] = '\0';
    *out = buf;
    return (long long)used;
}

/* libdeflate, single or several members, growing on demand. */
long long sdui_bench_libdeflate_inflate(const void *gz, size_t len, size_t hint, char **out)
{
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    size_t cap = size_hint(gz, len, hint), used = 0, pos = 0;
    char *buf = malloc(cap + SDUI_BENCH_PADDING);
    *out = NULL;
    if (!d || !buf)
        goto fail;
    while (pos < len) {
        size_t in_n = 0, out_n = 0;
        enum libdeflate_result r = libdeflate_gzip_decompress_ex(
            d, (const char *)gz + pos, len - pos, buf + used, cap - used,
            &in_n, &out_n);
        if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
            char *nb = realloc(buf, cap * 2 + SDUI_BENCH_PADDING);
            if (!nb)
                goto fail;
            buf = nb;
            cap *= 2;
            continue;
        }
        if (r != LIBDEFLATE_SUCCESS)
            goto fail;
        pos += in_n;
        used += out_n;
    }
    libdeflate_free_decompressor(d);
    buf[used] = '\0';
    *out = buf;
    return (long long)used;
fail:
    libdeflate_free_decompressor(d);
    free(buf);
    return -1;
}

/* The jansson peer: libdeflate inflate, build the whole DOM, count tokens,
 * free. */
long long sdui_bench_jansson_parse(const void *gz, size_t len, size_t hint)
{
    char *json;
    long long n = sdui_bench_libdeflate_inflate(gz, len, hint, &json), count = -1;
    json_error_t e;
    json_t *root;
    if (n < 0)
        return -1;
    root = json_loadb(json, (size_t)n, 0, &e);
    free(json);
    if (root) {
        json_t *tokens = json_object_get(root, "tokens");
        count = json_is_array(tokens) ? (long long)json_array_size(tokens) : -1;
        json_decref(root);
    }
    return count;
}

/* Reads a "Key:   N kB" line of /proc/self/status, in bytes. */
static long long proc_status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    size_t klen = strlen(key);
    long long v = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
            v = atoll(line + klen + 1) * 1024;
            break;
        }
    fclose(f);
    return v;
}

long long sdui_bench_rss_bytes(void) { return proc_status_kb("VmRSS"); }

long long sdui_bench_peak_rss_bytes(void) { return proc_status_kb("VmHWM"); }

/* ru_minflt of this process: pages mapped in without reading a disk. */
long long sdui_bench_minor_faults(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? (long long)ru.ru_minflt : -1;
}

/* The clock the fresh-process probes time themselves with. */
long long sdui_bench_monotonic_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return -1;
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Copies SQLite's message for db into err, closes db, and fails. */
static int sqlite_fail(sqlite3 *db, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s", db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close(db);
    return -1;
}

int sdui_bench_sqlite_inserts(const char *path, const char *const *rows, const size_t *lens, size_t n,
                              size_t batch, int full, char *err, size_t errlen)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *insert = NULL;
    if (batch == 0) batch = 1;
    if (sqlite3_open(path, &db) != SQLITE_OK) return sqlite_fail(db, err, errlen);
    if (sqlite3_exec(db, full ? "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                              : "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", NULL, NULL, NULL) != SQLITE_OK)
        return sqlite_fail(db, err, errlen);
    if (sqlite3_exec(db, "CREATE TABLE IF NOT EXISTS rows (n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, json TEXT NOT NULL)",
                     NULL, NULL, NULL) != SQLITE_OK)
        return sqlite_fail(db, err, errlen);
    if (sqlite3_prepare_v2(db, "INSERT INTO rows (id, json) VALUES (?1, ?2)", -1, &insert, NULL) != SQLITE_OK)
        return sqlite_fail(db, err, errlen);
    char id[32];
    for (size_t i = 0; i < n; i++) {
        if (i % batch == 0 && sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) goto fail;
        snprintf(id, sizeof id, "e%zu", i);
        sqlite3_bind_text(insert, 1, id, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 2, rows[i], (int)lens[i], SQLITE_STATIC);
        if (sqlite3_step(insert) != SQLITE_DONE) goto fail;
        sqlite3_reset(insert);
        if ((i + 1) % batch == 0 || i + 1 == n) {
            if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) goto fail;
        }
    }
    sqlite3_finalize(insert);
    sqlite3_close(db);
    return 0;
fail:
    snprintf(err, errlen, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(insert);
    sqlite3_close(db);
    return -1;
}
