/*
 * peers.c - the benchmark's C peers: zlib and libdeflate inflate, jansson
 * whole-document parse, a plain SQLite insert loop (the floor of the event
 * queue and of a flow step), resident-memory, page-fault, clock and CPU-time
 * readings, and pinning the process to fewer cores.
 */
#define _GNU_SOURCE   /* sched_setaffinity, CPU_SET */
#include "sdui_bench_peers.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
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

/* Frames written to a WAL, summed across its restarts (a checkpoint
 * starts it over): what the step floor's hook keeps. */
typedef struct wal_count {
    long long prev, total;
} wal_count;

/* The WAL hook of the step floor: frames is the WAL's length after a
 * commit; what it grew by (all of it after a restart) is this commit's. */
static int wal_frames(void *ctx, sqlite3 *db, const char *name, int frames)
{
    wal_count *c = ctx;
    (void)db;
    (void)name;
    c->total += frames >= c->prev ? frames - c->prev : frames;
    c->prev = frames;
    return SQLITE_OK;
}

/* The floor of a durable flow step (sdui_bench_peers.h). */
int sdui_bench_sqlite_steps(const char *path, const char *progress, size_t plen, const char *event, size_t elen,
                            size_t n, int full, long long *frames, char *err, size_t errlen)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *put = NULL, *add = NULL;
    wal_count count = {0, 0};
    long long start = 0;
    if (sqlite3_open(path, &db) != SQLITE_OK) return sqlite_fail(db, err, errlen);
    if (sqlite3_exec(db, full ? "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                              : "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, "CREATE TABLE state (key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;"
                         "CREATE TABLE items (seq INTEGER PRIMARY KEY, bytes BLOB NOT NULL);", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO state (key, value) VALUES ('progress', ?1)", -1, &put, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO items (bytes) VALUES (?1)", -1, &add, NULL) != SQLITE_OK)
        goto fail;
    sqlite3_wal_hook(db, wal_frames, &count);
    /* Step 0 also writes the first row of each table: not counted. */
    for (size_t i = 0; i <= n; i++) {
        if (i == 1)
            start = count.total;
        if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) goto fail;
        sqlite3_bind_blob(put, 1, progress, (int)plen, SQLITE_STATIC);
        sqlite3_bind_blob(add, 1, event, (int)elen, SQLITE_STATIC);
        if (sqlite3_step(put) != SQLITE_DONE || sqlite3_step(add) != SQLITE_DONE) goto fail;
        sqlite3_reset(put);
        sqlite3_reset(add);
        if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) goto fail;
    }
    *frames = count.total - start;
    sqlite3_finalize(put);
    sqlite3_finalize(add);
    sqlite3_close(db);
    return 0;
fail:
    snprintf(err, errlen, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(put);
    sqlite3_finalize(add);
    sqlite3_close(db);
    return -1;
}

/* CPU time of the process, all threads (sdui_bench_peers.h). */
long long sdui_bench_process_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return -1;
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Pins the process to its first n allowed CPUs (sdui_bench_peers.h). */
int sdui_bench_pin_cpus(int n)
{
#ifdef __linux__
    cpu_set_t allowed, pinned;
    int kept = 0;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return -1;
    if (n <= 0) return CPU_COUNT(&allowed);
    CPU_ZERO(&pinned);
    for (int cpu = 0; cpu < CPU_SETSIZE && kept < n; cpu++)
        if (CPU_ISSET(cpu, &allowed)) {
            CPU_SET(cpu, &pinned);
            kept++;
        }
    /* Every thread the process has now (a runtime's workers included);
     * threads started later inherit it from the one that starts them. */
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks) return sched_setaffinity(0, sizeof pinned, &pinned) == 0 ? kept : -1;
    for (struct dirent *d; (d = readdir(tasks)) != NULL;) {
        pid_t tid = (pid_t)atoi(d->d_name);
        if (tid > 0 && sched_setaffinity(tid, sizeof pinned, &pinned) != 0 && errno != ESRCH) {
            closedir(tasks);
            return -1;
        }
    }
    closedir(tasks);
    return kept;
#else
    (void)n;
    errno = ENOSYS;
    return -1;
#endif
}

/* Starts a process and waits for it (sdui_bench_peers.h). */
long long sdui_bench_spawn(const char *path, char *const *argv, int *status, char *err, size_t errlen)
{
    extern char **environ;
    posix_spawn_file_actions_t fa;
    int fds[2], st = 0;
    size_t got = 0;
    pid_t pid;
    long long t0, t1;
    if (errlen) err[0] = '\0';
    if (pipe(fds) != 0) return -1;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    t0 = sdui_bench_monotonic_ns();
    if (posix_spawn(&pid, path, &fa, NULL, argv, environ) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    for (;;) {
        char buf[4096];
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        for (ssize_t i = 0; i < n && got + 1 < errlen; i++) err[got++] = buf[i];
    }
    if (errlen) err[got] = '\0';
    close(fds[0]);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    t1 = sdui_bench_monotonic_ns();
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    return t1 - t0;
}
