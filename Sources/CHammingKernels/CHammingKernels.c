// Hamming 2-nearest-neighbour kernels for 256-bit binary descriptors, dispatched at run time.
// The package builds for the x86-64 baseline (no POPCNT), so the fast kernels are compiled with
// per-function target attributes and chosen with __builtin_cpu_supports.
#include "CHammingKernels.h"

#include <stddef.h>
#include <stdlib.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// Keeps the nearest (b, bi) and the second nearest (s, si). With `labels`, the second nearest is the
// nearest whose label differs from the nearest's (several train descriptors of one map point: the
// ratio test must compare distinct points). A distance not below `s` changes neither, with or without
// labels, which the vector kernels' block skip relies on.
static inline void keep_two(int32_t d, int32_t t, const int32_t *labels, int32_t *b, int32_t *bi, int32_t *s,
                            int32_t *si) {
    if (d >= *s) return;
    if (d < *b) {
        if (!labels || *bi < 0 || labels[*bi] != labels[t]) {
            *s = *b;
            *si = *bi;
        }
        *b = d;
        *bi = t;
    } else if (!labels || labels[*bi] != labels[t]) {
        *s = d;
        *si = t;
    }
}

static int popcount64_portable(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

static void nearest_two_portable(const uint64_t *q, const uint64_t *train, const int32_t *labels, int32_t n, int32_t *out) {
    int32_t b = 257, bi = -1, s = 257, si = -1;
    for (int32_t t = 0; t < n; t++) {
        const uint64_t *d = train + 4 * (int64_t)t;
        int32_t dist = popcount64_portable(q[0] ^ d[0]) + popcount64_portable(q[1] ^ d[1]) +
                       popcount64_portable(q[2] ^ d[2]) + popcount64_portable(q[3] ^ d[3]);
        keep_two(dist, t, labels, &b, &bi, &s, &si);
    }
    out[0] = bi;
    out[1] = b;
    out[2] = si;
    out[3] = s;
}

#if defined(__x86_64__)
// Descriptors t..<n one by one with POPCNT, continuing from the nearest two so far (b, bi) and (s, si),
// then the result: the whole POPCNT kernel, and the remainder of every vector kernel's blocks.
__attribute__((target("popcnt"))) static inline void finish_with_popcnt(const uint64_t *q, const uint64_t *train,
                                                                        const int32_t *labels, int32_t t, int32_t n,
                                                                        int32_t b, int32_t bi, int32_t s, int32_t si,
                                                                        int32_t *out) {
    const uint64_t q0 = q[0], q1 = q[1], q2 = q[2], q3 = q[3];
    for (; t < n; t++) {
        const uint64_t *d = train + 4 * (int64_t)t;
        int32_t dist = (int32_t)(__builtin_popcountll(q0 ^ d[0]) + __builtin_popcountll(q1 ^ d[1]) +
                                 __builtin_popcountll(q2 ^ d[2]) + __builtin_popcountll(q3 ^ d[3]));
        keep_two(dist, t, labels, &b, &bi, &s, &si);
    }
    out[0] = bi;
    out[1] = b;
    out[2] = si;
    out[3] = s;
}

__attribute__((target("popcnt"))) static void nearest_two_popcnt(const uint64_t *q, const uint64_t *train,
                                                                 const int32_t *labels, int32_t n, int32_t *out) {
    finish_with_popcnt(q, train, labels, 0, n, 257, -1, 257, -1, out);
}

// Two train descriptors per 512-bit register: XOR with the query twice, per-lane popcount, then
// the two 4-lane sums. Eight descriptors per iteration; the remainder goes through POPCNT.
__attribute__((target("avx512f,avx512vpopcntdq,popcnt"))) static void
nearest_two_avx512(const uint64_t *q, const uint64_t *train, const int32_t *labels, int32_t n, int32_t *out) {
    int32_t b = 257, bi = -1, s = 257, si = -1;
    const __m512i qq = _mm512_set_epi64((long long)q[3], (long long)q[2], (long long)q[1], (long long)q[0],
                                        (long long)q[3], (long long)q[2], (long long)q[1], (long long)q[0]);
    int32_t t = 0;
    int64_t sums[8];
    for (; t + 8 <= n; t += 8) {
        const uint64_t *d = train + 4 * (int64_t)t;
        __m512i c0 = _mm512_popcnt_epi64(_mm512_xor_si512(qq, _mm512_loadu_si512((const void *)(d + 0))));
        __m512i c1 = _mm512_popcnt_epi64(_mm512_xor_si512(qq, _mm512_loadu_si512((const void *)(d + 8))));
        __m512i c2 = _mm512_popcnt_epi64(_mm512_xor_si512(qq, _mm512_loadu_si512((const void *)(d + 16))));
        __m512i c3 = _mm512_popcnt_epi64(_mm512_xor_si512(qq, _mm512_loadu_si512((const void *)(d + 24))));
        // Pairwise lane sums: within each 256-bit half, lanes 0+1 and 2+3, then the halves' totals.
        __m512i idx_lo = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
        __m512i idx_hi = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
        __m512i p01 = _mm512_add_epi64(_mm512_permutex2var_epi64(c0, idx_lo, c1),
                                       _mm512_permutex2var_epi64(c0, idx_hi, c1));
        __m512i p23 = _mm512_add_epi64(_mm512_permutex2var_epi64(c2, idx_lo, c3),
                                       _mm512_permutex2var_epi64(c2, idx_hi, c3));
        // p01 lanes: [d0a d0b d1a d1b d2a d2b d3a d3b]; sum adjacent pairs once more.
        __m512i r = _mm512_add_epi64(_mm512_permutex2var_epi64(p01, idx_lo, p23),
                                     _mm512_permutex2var_epi64(p01, idx_hi, p23));
        // Most blocks hold nothing closer than the current second best: skip them with one compare.
        if (_mm512_cmplt_epi64_mask(r, _mm512_set1_epi64(s)) == 0) continue;
        _mm512_storeu_si512((void *)sums, r);
        for (int k = 0; k < 8; k++) keep_two((int32_t)sums[k], t + k, labels, &b, &bi, &s, &si);
    }
    finish_with_popcnt(q, train, labels, t, n, b, bi, s, si, out);
}

// The train descriptors in blocks of eight, word by word ("planar"): block b holds word 0 of its
// eight descriptors, then word 1, 2 and 3, so one 512-bit load (two 256-bit ones) brings one word of
// eight descriptors and the per-word counts add up to eight distances with no lane shuffles. Built
// once per call, for the whole blocks; NULL when memory is short (the interleaved kernels then run).
static uint64_t *planar_blocks(const uint64_t *train, int32_t n) {
    int64_t blocks = n / 8;
    if (blocks == 0) return NULL;
    uint64_t *planar = (uint64_t *)malloc((size_t)blocks * 32 * sizeof(uint64_t));
    if (!planar) return NULL;
    for (int64_t b = 0; b < blocks; b++) {
        const uint64_t *d = train + 32 * b;
        uint64_t *p = planar + 32 * b;
        for (int w = 0; w < 4; w++)
            for (int j = 0; j < 8; j++) p[8 * w + j] = d[4 * j + w];
    }
    return planar;
}

__attribute__((target("avx512f,avx512vpopcntdq,popcnt"))) static void
nearest_two_avx512_planar(const uint64_t *q, const uint64_t *train, const uint64_t *planar, const int32_t *labels,
                          int32_t n, int32_t *out) {
    int32_t b = 257, bi = -1, s = 257, si = -1;
    const __m512i q0 = _mm512_set1_epi64((long long)q[0]), q1 = _mm512_set1_epi64((long long)q[1]);
    const __m512i q2 = _mm512_set1_epi64((long long)q[2]), q3 = _mm512_set1_epi64((long long)q[3]);
    int32_t t = 0;
    int64_t sums[8];
    for (; t + 8 <= n; t += 8) {
        const uint64_t *p = planar + 4 * (int64_t)t;
        __m512i c0 = _mm512_popcnt_epi64(_mm512_xor_si512(q0, _mm512_loadu_si512((const void *)(p + 0))));
        __m512i c1 = _mm512_popcnt_epi64(_mm512_xor_si512(q1, _mm512_loadu_si512((const void *)(p + 8))));
        __m512i c2 = _mm512_popcnt_epi64(_mm512_xor_si512(q2, _mm512_loadu_si512((const void *)(p + 16))));
        __m512i c3 = _mm512_popcnt_epi64(_mm512_xor_si512(q3, _mm512_loadu_si512((const void *)(p + 24))));
        __m512i r = _mm512_add_epi64(_mm512_add_epi64(c0, c1), _mm512_add_epi64(c2, c3));
        // Most blocks hold nothing closer than the current second best: skip them with one compare.
        if (_mm512_cmplt_epi64_mask(r, _mm512_set1_epi64(s)) == 0) continue;
        _mm512_storeu_si512((void *)sums, r);
        for (int k = 0; k < 8; k++) keep_two((int32_t)sums[k], t + k, labels, &b, &bi, &s, &si);
    }
    finish_with_popcnt(q, train, labels, t, n, b, bi, s, si, out);
}

// AVX2 has no per-lane popcount: each byte's count comes from two 16-entry nibble tables (VPSHUFB)
// (`popcount_nibbles_avx2`), VPSADBW sums the bytes of each 64-bit lane, and the lanes of four
// descriptors are folded into four 32-bit totals. Eight descriptors per iteration; the remainder goes
// through POPCNT.
__attribute__((target("avx2,popcnt"))) static inline __m256i popcount_nibbles_avx2(__m256i v) {
    const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1,
                                           2, 2, 3, 2, 3, 3, 4);
    const __m256i low = _mm256_set1_epi8(0x0f);
    __m256i lo = _mm256_shuffle_epi8(table, _mm256_and_si256(v, low));
    __m256i hi = _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(v, 4), low));
    return _mm256_add_epi8(lo, hi);
}

__attribute__((target("avx2,popcnt"))) static inline __m256i popcount_bytes_avx2(__m256i v) {
    return _mm256_sad_epu8(popcount_nibbles_avx2(v), _mm256_setzero_si256());
}

// Four descriptors' lane sums (a, b, c, d: four 64-bit lanes each, values ≤ 64) as 32-bit lanes
// [a01 b01 c01 d01 | a23 b23 c23 d23], where a01 = a0 + a1.
__attribute__((target("avx2,popcnt"))) static inline __m256i fold_four_avx2(__m256i a, __m256i b, __m256i c,
                                                                             __m256i d) {
    __m256i ab = _mm256_or_si256(a, _mm256_slli_epi64(b, 32));
    __m256i cd = _mm256_or_si256(c, _mm256_slli_epi64(d, 32));
    ab = _mm256_add_epi32(ab, _mm256_shuffle_epi32(ab, _MM_SHUFFLE(1, 0, 3, 2)));
    cd = _mm256_add_epi32(cd, _mm256_shuffle_epi32(cd, _MM_SHUFFLE(1, 0, 3, 2)));
    return _mm256_blend_epi32(ab, cd, 0xCC);
}

__attribute__((target("avx2,popcnt"))) static void nearest_two_avx2(const uint64_t *q, const uint64_t *train,
                                                                    const int32_t *labels, int32_t n, int32_t *out) {
    int32_t b = 257, bi = -1, s = 257, si = -1;
    const __m256i qq = _mm256_loadu_si256((const __m256i *)q);
    int32_t t = 0;
    int32_t sums[8];
    for (; t + 8 <= n; t += 8) {
        const __m256i *d = (const __m256i *)(train + 4 * (int64_t)t);
        __m256i c[8];
        for (int k = 0; k < 8; k++) c[k] = popcount_bytes_avx2(_mm256_xor_si256(qq, _mm256_loadu_si256(d + k)));
        __m256i y0 = fold_four_avx2(c[0], c[1], c[2], c[3]);
        __m256i y1 = fold_four_avx2(c[4], c[5], c[6], c[7]);
        // Low halves hold lanes 0+1, high halves lanes 2+3: their sum is the eight distances in order.
        __m256i r = _mm256_add_epi32(_mm256_permute2x128_si256(y0, y1, 0x20), _mm256_permute2x128_si256(y0, y1, 0x31));
        // Most blocks hold nothing closer than the current second best: skip them with one compare.
        if (_mm256_movemask_epi8(_mm256_cmpgt_epi32(_mm256_set1_epi32(s), r)) == 0) continue;
        _mm256_storeu_si256((__m256i *)sums, r);
        for (int k = 0; k < 8; k++) keep_two(sums[k], t + k, labels, &b, &bi, &s, &si);
    }
    finish_with_popcnt(q, train, labels, t, n, b, bi, s, si, out);
}

// The planar blocks (see `planar_blocks`) with nibble-table popcounts (`popcount_nibbles_avx2`): per
// 256-bit half of a block's word row (one word of four descriptors), the bytes' counts, summed over the
// four words before one VPSADBW per half gives each descriptor's distance in its own 64-bit lane — no
// folding across lanes.
__attribute__((target("avx2,popcnt"))) static void nearest_two_avx2_planar(const uint64_t *q, const uint64_t *train,
                                                                           const uint64_t *planar,
                                                                           const int32_t *labels, int32_t n,
                                                                           int32_t *out) {
    int32_t b = 257, bi = -1, s = 257, si = -1;
    __m256i qw[4];
    for (int w = 0; w < 4; w++) qw[w] = _mm256_set1_epi64x((long long)q[w]);
    int32_t t = 0;
    int64_t sums[8];
    for (; t + 8 <= n; t += 8) {
        const __m256i *p = (const __m256i *)(planar + 4 * (int64_t)t);
        // Byte counts of at most 8 per word, 32 over four words: no byte overflows.
        __m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();
        for (int w = 0; w < 4; w++) {
            lo = _mm256_add_epi8(lo, popcount_nibbles_avx2(_mm256_xor_si256(qw[w], _mm256_loadu_si256(p + 2 * w))));
            hi = _mm256_add_epi8(hi, popcount_nibbles_avx2(_mm256_xor_si256(qw[w], _mm256_loadu_si256(p + 2 * w + 1))));
        }
        __m256i d0 = _mm256_sad_epu8(lo, _mm256_setzero_si256());  // descriptors 0–3, one per 64-bit lane
        __m256i d1 = _mm256_sad_epu8(hi, _mm256_setzero_si256());  // descriptors 4–7
        __m256i limit = _mm256_set1_epi64x(s);
        // Most blocks hold nothing closer than the current second best: skip them with two compares.
        if (_mm256_movemask_epi8(_mm256_or_si256(_mm256_cmpgt_epi64(limit, d0), _mm256_cmpgt_epi64(limit, d1))) == 0)
            continue;
        _mm256_storeu_si256((__m256i *)sums, d0);
        _mm256_storeu_si256((__m256i *)(sums + 4), d1);
        for (int k = 0; k < 8; k++) keep_two((int32_t)sums[k], t + k, labels, &b, &bi, &s, &si);
    }
    finish_with_popcnt(q, train, labels, t, n, b, bi, s, si, out);
}
#endif

int32_t chamming_kernel_level(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq")) return 3;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt")) return 2;
    if (__builtin_cpu_supports("popcnt")) return 1;
#endif
    return 0;
}

void chamming_nearest_two_labeled_at_level(int32_t requested_level, const uint64_t *queries, int32_t query_count,
                                           const uint64_t *train, const int32_t *labels, int32_t train_count,
                                           int32_t *best_index, int32_t *best_distance, int32_t *second_index,
                                           int32_t *second_distance) {
    int32_t level = chamming_kernel_level();
    if (requested_level >= 0 && requested_level < level) level = requested_level;
    int32_t out[4];
    // The planar layout (AVX-512 and AVX2 kernels) pays for its copy from a few queries on.
    uint64_t *planar = NULL;
#if defined(__x86_64__)
    if (level >= 2 && query_count >= 4) planar = planar_blocks(train, train_count);
#endif
    for (int32_t i = 0; i < query_count; i++) {
        const uint64_t *q = queries + 4 * (int64_t)i;
#if defined(__x86_64__)
        if (level == 3 && planar)
            nearest_two_avx512_planar(q, train, planar, labels, train_count, out);
        else if (level == 3)
            nearest_two_avx512(q, train, labels, train_count, out);
        else if (level == 2 && planar)
            nearest_two_avx2_planar(q, train, planar, labels, train_count, out);
        else if (level == 2)
            nearest_two_avx2(q, train, labels, train_count, out);
        else if (level == 1)
            nearest_two_popcnt(q, train, labels, train_count, out);
        else
#endif
            nearest_two_portable(q, train, labels, train_count, out);
        best_index[i] = out[0];
        best_distance[i] = out[1];
        second_index[i] = out[2];
        second_distance[i] = out[3];
    }
    free(planar);
}

// How far ahead the gathered kernels prefetch: enough candidates to cover a miss to memory.
enum { gather_prefetch_distance = 8 };

static void distances_gathered_portable(const uint64_t *q, const uint64_t *train, const uint32_t *indices,
                                        int32_t count, int32_t *distances) {
    for (int32_t c = 0; c < count; c++) {
        if (c + gather_prefetch_distance < count)
            __builtin_prefetch(train + 4 * (int64_t)indices[c + gather_prefetch_distance]);
        const uint64_t *d = train + 4 * (int64_t)indices[c];
        distances[c] = popcount64_portable(q[0] ^ d[0]) + popcount64_portable(q[1] ^ d[1]) +
                       popcount64_portable(q[2] ^ d[2]) + popcount64_portable(q[3] ^ d[3]);
    }
}

#if defined(__x86_64__)
__attribute__((target("popcnt"))) static void distances_gathered_popcnt(const uint64_t *q, const uint64_t *train,
                                                                        const uint32_t *indices, int32_t count,
                                                                        int32_t *distances) {
    const uint64_t q0 = q[0], q1 = q[1], q2 = q[2], q3 = q[3];
    for (int32_t c = 0; c < count; c++) {
        if (c + gather_prefetch_distance < count)
            __builtin_prefetch(train + 4 * (int64_t)indices[c + gather_prefetch_distance]);
        const uint64_t *d = train + 4 * (int64_t)indices[c];
        distances[c] = (int32_t)(__builtin_popcountll(q0 ^ d[0]) + __builtin_popcountll(q1 ^ d[1]) +
                                 __builtin_popcountll(q2 ^ d[2]) + __builtin_popcountll(q3 ^ d[3]));
    }
}
#endif

void chamming_distances_gathered(int32_t requested_level, const uint64_t *query, const uint64_t *train,
                                 const uint32_t *indices, int32_t count, int32_t *distances) {
    int32_t level = chamming_kernel_level();
    if (requested_level >= 0 && requested_level < level) level = requested_level;
#if defined(__x86_64__)
    if (level >= 1) {
        distances_gathered_popcnt(query, train, indices, count, distances);
        return;
    }
#endif
    distances_gathered_portable(query, train, indices, count, distances);
}

void chamming_nearest_two_at_level(int32_t requested_level, const uint64_t *queries, int32_t query_count,
                                   const uint64_t *train, int32_t train_count, int32_t *best_index,
                                   int32_t *best_distance, int32_t *second_index, int32_t *second_distance) {
    chamming_nearest_two_labeled_at_level(requested_level, queries, query_count, train, NULL, train_count, best_index,
                                          best_distance, second_index, second_distance);
}

void chamming_nearest_two(const uint64_t *queries, int32_t query_count, const uint64_t *train, int32_t train_count,
                          int32_t *best_index, int32_t *best_distance, int32_t *second_index,
                          int32_t *second_distance) {
    chamming_nearest_two_at_level(-1, queries, query_count, train, train_count, best_index, best_distance,
                                  second_index, second_distance);
}
