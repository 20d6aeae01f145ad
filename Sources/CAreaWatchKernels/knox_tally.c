#include "aw_kernels.h"

#if defined(__x86_64__)

#include <immintrin.h>

int aw_knox_avx2_supported(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? 1 : 0;
}

// Compiled for AVX2 alone (the rest of the program stays baseline x86-64): one 256-bit register
// holds a pair's eight |Δt|, where the portable loop needs two 128-bit halves and three
// instructions for each absolute value.
__attribute__((target("avx2")))
void aw_knox_tally_avx2(
    const int32_t *times, const uint32_t *partner, const int64_t *offsets, int64_t first, int64_t last,
    const int32_t edges[4], int32_t tally[32]) {
    const __m256i e0 = _mm256_set1_epi32(edges[0]), e1 = _mm256_set1_epi32(edges[1]);
    const __m256i e2 = _mm256_set1_epi32(edges[2]), e3 = _mm256_set1_epi32(edges[3]);
    __m256i a0 = _mm256_loadu_si256((const __m256i *)tally), a1 = _mm256_loadu_si256((const __m256i *)(tally + 8));
    __m256i a2 = _mm256_loadu_si256((const __m256i *)(tally + 16)), a3 = _mm256_loadu_si256((const __m256i *)(tally + 24));
    for (int64_t p = first; p < last; p++) {
        const __m256i tp = _mm256_loadu_si256((const __m256i *)(times + 8 * p));
        for (int64_t e = offsets[p]; e < offsets[p + 1]; e++) {
            const __m256i tq = _mm256_loadu_si256((const __m256i *)(times + 8 * (int64_t)partner[e]));
            const __m256i d = _mm256_abs_epi32(_mm256_sub_epi32(tq, tp));
            // A comparison's mask is −1 where true.
            a0 = _mm256_add_epi32(a0, _mm256_cmpgt_epi32(d, e0));
            a1 = _mm256_add_epi32(a1, _mm256_cmpgt_epi32(d, e1));
            a2 = _mm256_add_epi32(a2, _mm256_cmpgt_epi32(d, e2));
            a3 = _mm256_add_epi32(a3, _mm256_cmpgt_epi32(d, e3));
        }
    }
    _mm256_storeu_si256((__m256i *)tally, a0);
    _mm256_storeu_si256((__m256i *)(tally + 8), a1);
    _mm256_storeu_si256((__m256i *)(tally + 16), a2);
    _mm256_storeu_si256((__m256i *)(tally + 24), a3);
}

#else

// Not x86-64: no AVX2, and the portable loop always counts.
int aw_knox_avx2_supported(void) { return 0; }

void aw_knox_tally_avx2(
    const int32_t *times, const uint32_t *partner, const int64_t *offsets, int64_t first, int64_t last,
    const int32_t edges[4], int32_t tally[32]) {
    __builtin_trap();
}

#endif
