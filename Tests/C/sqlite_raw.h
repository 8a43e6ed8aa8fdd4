/*
 * sqlite_raw.h - SQL run on a cache file behind the core's back, for the
 * tests that damage or reshape a file the way another program would.
 * Test-only.
 */
#ifndef SDUI_TEST_SQLITE_RAW_H
#define SDUI_TEST_SQLITE_RAW_H

#include <sqlite3.h>

/* Runs sql on path through a connection of its own; SQLite's code. */
static int raw_exec(const char *path, const char *sql)
{
    sqlite3 *db;
    int rc = sqlite3_open(path, &db);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_close(db);
    return rc;
}

#endif
