/*
 * hash.c - the keyed hash of every table that holds ids from outside (the
 * pack index, the LRU cache).
 *
 * Why keyed.  Token ids come from packs and registries the process does
 * not control.  With a fixed, public hash an adversary can choose ids that
 * all land in the same few buckets: the pack index and the cache then
 * degrade to linear scans (100,000 such ids made a pack open take seconds
 * instead of milliseconds).  A fast unkeyed hash cannot be fixed by a
 * better finaliser: if every step is invertible, anyone can run it
 * backwards from the bucket they want.  The only defence is a secret the
 * attacker cannot see, so the bucket of an id is unpredictable from
 * outside.
 *
 * The function.  SipHash (Aumasson and Bernstein, 2012) is a pseudorandom
 * function keyed with 128 bits and built for exactly this: short inputs,
 * hash-table use, resistance to collision floods.  Its state is four
 * 64-bit words v0..v3, initialised from the key k0, k1 and four constants
 * (the ASCII of "somepseudorandomlygeneratedbytes"):
 *
 *     v0 = k0 ^ 0x736f6d6570736575    v1 = k1 ^ 0x646f72616e646f6d
 *     v2 = k0 ^ 0x6c7967656e657261    v3 = k1 ^ 0x7465646279746573
 *
 * The input is read as little-endian 64-bit words m; the last word holds
 * the remaining 0 to 7 bytes and, in its top byte, the input length mod
 * 256.  Each word is absorbed as v3 ^= m, c rounds, v0 ^= m.  Then
 * v2 ^= 0xff, d rounds, and the result is v0 ^ v1 ^ v2 ^ v3.  A round
 * (SipRound) is add-rotate-xor on the two halves:
 *
 *     v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32);
 *     v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;
 *     v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;
 *     v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);
 *
 * SipHash-c-d has c rounds per word and d at the end.  We use 1-3, the
 * variant chosen for hash tables by several language runtimes: about half
 * the cost of 2-4 on short ids, with no known way to find collisions
 * without the key.  (2-4 is kept for the test against the published
 * reference vectors; both share the code below.)
 *
 * The key.  Drawn once per process, the first time a table hashes:
 * getrandom() where it exists, else /dev/urandom, under pthread_once so
 * concurrent first callers agree.  If both fail (a sandbox with neither),
 * the key is a mix of the clocks, the process id and a few addresses
 * (randomised by ASLR): weaker, but still unknown to a remote sender of
 * ids.  The key never leaves this file, and hashes are never stored or
 * sent, so they need not be stable across runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__) && defined(__has_include)
#if __has_include(<sys/random.h>)
#include <sys/random.h>
#define HASH_HAVE_GETRANDOM 1
#endif
#endif

#include "internal.h"

/* The process key, and whether it has been drawn. */
static uint64_t process_key[2];
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static atomic_int key_ready;

/* Rotates x left by b bits (0 < b < 64). */
#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

/* One SipRound over v0..v3. */
#define SIPROUND                                                           \
    do {                                                                   \
        v0 += v1;                                                          \
        v1 = ROTL(v1, 13);                                                 \
        v1 ^= v0;                                                          \
        v0 = ROTL(v0, 32);                                                 \
        v2 += v3;                                                          \
        v3 = ROTL(v3, 16);                                                 \
        v3 ^= v2;                                                          \
        v0 += v3;                                                          \
        v3 = ROTL(v3, 21);                                                 \
        v3 ^= v0;                                                          \
        v2 += v1;                                                          \
        v1 = ROTL(v1, 17);                                                 \
        v1 ^= v2;                                                          \
        v2 = ROTL(v2, 32);                                                 \
    } while (0)

/* Reads 8 bytes at p as a little-endian word, on any byte order. */
static inline uint64_t load64_le(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
#else
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
           (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 |
           (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
           (uint64_t)p[7] << 56;
#endif
}

/*
 * SipHash-c-d of data[0, len) under the key k0, k1 (the algorithm in the
 * essay above).  Inlined with constant round counts, the loops unroll.
 */
static SDUI_ALWAYS_INLINE uint64_t siphash(uint64_t k0, uint64_t k1,
                                           const unsigned char *p, size_t len,
                                           int crounds, int drounds)
{
    uint64_t v0 = k0 ^ 0x736f6d6570736575ULL;
    uint64_t v1 = k1 ^ 0x646f72616e646f6dULL;
    uint64_t v2 = k0 ^ 0x6c7967656e657261ULL;
    uint64_t v3 = k1 ^ 0x7465646279746573ULL;
    uint64_t m, last = (uint64_t)len << 56;
    size_t left = len & 7;
    const unsigned char *end = p + (len - left);
    int i;

    for (; p != end; p += 8) {
        m = load64_le(p);
        v3 ^= m;
        for (i = 0; i < crounds; i++)
            SIPROUND;
        v0 ^= m;
    }
    switch (left) {
    case 7: last |= (uint64_t)p[6] << 48; /* fall through */
    case 6: last |= (uint64_t)p[5] << 40; /* fall through */
    case 5: last |= (uint64_t)p[4] << 32; /* fall through */
    case 4: last |= (uint64_t)p[3] << 24; /* fall through */
    case 3: last |= (uint64_t)p[2] << 16; /* fall through */
    case 2: last |= (uint64_t)p[1] << 8;  /* fall through */
    case 1: last |= (uint64_t)p[0];       /* fall through */
    default: break;
    }
    v3 ^= last;
    for (i = 0; i < crounds; i++)
        SIPROUND;
    v0 ^= last;
    v2 ^= 0xff;
    for (i = 0; i < drounds; i++)
        SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

/* Fills buf[0, n) from the kernel's generator; 1 on success. */
static int os_random(unsigned char *buf, size_t n)
{
    size_t got = 0;
    int fd;
#ifdef HASH_HAVE_GETRANDOM
    while (got < n) {
        ssize_t r = getrandom(buf + got, n - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (got == n)
        return 1;
    got = 0;
#endif
    fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    return got == n;
}

/* A 64-bit mixer (splitmix64's finaliser) for the fallback key. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Draws the process key (run once, through pthread_once). */
static void draw_key(void)
{
    unsigned char buf[16];
    if (os_random(buf, sizeof buf)) {
        process_key[0] = load64_le(buf);
        process_key[1] = load64_le(buf + 8);
    } else {
        /* Neither source: clocks, pid and addresses (ASLR). */
        struct timespec rt = {0, 0}, mono = {0, 0};
        int local = 0;
        uint64_t a;
        clock_gettime(CLOCK_REALTIME, &rt);
        clock_gettime(CLOCK_MONOTONIC, &mono);
        a = mix64((uint64_t)rt.tv_sec ^ ((uint64_t)rt.tv_nsec << 32));
        a = mix64(a ^ (uint64_t)mono.tv_nsec ^ ((uint64_t)getpid() << 40));
        a = mix64(a ^ (uint64_t)(uintptr_t)&local);
        process_key[0] = a;
        a = mix64(a ^ (uint64_t)(uintptr_t)&process_key);
        a = mix64(a ^ (uint64_t)(uintptr_t)&draw_key);
        process_key[1] = mix64(a ^ (uint64_t)mono.tv_sec);
    }
    atomic_store_explicit(&key_ready, 1, memory_order_release);
}

/* The keyed hash of the tables (internal.h): SipHash-1-3, process key. */
uint64_t sdui__hash(const void *data, size_t len)
{
    if (SDUI_UNLIKELY(!atomic_load_explicit(&key_ready, memory_order_acquire)))
        pthread_once(&key_once, draw_key);
    return siphash(process_key[0], process_key[1], data, len, 1, 3);
}

/* SipHash with an explicit key and round counts, for the tests that check
 * it against the published vectors (internal.h). */
uint64_t sdui__siphash(const unsigned char key[16], int crounds, int drounds,
                       const void *data, size_t len)
{
    uint64_t k0 = load64_le(key), k1 = load64_le(key + 8);
    assert(crounds >= 1 && drounds >= 1);
    if (crounds == 1 && drounds == 3)
        return siphash(k0, k1, data, len, 1, 3);
    if (crounds == 2 && drounds == 4)
        return siphash(k0, k1, data, len, 2, 4);
    return siphash(k0, k1, data, len, crounds, drounds);
}
