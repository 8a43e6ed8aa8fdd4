/*
 * shell.h - the C tests' way to hand bytes to the standard tools (gzip,
 * pigz, Python) and read back what they print (test_seekable.c,
 * test_pack_fed.c).
 */
#ifndef SDUI_TESTS_SHELL_H
#define SDUI_TESTS_SHELL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Writes bytes to the temporary file /tmp/sdui-TAG-PID.gz; returns its
 * path (static, rewritten by the next call), NULL when it cannot. */
static const char *to_file(const char *tag, const void *b, size_t n)
{
    static char path[96];
    FILE *f;
    snprintf(path, sizeof path, "/tmp/sdui-%s-%d.gz", tag, (int)getpid());
    f = fopen(path, "wb");
    if (!f)
        return NULL;
    fwrite(b, 1, n, f);
    fclose(f);
    return path;
}

/* Runs cmd and returns its whole standard output (malloc'd), length in
 * *n; NULL when it cannot run or exits non-zero. */
static char *run(const char *cmd, size_t *n)
{
    FILE *p = popen(cmd, "r");
    char *b = NULL;
    size_t cap = 0;
    *n = 0;
    if (!p)
        return NULL;
    for (;;) {
        size_t got;
        if (cap - *n < 65536) {
            cap = cap * 2 + 65536;
            b = realloc(b, cap);
        }
        got = fread(b + *n, 1, cap - *n, p);
        if (got == 0)
            break;
        *n += got;
    }
    if (pclose(p) != 0) {
        free(b);
        return NULL;
    }
    return b;
}

/* Commands that print a gzip file whole (a printf format of its path). */
#define GZIP_DC "gzip -dc %s"
#define PYTHON_GZIP \
    "python3 -c \"import gzip,sys; " \
    "sys.stdout.buffer.write(gzip.open('%s').read())\""
#define PIGZ_DC "pigz -dc %s"

/* 1 when the command fmt (one of the above) prints exactly want[0, n)
 * for the file at path; *got is how much it printed. */
static int reader_prints(const char *fmt, const char *path, const void *want,
                         size_t n, size_t *got)
{
    char cmd[512];
    char *out;
    int same;
    snprintf(cmd, sizeof cmd, fmt, path);
    out = run(cmd, got);
    same = out && *got == n && memcmp(out, want, n) == 0;
    free(out);
    return same;
}

/* 1 when pigz is installed. */
static int have_pigz(void)
{
    return system("command -v pigz >/dev/null 2>&1") == 0;
}

#endif
