#ifndef CHAMMING_KERNELS_H
#define CHAMMING_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// For each of `query_count` 256-bit descriptors (4 words each) in `queries`, the two nearest of
/// the `train_count` descriptors in `train` by Hamming distance. Writes train indices (-1 when
/// absent) and distances (257 when absent) to `best_index`/`best_distance` and
/// `second_index`/`second_distance`. Ties keep the lower train index first.
///
/// Dispatches at run time to an AVX-512 VPOPCNTDQ kernel, an AVX2 kernel (nibble-table popcount),
/// a POPCNT kernel, or portable C; every kernel gives exactly the same results.
void chamming_nearest_two(const uint64_t *queries, int32_t query_count, const uint64_t *train, int32_t train_count,
                          int32_t *best_index, int32_t *best_distance, int32_t *second_index,
                          int32_t *second_distance);

/// `chamming_nearest_two` with at most kernel level `level` (a level this CPU lacks is lowered to the
/// best it has; negative: the best). For tests and benchmarks that compare the kernels.
void chamming_nearest_two_at_level(int32_t level, const uint64_t *queries, int32_t query_count, const uint64_t *train,
                                   int32_t train_count, int32_t *best_index, int32_t *best_distance,
                                   int32_t *second_index, int32_t *second_distance);

/// `chamming_nearest_two_at_level` where train descriptor t carries `labels[t]` (e.g. the map point it
/// describes; NULL: every descriptor its own label): the second nearest is the nearest whose label
/// differs from the nearest's, so a ratio test compares two distinct labels however many descriptors
/// each has. Indices are still positions in `train`.
void chamming_nearest_two_labeled_at_level(int32_t level, const uint64_t *queries, int32_t query_count,
                                           const uint64_t *train, const int32_t *labels, int32_t train_count,
                                           int32_t *best_index, int32_t *best_distance, int32_t *second_index,
                                           int32_t *second_distance);

/// Hamming distances of one 256-bit `query` to the train descriptors `train[indices[c]]`, c < `count`,
/// into `distances` — the scattered candidates of a hash-table probe. Loads are prefetched a few
/// candidates ahead. `level` as in `chamming_nearest_two_at_level` (POPCNT or portable C; every
/// level gives the same distances).
void chamming_distances_gathered(int32_t level, const uint64_t *query, const uint64_t *train, const uint32_t *indices,
                                 int32_t count, int32_t *distances);

/// Which kernel `chamming_nearest_two` uses on this CPU: 3 = AVX-512 VPOPCNTDQ, 2 = AVX2, 1 = POPCNT,
/// 0 = portable.
int32_t chamming_kernel_level(void);

#ifdef __cplusplus
}
#endif

#endif
