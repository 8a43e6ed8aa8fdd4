/*
 * sqlite_raw.h - what the tests of the core's SQLite files (the token
 * cache, the durable queue, the plumbing under both) do behind the core's
 * back: SQL and one-value queries through a connection of their own, pages
 * read and written as bytes, whole files read back, files of garbage, a
 * disk made full for one process, and the test folder in which moved-aside
 * files are looked for.
 * Test-only.
 *
 * The folder: a test program calls test_dir_make("name") first, which
 * makes /tmp/sdui-name-test-<pid>; test_path names a file in it,
 * moved_aside tells whether the core moved a file of it aside, and
 * test_dir_remove removes it at the end.
 */
#ifndef SDUI_TEST_SQLITE_RAW_H
#define SDUI_TEST_SQLITE_RAW_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <sqlite3.h>
#ifdef __linux__
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#endif

/* The test folder (test_dir_make). */
static char test_dir[256];

/* The bytes of the file at path (malloc'd, *len set); NULL when it
 * cannot be read. */
static inline unsigned char *file_bytes(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    *len = -1;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (*len = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)*len + 1);
        if (buf && fread(buf, 1, (size_t)*len, f) != (size_t)*len) {
            free(buf);
            buf = NULL;
        }
    }
    fclose(f);
    return buf;
}

/* Makes the test folder /tmp/sdui-<name>-test-<pid>. */
static inline void test_dir_make(const char *name)
{
    snprintf(test_dir, sizeof test_dir, "/tmp/sdui-%s-test-%d", name,
             (int)getpid());
    mkdir(test_dir, 0700);
}

/* Removes the test folder and all in it, saying so when it cannot. */
static inline void test_dir_remove(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", test_dir);
    if (system(cmd) != 0)
        printf("could not remove %s\n", test_dir);
}

/* A path inside the test folder (one static buffer: copy it to keep). */
static inline const char *test_path(const char *name)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "%s/%s", test_dir, name);
    return buf;
}

/* 1 if a file named NAME.corrupt-* (moved aside) is in the test folder. */
static inline int moved_aside(const char *name)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "ls %s/%s.corrupt-* >/dev/null 2>&1",
             test_dir, name);
    return system(cmd) == 0;
}

/* Writes n bytes of garbage (no SQLite header) to path; 1 on success. */
static inline int write_garbage(const char *path, int n)
{
    FILE *f = fopen(path, "wb");
    int i;
    if (!f)
        return 0;
    for (i = 0; i < n; i++)
        fputc((i * 7919) & 0xff, f);
    return fclose(f) == 0;
}

/* Runs sql on path through a connection of its own; SQLite's code. */
static inline int raw_exec(const char *path, const char *sql)
{
    sqlite3 *db;
    int rc = sqlite3_open(path, &db);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_close(db);
    return rc;
}

/* Reads a one-value query (a PRAGMA, a SELECT) through a connection of
 * its own into out as text ("" when there is no value). */
static inline void raw_value(const char *path, const char *sql, char *out,
                             size_t cap)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    out[0] = '\0';
    if (sqlite3_open(path, &db) != SQLITE_OK) {
        sqlite3_close(db);
        return;
    }
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
            snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
}

/* Reads or writes page `page` (1-based) of a database file of pages of
 * `size` bytes; 1 on success. */
static inline int page_io(const char *path, long page, long size,
                          unsigned char *buf, int write)
{
    FILE *f = fopen(path, "r+b");
    int ok;
    if (!f)
        return 0;
    ok = fseek(f, (page - 1) * size, SEEK_SET) == 0 &&
         (write ? fwrite(buf, 1, (size_t)size, f)
                : fread(buf, 1, (size_t)size, f)) == (size_t)size;
    return fclose(f) == 0 && ok;
}

#if defined(__linux__) && defined(__NR_pwrite64)
#define HAVE_DISK_FULL 1
/*
 * Makes the disk full for this process: every pwrite64, the call SQLite
 * writes files with, fails with ENOSPC as on a full file system (a
 * seccomp filter; needs no privilege and ends with the process, so call
 * it in a child).
 */
static inline void make_disk_full(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pwrite64, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSPC),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof f / sizeof f[0]), f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
        _exit(2);
}
#endif

#endif
