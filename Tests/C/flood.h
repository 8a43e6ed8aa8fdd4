/*
 * flood.h - ids crafted to collide under the core's old, unkeyed id hash,
 * shared by the pack and cache tests that show the keyed hash spreads them.
 * Test-only; static functions, so each test program has its own copy.
 */
#ifndef SDUI_TEST_FLOOD_H
#define SDUI_TEST_FLOOD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The id hash before it was keyed: FNV-style over 8-byte words, then a
 * murmur3-style finaliser, with a fixed seed, so every step is public and
 * invertible.  Kept here only to craft ids that collide under it.
 */
static uint64_t old_hash(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)len;
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0x100000001b3ULL;
        h ^= h >> 29;
        p += 8;
        len -= 8;
    }
    while (len--)
        h = (h ^ *p++) * 0x100000001b3ULL;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

/* Ids crafted for the old hash: n ids of 16 bytes (plus NUL) whose old
 * hashes share their low 12 bits, so under it they all fell into one
 * bucket of every table of up to 4096 buckets.  Found by brute force
 * (about 4096 tries each) over "flood-id" + 8 base-32 digits. */
static char (*flood_ids(size_t n))[17]
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyz234567";
    char(*ids)[17] = malloc(n * sizeof *ids);
    char id[17] = "flood-idaaaaaaaa";
    uint64_t target = old_hash(id, 16) & 0xfff, i;
    size_t found = 0, k;
    for (i = 0; found < n; i++) {
        for (k = 0; k < 8; k++)
            id[8 + k] = digits[(i >> (5 * k)) & 31];
        if ((old_hash(id, 16) & 0xfff) == target)
            memcpy(ids[found++], id, 17);
    }
    return ids;
}

#endif
