// Euclidean 2-nearest-neighbour kernels for float descriptors (SIFT), dispatched at run time.
// The package builds for the x86-64 baseline, so the vector kernels use per-function target
// attributes and are chosen with __builtin_cpu_supports (as CHammingKernels does).
//
// Layout: the train set is packed into blocks of W rows (W = 16 for AVX-512, 8 otherwise),
// dimension-major: block[d * W + lane] = train[row(lane)][d]. A query's dot products with a whole
// block then accumulate lane-wise (one broadcast of q[d], one FMA per d), with no horizontal sums;
// four queries share each block load.
#include "CFloatKernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

static int32_t forced_level = -1;

void cfloat_force_kernel_level(int32_t level) { forced_level = level; }

int32_t cfloat_kernel_level(void) {
    int32_t level = 0;
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        level = 2;
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        level = 1;
#endif
    if (forced_level >= 0 && forced_level < level) level = forced_level;
    return level;
}

typedef struct {
    int32_t best_index, second_index;
    float best, second;
    // Train labels (NULL: each descriptor its own): the second nearest has another label than the nearest.
    const int32_t *labels;
} two_t;

// A distance not below the second best changes nothing, with or without labels (the block skips rely on it).
static inline void keep_two(float d, int32_t t, two_t *k) {
    if (!(d < k->second)) return;
    if (d < k->best) {
        if (!k->labels || k->best_index < 0 || k->labels[k->best_index] != k->labels[t]) {
            k->second = k->best;
            k->second_index = k->best_index;
        }
        k->best = d;
        k->best_index = t;
    } else if (!k->labels || k->labels[k->best_index] != k->labels[t]) {
        k->second = d;
        k->second_index = t;
    }
}

// Packs `train` into blocks of `width` rows; pads missing rows with zeros (their norms are +inf).
static float *pack(const float *train, int32_t n, int32_t dim, int32_t width, float **norms_out) {
    int32_t blocks = (n + width - 1) / width;
    size_t count = (size_t)blocks * (size_t)width * (size_t)dim;
    float *packed = (float *)aligned_alloc(64, ((count * sizeof(float) + 63) / 64) * 64 + 64);
    float *norms = (float *)aligned_alloc(64, (((size_t)blocks * width * sizeof(float) + 63) / 64) * 64 + 64);
    if (!packed || !norms) {
        free(packed);
        free(norms);
        return NULL;
    }
    memset(packed, 0, count * sizeof(float));
    for (int32_t b = 0; b < blocks; b++) {
        for (int32_t lane = 0; lane < width; lane++) {
            int32_t row = b * width + lane;
            float s = INFINITY;
            if (row < n) {
                const float *t = train + (size_t)row * dim;
                s = 0;
                for (int32_t d = 0; d < dim; d++) {
                    packed[((size_t)b * dim + d) * width + lane] = t[d];
                    s += t[d] * t[d];
                }
            }
            norms[b * width + lane] = s;
        }
    }
    *norms_out = norms;
    return packed;
}

static void scan_portable(const float *q, float qn, const float *packed, const float *norms, int32_t blocks,
                          int32_t dim, two_t *k) {
    float dot[8];
    for (int32_t b = 0; b < blocks; b++) {
        for (int lane = 0; lane < 8; lane++) dot[lane] = 0;
        const float *block = packed + (size_t)b * dim * 8;
        for (int32_t d = 0; d < dim; d++) {
            float x = q[d];
            for (int lane = 0; lane < 8; lane++) dot[lane] += x * block[d * 8 + lane];
        }
        for (int lane = 0; lane < 8; lane++) {
            float d2 = qn + norms[b * 8 + lane] - 2 * dot[lane];
            keep_two(d2 < 0 ? 0 : d2, b * 8 + lane, k);
        }
    }
}

#if defined(__x86_64__)
// Four queries per pass over the blocks (each block load feeds four FMAs).
__attribute__((target("avx2,fma"))) static void scan4_avx2(const float *q[4], const float qn[4], const float *packed,
                                                            const float *norms, int32_t blocks, int32_t dim,
                                                            two_t *k[4]) {
    for (int32_t b = 0; b < blocks; b++) {
        const float *block = packed + (size_t)b * dim * 8;
        __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps(), a2 = _mm256_setzero_ps(),
               a3 = _mm256_setzero_ps();
        for (int32_t d = 0; d < dim; d++) {
            __m256 t = _mm256_load_ps(block + (size_t)d * 8);
            a0 = _mm256_fmadd_ps(_mm256_broadcast_ss(q[0] + d), t, a0);
            a1 = _mm256_fmadd_ps(_mm256_broadcast_ss(q[1] + d), t, a1);
            a2 = _mm256_fmadd_ps(_mm256_broadcast_ss(q[2] + d), t, a2);
            a3 = _mm256_fmadd_ps(_mm256_broadcast_ss(q[3] + d), t, a3);
        }
        __m256 tn = _mm256_load_ps(norms + (size_t)b * 8);
        __m256 two = _mm256_set1_ps(2.0f), zero = _mm256_setzero_ps();
        __m256 acc[4] = {a0, a1, a2, a3};
        for (int i = 0; i < 4; i++) {
            __m256 d2 = _mm256_max_ps(_mm256_fnmadd_ps(two, acc[i], _mm256_add_ps(_mm256_set1_ps(qn[i]), tn)), zero);
            // Most blocks hold nothing closer than the current second best: one compare skips them.
            __m256 lt = _mm256_cmp_ps(d2, _mm256_set1_ps(k[i]->second), _CMP_LT_OQ);
            if (_mm256_movemask_ps(lt) == 0) continue;
            float v[8];
            _mm256_storeu_ps(v, d2);
            for (int lane = 0; lane < 8; lane++) keep_two(v[lane], b * 8 + lane, k[i]);
        }
    }
}

__attribute__((target("avx512f"))) static void scan4_avx512(const float *q[4], const float qn[4], const float *packed,
                                                             const float *norms, int32_t blocks, int32_t dim,
                                                             two_t *k[4]) {
    for (int32_t b = 0; b < blocks; b++) {
        const float *block = packed + (size_t)b * dim * 16;
        __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps(), a2 = _mm512_setzero_ps(),
               a3 = _mm512_setzero_ps();
        for (int32_t d = 0; d < dim; d++) {
            __m512 t = _mm512_load_ps(block + (size_t)d * 16);
            a0 = _mm512_fmadd_ps(_mm512_set1_ps(q[0][d]), t, a0);
            a1 = _mm512_fmadd_ps(_mm512_set1_ps(q[1][d]), t, a1);
            a2 = _mm512_fmadd_ps(_mm512_set1_ps(q[2][d]), t, a2);
            a3 = _mm512_fmadd_ps(_mm512_set1_ps(q[3][d]), t, a3);
        }
        __m512 tn = _mm512_load_ps(norms + (size_t)b * 16);
        __m512 two = _mm512_set1_ps(2.0f), zero = _mm512_setzero_ps();
        __m512 acc[4] = {a0, a1, a2, a3};
        for (int i = 0; i < 4; i++) {
            __m512 d2 = _mm512_max_ps(_mm512_fnmadd_ps(two, acc[i], _mm512_add_ps(_mm512_set1_ps(qn[i]), tn)), zero);
            if (_mm512_cmp_ps_mask(d2, _mm512_set1_ps(k[i]->second), _CMP_LT_OQ) == 0) continue;
            float v[16];
            _mm512_storeu_ps(v, d2);
            for (int lane = 0; lane < 16; lane++) keep_two(v[lane], b * 16 + lane, k[i]);
        }
    }
}
#endif

int32_t cfloat_nearest_two(const float *queries, int32_t query_count, const float *train, int32_t train_count,
                           int32_t dimension, int32_t *best_index, float *best_squared, int32_t *second_index,
                           float *second_squared) {
    return cfloat_nearest_two_labeled(queries, query_count, train, NULL, train_count, dimension, best_index,
                                      best_squared, second_index, second_squared);
}

int32_t cfloat_nearest_two_labeled(const float *queries, int32_t query_count, const float *train,
                                   const int32_t *labels, int32_t train_count, int32_t dimension, int32_t *best_index,
                                   float *best_squared, int32_t *second_index, float *second_squared) {
    for (int32_t i = 0; i < query_count; i++) {
        best_index[i] = -1;
        second_index[i] = -1;
        best_squared[i] = INFINITY;
        second_squared[i] = INFINITY;
    }
    if (query_count <= 0 || train_count <= 0 || dimension <= 0) return 0;
    int32_t level = cfloat_kernel_level();
    int32_t width = level == 2 ? 16 : 8;
    float *norms = NULL;
    float *packed = pack(train, train_count, dimension, width, &norms);
    if (!packed) return -1;
    int32_t blocks = (train_count + width - 1) / width;
    int32_t i = 0;
#if defined(__x86_64__)
    if (level >= 1) {
        for (; i + 4 <= query_count; i += 4) {
            const float *q[4];
            float qn[4];
            two_t keep[4];
            two_t *k[4];
            for (int j = 0; j < 4; j++) {
                q[j] = queries + (size_t)(i + j) * dimension;
                float s = 0;
                for (int32_t d = 0; d < dimension; d++) s += q[j][d] * q[j][d];
                qn[j] = s;
                keep[j] = (two_t){-1, -1, INFINITY, INFINITY, labels};
                k[j] = &keep[j];
            }
            if (level == 2)
                scan4_avx512(q, qn, packed, norms, blocks, dimension, k);
            else
                scan4_avx2(q, qn, packed, norms, blocks, dimension, k);
            for (int j = 0; j < 4; j++) {
                best_index[i + j] = keep[j].best_index;
                best_squared[i + j] = keep[j].best;
                second_index[i + j] = keep[j].second_index;
                second_squared[i + j] = keep[j].second;
            }
        }
    }
#endif
    if (i < query_count) {
        // The rest (and every query on the portable path) against blocks of 8.
        float *norms8 = NULL;
        float *packed8 = width == 8 ? packed : pack(train, train_count, dimension, 8, &norms8);
        if (width != 8 && !packed8) {
            free(packed);
            free(norms);
            return -1;
        }
        const float *n8 = width == 8 ? norms : norms8;
        int32_t blocks8 = (train_count + 7) / 8;
        for (; i < query_count; i++) {
            const float *q = queries + (size_t)i * dimension;
            float s = 0;
            for (int32_t d = 0; d < dimension; d++) s += q[d] * q[d];
            two_t keep = {-1, -1, INFINITY, INFINITY, labels};
            scan_portable(q, s, packed8, n8, blocks8, dimension, &keep);
            best_index[i] = keep.best_index;
            best_squared[i] = keep.best;
            second_index[i] = keep.second_index;
            second_squared[i] = keep.second;
        }
        if (width != 8) {
            free(packed8);
            free(norms8);
        }
    }
    free(packed);
    free(norms);
    return 0;
}
