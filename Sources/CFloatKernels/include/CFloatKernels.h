#ifndef CFLOAT_KERNELS_H
#define CFLOAT_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// For each of `query_count` float descriptors of `dimension` floats in `queries` (row-major), the
/// two nearest of the `train_count` descriptors in `train` by Euclidean distance. Writes train
/// indices (-1 when absent) and squared distances (INFINITY when absent) to
/// `best_index`/`best_squared` and `second_index`/`second_squared`. Ties keep the lower train index.
///
/// Squared distances are computed as |q|² + |t|² − 2 q·t (clamped at 0) with the train set packed
/// into dimension-major blocks; dispatches at run time to AVX-512F, AVX2 + FMA or portable C.
/// `dimension` must be positive. Returns 0, or -1 when memory for the packed train set is short.
int32_t cfloat_nearest_two(const float *queries, int32_t query_count, const float *train, int32_t train_count,
                           int32_t dimension, int32_t *best_index, float *best_squared, int32_t *second_index,
                           float *second_squared);

/// `cfloat_nearest_two` where train descriptor t carries `labels[t]` (e.g. the map point it describes;
/// NULL: each its own): the second nearest is the nearest whose label differs from the nearest's.
int32_t cfloat_nearest_two_labeled(const float *queries, int32_t query_count, const float *train,
                                   const int32_t *labels, int32_t train_count, int32_t dimension, int32_t *best_index,
                                   float *best_squared, int32_t *second_index, float *second_squared);

/// Which kernel `cfloat_nearest_two` uses on this CPU: 2 = AVX-512F, 1 = AVX2 + FMA, 0 = portable.
int32_t cfloat_kernel_level(void);

/// Forces a kernel level at most `level` (tests compare the paths); -1 restores the CPU's choice.
void cfloat_force_kernel_level(int32_t level);

#ifdef __cplusplus
}
#endif

#endif
