/*
 * fuzz_folder.h - the folder the harnesses of the core's files
 * (fuzz_disk_open, fuzz_outbox_open, fuzz_snapshot) work in: one per
 * process, made once
 * with mkdtemp on /dev/shm when there is one, emptied before each input
 * and removed at exit; the input written as the file under test, and what
 * a test of a move aside needs (the moved file, whether a file holds the
 * input byte for byte).
 *
 * The includer defines REQUIRE(cond) (abort when it does not hold), then
 * calls fuzz_folder_make("fuzz_x", "x.db") once; fuzz_file is the file
 * under test, and a file moved aside is named "x.db.corrupt-*".
 */
#ifndef SDUI_FUZZ_FOLDER_H
#define SDUI_FUZZ_FOLDER_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char fuzz_dir[256];
static char fuzz_file[300];
/* "x.db.corrupt-": the start of a moved-aside file's name. */
static char fuzz_moved_prefix[64];

/* Removes every entry of the folder: files (the file, its -wal and -shm,
 * the files moved aside as damaged) and the empty directories an input
 * asked for. */
static void fuzz_folder_empty(void)
{
    DIR *dir = opendir(fuzz_dir);
    struct dirent *e;
    char path[600];
    REQUIRE(dir != NULL);
    while ((e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", fuzz_dir, e->d_name);
        if (unlink(path) != 0)
            REQUIRE(rmdir(path) == 0);
    }
    closedir(dir);
}

/* Removes the folder at exit. */
static void fuzz_folder_remove(void)
{
    fuzz_folder_empty();
    rmdir(fuzz_dir);
}

/* Makes this process's folder once (mkdtemp, named after the harness), on
 * tmpfs when there is one; the file under test is `file` in it. */
static void fuzz_folder_make(const char *harness, const char *file)
{
    struct stat st;
    const char *base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode)
                           ? "/dev/shm"
                           : (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    snprintf(fuzz_dir, sizeof fuzz_dir, "%s/%s-XXXXXX", base, harness);
    REQUIRE(mkdtemp(fuzz_dir) != NULL);
    snprintf(fuzz_file, sizeof fuzz_file, "%s/%s", fuzz_dir, file);
    snprintf(fuzz_moved_prefix, sizeof fuzz_moved_prefix, "%s.corrupt-", file);
    atexit(fuzz_folder_remove);
}

/* Writes the input as the file under test. */
static void fuzz_write_input(const uint8_t *data, size_t size)
{
    FILE *f = fopen(fuzz_file, "wb");
    REQUIRE(f != NULL);
    REQUIRE(size == 0 || fwrite(data, 1, size, f) == size);
    REQUIRE(fclose(f) == 0);
}

/* 1 if the file at path holds exactly data[0, size). */
static int file_is(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "rb");
    size_t i = 0;
    int c, same = 1;
    if (!f)
        return 0;
    while (same && (c = fgetc(f)) != EOF)
        same = i < size && (uint8_t)c == data[i++];
    fclose(f);
    return same && i == size;
}

/* The path of the file moved aside (FILE.corrupt-*, not its -wal or
 * -shm) into out; 0 when there is none. */
static int moved_file(char *out, size_t cap)
{
    DIR *dir = opendir(fuzz_dir);
    struct dirent *e;
    size_t plen = strlen(fuzz_moved_prefix);
    int found = 0;
    REQUIRE(dir != NULL);
    while (!found && (e = readdir(dir)) != NULL) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, fuzz_moved_prefix, plen) != 0 ||
            (n > 4 && (strcmp(e->d_name + n - 4, "-wal") == 0 ||
                       strcmp(e->d_name + n - 4, "-shm") == 0)))
            continue;
        snprintf(out, cap, "%s/%s", fuzz_dir, e->d_name);
        found = 1;
    }
    closedir(dir);
    return found;
}

#endif
