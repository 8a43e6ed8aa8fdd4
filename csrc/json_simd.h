/*
 * json_simd.h - byte classes of 32-byte blocks of JSON text, one bit per
 * byte, with the vector instructions the machine has: the kernels of the
 * scanner's inner loops (scan.c).  Internal; included by scan.c only, and
 * by the C tests, which hold every kernel to the plain C reference below.
 *
 * Two classes: the bytes that end a run of plain string bytes (a quote, a
 * backslash, a control byte < 0x20 or any byte >= 0x80) and JSON white
 * space (' ', '\t', '\n', '\r').  Bit i of a mask stands for byte i of the
 * block.  Every kernel is exact for every byte value: the scanner's
 * outcome must not depend on which one ran.
 *
 * SSE2 is there on every x86-64 and NEON on every (little-endian) aarch64;
 * elsewhere there is no kernel and scan.c reads 64-bit words (strings) or
 * bytes.  On x86-64, wider kernels for the 64-byte blocks of string bytes
 * (AVX2, AVX-512BW) are compiled too, each for its own instruction set
 * (a target attribute), and run only where the CPU says it has that set
 * (sdui__simd_wide): scan.c has copies of its loop for them.
 */
#ifndef SDUI_JSON_SIMD_H
#define SDUI_JSON_SIMD_H

#include <stdint.h>

#include "internal.h"

#if defined(__GNUC__) || defined(__clang__)
#if defined(__x86_64__) && defined(__SSE2__)
#define SDUI_SIMD_SSE2 1
#include <emmintrin.h>
#elif defined(__aarch64__) && defined(__ARM_NEON) &&                       \
    defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SDUI_SIMD_NEON 1
#include <arm_neon.h>
#endif
#endif

#if defined(SDUI_SIMD_SSE2) || defined(SDUI_SIMD_NEON)
#define SDUI_SIMD 1 /* a kernel below is compiled */
#endif

/* The wider x86 kernels: GCC and clang compile code for an instruction
 * set the build does not assume (target attributes) and say at run time
 * whether the CPU has it (__builtin_cpu_supports). */
#if defined(SDUI_SIMD_SSE2) && defined(__has_attribute)
#if __has_attribute(target) && defined(__has_builtin)
#if __has_builtin(__builtin_cpu_supports)
#define SDUI_SIMD_WIDE 1
#include <immintrin.h>
#endif
#endif
#endif

/* The bytes one block of white space covers. */
#define SDUI_SIMD_BLOCK 32

/* The bytes one block of string bytes covers: one bit each in a 64-bit
 * mask. */
#define SDUI_SIMD_STRING_BLOCK 64

/* 1 for a byte that ends a run of plain string bytes. */
static inline int sdui__string_special(unsigned c)
{
    return c == '"' || c == '\\' || c < 0x20 || c >= 0x80;
}

/* 1 for JSON white space. */
static inline int sdui__json_ws(unsigned c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* The reference: the special bytes of the 32 bytes at p, one at a time. */
static inline uint32_t sdui__special32_portable(const unsigned char *p)
{
    uint32_t m = 0;
    unsigned i;
    for (i = 0; i < SDUI_SIMD_BLOCK; i++)
        if (sdui__string_special(p[i]))
            m |= (uint32_t)1 << i;
    return m;
}

/* The reference: the special bytes of the 64 bytes at p. */
static inline uint64_t sdui__special64_portable(const unsigned char *p)
{
    uint64_t m = 0;
    unsigned i;
    for (i = 0; i < SDUI_SIMD_STRING_BLOCK; i++)
        if (sdui__string_special(p[i]))
            m |= (uint64_t)1 << i;
    return m;
}

/* The reference: the white space bytes of the 32 bytes at p. */
static inline uint32_t sdui__ws32_portable(const unsigned char *p)
{
    uint32_t m = 0;
    unsigned i;
    for (i = 0; i < SDUI_SIMD_BLOCK; i++)
        if (sdui__json_ws(p[i]))
            m |= (uint32_t)1 << i;
    return m;
}

#ifdef SDUI_SIMD_SSE2
/* The special bytes of 16 bytes (SSE2): a signed compare with 0x20 is true
 * for the control bytes and for every byte >= 0x80. */
static SDUI_ALWAYS_INLINE unsigned sdui__special16_sse2(const unsigned char *p)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i hit = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                     _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
        _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
    return (unsigned)_mm_movemask_epi8(hit);
}

/* The white space bytes of 16 bytes (SSE2). */
static SDUI_ALWAYS_INLINE unsigned sdui__ws16_sse2(const unsigned char *p)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i hit = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
                     _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\t')),
                     _mm_cmpeq_epi8(v, _mm_set1_epi8('\r'))));
    return (unsigned)_mm_movemask_epi8(hit);
}

/* The special bytes of the 32 bytes at p (SSE2). */
static SDUI_ALWAYS_INLINE uint32_t sdui__special32(const unsigned char *p)
{
    return (uint32_t)sdui__special16_sse2(p) |
           (uint32_t)sdui__special16_sse2(p + 16) << 16;
}

/* The special bytes of the 64 bytes at p (SSE2). */
static SDUI_ALWAYS_INLINE uint64_t sdui__special64(const unsigned char *p)
{
    return (uint64_t)sdui__special32(p) |
           (uint64_t)sdui__special32(p + 32) << 32;
}

/* The white space bytes of the 32 bytes at p (SSE2). */
static SDUI_ALWAYS_INLINE uint32_t sdui__ws32(const unsigned char *p)
{
    return (uint32_t)sdui__ws16_sse2(p) | (uint32_t)sdui__ws16_sse2(p + 16)
                                              << 16;
}
#endif

#ifdef SDUI_SIMD_WIDE
/* The kernels' instruction sets, and those of the scanner's loops that
 * call them (the bit instructions come with them on every such CPU). */
#define SDUI_TARGET_AVX2 "avx2,bmi,bmi2"
#define SDUI_TARGET_AVX512 "avx512f,avx512bw,avx2,bmi,bmi2"

/* The special bytes of 32 bytes (AVX2): compares as in SSE2. */
__attribute__((target(SDUI_TARGET_AVX2))) static inline uint32_t
sdui__special32_avx2(const unsigned char *p)
{
    __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i hit = _mm256_or_si256(
        _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('"')),
                        _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\\'))),
        _mm256_cmpgt_epi8(_mm256_set1_epi8(0x20), v));
    return (uint32_t)_mm256_movemask_epi8(hit);
}

/* The special bytes of the 64 bytes at p (AVX2).  Not always_inline: a
 * caller compiled for another set may call it, and the scanner's copies
 * for this set inline it. */
__attribute__((target(SDUI_TARGET_AVX2))) static inline uint64_t
sdui__special64_avx2(const unsigned char *p)
{
    return (uint64_t)sdui__special32_avx2(p) |
           (uint64_t)sdui__special32_avx2(p + 32) << 32;
}

/* The special bytes of the 64 bytes at p (AVX-512BW): three compares
 * into mask registers, the last a signed one with 0x20 as in SSE2. */
__attribute__((target(SDUI_TARGET_AVX512))) static inline uint64_t
sdui__special64_avx512(const unsigned char *p)
{
    __m512i v = _mm512_loadu_si512((const void *)p);
    __mmask64 q = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"'));
    __mmask64 b = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\'));
    __mmask64 c = _mm512_cmplt_epi8_mask(v, _mm512_set1_epi8(0x20));
    return (uint64_t)(q | b | c);
}

/* The widest kernel this CPU runs: 2 AVX-512BW, 1 AVX2, 0 neither (with
 * the bit instructions the scanner's copies for them use). */
static inline int sdui__simd_wide(void)
{
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("bmi") ||
        !__builtin_cpu_supports("bmi2"))
        return 0;
    if (__builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512bw"))
        return 2;
    return 1;
}
#endif

#ifdef SDUI_SIMD_NEON
/*
 * One 32-bit mask from two compare results of 16 bytes each (each byte 0
 * or 0xFF): each byte keeps its bit's weight within its half of 8, then
 * three rounds of pairwise adds fold the 32 bytes into 4.
 */
static SDUI_ALWAYS_INLINE uint32_t sdui__mask32_neon(uint8x16_t a,
                                                     uint8x16_t b)
{
    static const uint8_t weights[16] = {1, 2, 4, 8, 16, 32, 64, 128,
                                        1, 2, 4, 8, 16, 32, 64, 128};
    const uint8x16_t w = vld1q_u8(weights);
    uint8x16_t s = vpaddq_u8(vandq_u8(a, w), vandq_u8(b, w));
    s = vpaddq_u8(s, s);
    s = vpaddq_u8(s, s);
    return vgetq_lane_u32(vreinterpretq_u32_u8(s), 0);
}

/* The special bytes of 16 bytes as compare results (NEON): a signed
 * compare with 0x20, as on SSE2. */
static SDUI_ALWAYS_INLINE uint8x16_t
sdui__special16_neon(const unsigned char *p)
{
    uint8x16_t v = vld1q_u8(p);
    return vorrq_u8(
        vorrq_u8(vceqq_u8(v, vdupq_n_u8('"')), vceqq_u8(v, vdupq_n_u8('\\'))),
        vcltq_s8(vreinterpretq_s8_u8(v), vdupq_n_s8(0x20)));
}

/* The white space bytes of 16 bytes as compare results (NEON). */
static SDUI_ALWAYS_INLINE uint8x16_t sdui__ws16_neon(const unsigned char *p)
{
    uint8x16_t v = vld1q_u8(p);
    return vorrq_u8(
        vorrq_u8(vceqq_u8(v, vdupq_n_u8(' ')), vceqq_u8(v, vdupq_n_u8('\n'))),
        vorrq_u8(vceqq_u8(v, vdupq_n_u8('\t')), vceqq_u8(v, vdupq_n_u8('\r'))));
}

/* The special bytes of the 32 bytes at p (NEON). */
static SDUI_ALWAYS_INLINE uint32_t sdui__special32(const unsigned char *p)
{
    return sdui__mask32_neon(sdui__special16_neon(p),
                             sdui__special16_neon(p + 16));
}

/* The special bytes of the 64 bytes at p (NEON). */
static SDUI_ALWAYS_INLINE uint64_t sdui__special64(const unsigned char *p)
{
    return (uint64_t)sdui__special32(p) |
           (uint64_t)sdui__special32(p + 32) << 32;
}

/* The white space bytes of the 32 bytes at p (NEON). */
static SDUI_ALWAYS_INLINE uint32_t sdui__ws32(const unsigned char *p)
{
    return sdui__mask32_neon(sdui__ws16_neon(p), sdui__ws16_neon(p + 16));
}
#endif

#endif
