#ifndef AW_KERNELS_H
#define AW_KERNELS_H

#include <stdint.h>

/// 1 when this CPU runs `aw_knox_tally_avx2` (AVX2), else 0.
int aw_knox_avx2_supported(void);

/// The near-repeat test's counting loop (SPEC §16; AreaWatchQuery's PairCounter holds the same
/// loop in portable Swift and documents it): for positions p in [first, last), each partner q in
/// partner[offsets[p] ..< offsets[p + 1]], and each lane j of 8, adds −1 to tally[e][j] when
/// |times[8q + j] − times[8p + j]| > edges[e], e = 0…3. `tally` is 4 × 8 values, added to.
/// Times are below 2³¹ apart. Call only when `aw_knox_avx2_supported()`.
void aw_knox_tally_avx2(
    const int32_t *times, const uint32_t *partner, const int64_t *offsets, int64_t first, int64_t last,
    const int32_t edges[4], int32_t tally[32]);

#endif
