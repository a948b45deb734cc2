/* wgrad_probe.c: what limits the AVX-512 weight-gradient tile of 16-output-channel layers
 * (backends/cpu/tiles.h TILE_ROWS2_IDX, wgrad_tap in cpu_conv.c: 8 input channels x one tap, two
 * samples, 16 accumulators, each term one broadcast of x per row and sample and one dy vector per
 * sample). Not part of the build: a measurement tool (docs/performance.md, 2026-11-29).
 *   gcc -O3 -mavx512f -ffp-contract=off -o /tmp/wgrad_probe tools/wgrad_probe.c
 *   taskset -c 0 /tmp/wgrad_probe DISTINCT BLOCK
 * Times the 18 tiles of one sample pair of the c16 28x28 k16 layer (every tap's list of the
 * positions inside), one thread, best of 200, as GFLOP/s (compare `flce-bench peak --threads 1`).
 * DISTINCT (8, 2 or 1): how many different x values the 8 rows of a tile broadcast per sample and
 * term: 8 is the real tile; 2 and 1 do the same multiplies and adds with fewer broadcasts (rows
 * reading the same x: wrong numbers, the same arithmetic). BLOCK (0: every position): only the
 * positions below BLOCK, repeated to the same number of terms, so that dy stays in L1. */
#include <immintrin.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef float v16 __attribute__((vector_size(64), aligned(4)));
static inline v16 ld16(const float *p) { return *(const v16 *)p; }
static inline v16 bc16(float s) { return (v16){s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s}; }
enum { H = 28, W = 28, C = 16, K = 16, P = H * W, HW = H * W };

#define TILE(NAME, ROW)                                                                                       \
    __attribute__((noinline)) static void NAME(int n, const float *x0, const float *x1, const int *xoff,     \
                                               const int *boff, const float *B0, const float *B1, float *C0, \
                                               float *C1, int ldc) {                                          \
        v16 c0[8], c1[8];                                                                                     \
        for (int i = 0; i < 8; i++) c0[i] = c1[i] = bc16(0.0f);                                               \
        for (int k = 0; k < n; k++) {                                                                         \
            const float *p0 = x0 + xoff[k], *p1 = x1 + xoff[k];                                               \
            v16 b0 = ld16(B0 + boff[k]), b1 = ld16(B1 + boff[k]);                                             \
            for (int i = 0; i < 8; i++) {                                                                     \
                c0[i] = c0[i] + bc16(p0[(ROW) * HW]) * b0;                                                    \
                c1[i] = c1[i] + bc16(p1[(ROW) * HW]) * b1;                                                    \
            }                                                                                                 \
        }                                                                                                     \
        for (int i = 0; i < 8; i++) {                                                                         \
            *(v16 *)(C0 + (size_t)i * ldc) = c0[i];                                                           \
            *(v16 *)(C1 + (size_t)i * ldc) = c1[i];                                                           \
        }                                                                                                     \
    }
TILE(tile8, i)
TILE(tile2, i & 1)
TILE(tile1, 0)

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    int distinct = argc > 1 ? atoi(argv[1]) : 8, block = argc > 2 ? atoi(argv[2]) : 0;
    if ((distinct != 8 && distinct != 2 && distinct != 1) || block < 0 || block > P) {
        fprintf(stderr, "usage: wgrad_probe [8|2|1] [BLOCK 0..%d]\n", P);
        return 2;
    }
    size_t xs = (size_t)C * HW, ps = (size_t)P * K;
    float *x = aligned_alloc(64, 2 * xs * 4), *dy = aligned_alloc(64, 2 * ps * 4);
    float *out = aligned_alloc(64, (size_t)9 * C * K * 2 * 4 + 4096);
    int *xoff = malloc(sizeof(int) * 9 * P), *boff = malloc(sizeof(int) * 9 * P), cnt[9];
    if (!x || !dy || !out || !xoff || !boff) return 1;
    for (size_t i = 0; i < 2 * xs; i++) x[i] = (float)(i % 7) * 0.1f;
    for (size_t i = 0; i < 2 * ps; i++) dy[i] = (float)(i % 5) * 0.1f;
    for (int tap = 0; tap < 9; tap++) { /* the positions where the tap lands inside (tap_lists) */
        int n = 0, ky = tap / 3, kx = tap % 3;
        for (int oy = 0; oy < H; oy++)
            for (int ox = 0; ox < W; ox++) {
                int iy = oy + ky - 1, ix = ox + kx - 1;
                if (iy < 0 || iy >= H || ix < 0 || ix >= W || (block && oy * W + ox >= block)) continue;
                xoff[tap * P + n] = iy * W + ix, boff[tap * P + n] = (oy * W + ox) * K, n++;
            }
        cnt[tap] = n;
    }
    long terms = 0;
    for (int t = 0; t < 9; t++) terms += cnt[t];
    int reps = block ? (P + block - 1) / block : 1;
    double best = 1e9;
    for (int it = 0; it < 200; it++) {
        double t0 = now();
        for (int r = 0; r < reps; r++)
            for (int t = 0; t < 18; t++) {
                int c0 = t / 9 * 8, tap = t % 9;
                const float *a = x + (size_t)c0 * HW, *b = x + xs + (size_t)c0 * HW;
                float *o0 = out + (size_t)(c0 * 9 + tap) * K, *o1 = o0 + 9 * C * K;
                if (distinct == 8) tile8(cnt[tap], a, b, xoff + tap * P, boff + tap * P, dy, dy + ps, o0, o1, 9 * K);
                else if (distinct == 2) tile2(cnt[tap], a, b, xoff + tap * P, boff + tap * P, dy, dy + ps, o0, o1, 9 * K);
                else tile1(cnt[tap], a, b, xoff + tap * P, boff + tap * P, dy, dy + ps, o0, o1, 9 * K);
            }
        double dt = now() - t0;
        if (dt < best) best = dt;
    }
    double flops = 2.0 * (double)terms * reps * 2 * 8 * 16;
    printf("distinct %d, block %d: %ld terms x %d, best %.1f us, %.1f GFLOP/s\n", distinct, block, terms, reps, best * 1e6,
           flops / best * 1e-9);
    return 0;
}
