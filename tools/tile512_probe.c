/* tile512_probe.c: AVX-512 register tiles of several shapes timed alone, everything in L1 (the
 * weights' rows and 144 B rows of 128 floats, as a 16-channel 3x3 layer's 144 terms), on 1 or 2
 * threads at once, each timing followed by the peak's mul+add loop (bench/peak.c) for the same
 * flops on the same threads, so that the ratio of the two times is the tile's fraction of the
 * peak at that moment (docs/performance.md, 2026-11-29). Not part of the build: a measurement
 * tool.
 *   gcc -O3 -mavx512f -ffp-contract=off -o /tmp/tile512_probe tools/tile512_probe.c -lpthread
 *   /tmp/tile512_probe SHAPE THREADS     e.g. /tmp/tile512_probe 8x48 2
 * SHAPE: 8x32 (the tiles before 2026-11-29: 16 accumulators), 8x48, 6x64, 12x32, 14x32, 4x96 (24 to
 * 28), 16x16 (16, one vector of B a term), or 8x32u, 8x48u (B read one float off the 64-byte
 * alignment: every vector load splits a cache line, as the flat positions' shifted rows do);
 * added 2026-11-30 on a Zen 4: 24x16, 12x16, 8x16, 16x16u and 24x16u (one vector a row, u: B one
 * float off), 8x48p (A as 16-float vectors, no broadcast), 8x32b, 8x48b, 6x64b, 14x32b, 4x96b,
 * 8x48ub (each multiply with an embedded broadcast, inline asm); 16x16un and 8x48un are 16x16 and
 * 8x48 (names of that session's notes, from when only some tiles had their loops unrolled).
 * Prints five timings: the tile's GFLOP/s a thread, the loop's, and tile time / loop time. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef float v16 __attribute__((vector_size(64), aligned(4)));
static inline v16 ld16(const float *p) { return *(const v16 *)p; }
static inline v16 bc16(float s) { return (v16){s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s}; }
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* C[MR][NV 16] = sum over k ascending of A[i][k] B[k][..], separate multiply and add (tiles.h), every
 * loop unrolled (gcc keeps 24 x 16 in memory otherwise); PROD(i, k, v) is the product of A's
 * element (i, k) and B's vector v of row k (bv[v]):
 *   PROD_BC  a broadcast of the element (gcc shares it between the row's NV multiplies, and folds it
 *            into the multiply where NV = 1)
 *   PROD_EB  each multiply with an embedded broadcast ({1to16}, inline asm), NV or not
 *   PROD_VEC the element read as a vector of 16 copies (A laid out [k][MR][16]; no broadcast) */
static inline v16 mul_bc(v16 b, const float *a) {
    v16 r;
    __asm__("vmulps %2%{1to16%}, %1, %0" : "=v"(r) : "v"(b), "m"(*a));
    return r;
}
#define PROD_BC(i, k, v) (bc16(A[(i) * lda + (k)]) * bv[v])
#define PROD_EB(i, k, v) mul_bc(bv[v], A + (i) * lda + (k))
#define PROD_VEC(i, k, v) (ld16(A + ((size_t)(k) * MR_ + (i)) * 16) * bv[v])
#define TILE(NAME, MR, NV, PROD)                                                                              \
    __attribute__((noinline)) static void NAME(int K, const float *A, int lda, const float *B, int ldb, float *C) { \
        enum { MR_ = MR };                                                                                    \
        (void)lda;                                                                                            \
        v16 c[MR][NV];                                                                                        \
        _Pragma("GCC unroll 64") for (int i = 0; i < MR; i++)                                                 \
            _Pragma("GCC unroll 8") for (int v = 0; v < NV; v++) c[i][v] = bc16(0.0f);                        \
        for (int k = 0; k < K; k++) {                                                                         \
            v16 bv[NV];                                                                                       \
            _Pragma("GCC unroll 8") for (int v = 0; v < NV; v++) bv[v] = ld16(B + (size_t)k * ldb + 16 * v);  \
            _Pragma("GCC unroll 64") for (int i = 0; i < MR; i++)                                             \
                _Pragma("GCC unroll 8") for (int v = 0; v < NV; v++) c[i][v] = c[i][v] + PROD(i, k, v);       \
        }                                                                                                     \
        for (int i = 0; i < MR; i++)                                                                          \
            for (int v = 0; v < NV; v++) memcpy(C + (i * NV + v) * 16, &c[i][v], 64);                          \
    }
TILE(t8x32, 8, 2, PROD_BC)
TILE(t8x48, 8, 3, PROD_BC)
TILE(t6x64, 6, 4, PROD_BC)
TILE(t12x32, 12, 2, PROD_BC)
TILE(t14x32, 14, 2, PROD_BC)
TILE(t4x96, 4, 6, PROD_BC)
TILE(t16x16, 16, 1, PROD_BC)
TILE(t24x16, 24, 1, PROD_BC)
TILE(t12x16, 12, 1, PROD_BC)
TILE(t8x16, 8, 1, PROD_BC)
TILE(p8x48, 8, 3, PROD_VEC)
TILE(e8x32, 8, 2, PROD_EB)
TILE(e8x48, 8, 3, PROD_EB)
TILE(e6x64, 6, 4, PROD_EB)
TILE(e14x32, 14, 2, PROD_EB)
TILE(e4x96, 4, 6, PROD_EB)

typedef void tile_fn(int, const float *, int, const float *, int, float *);
static const struct {
    const char *name;
    tile_fn *f;
    int mr, nv, off;
} SHAPES[] = {{"8x32", t8x32, 8, 2, 0},   {"8x48", t8x48, 8, 3, 0},   {"6x64", t6x64, 6, 4, 0},
              {"12x32", t12x32, 12, 2, 0}, {"14x32", t14x32, 14, 2, 0}, {"4x96", t4x96, 4, 6, 0},
              {"16x16", t16x16, 16, 1, 0}, {"8x32u", t8x32, 8, 2, 1},   {"8x48u", t8x48, 8, 3, 1},
              {"24x16", t24x16, 24, 1, 0}, {"8x32b", e8x32, 8, 2, 0},   {"8x48b", e8x48, 8, 3, 0},
              {"6x64b", e6x64, 6, 4, 0},   {"14x32b", e14x32, 14, 2, 0}, {"4x96b", e4x96, 4, 6, 0},
              {"8x48ub", e8x48, 8, 3, 1}, {"16x16u", t16x16, 16, 1, 1}, {"12x16", t12x16, 12, 1, 0},
              {"8x16", t8x16, 8, 1, 0},   {"16x16un", t16x16, 16, 1, 0}, {"8x48un", t8x48, 8, 3, 0},
              {"8x48p", p8x48, 8, 3, 0},  {"24x16u", t24x16, 24, 1, 1}};

static volatile float peak_init[4] = {0.99999994f, 1.00000006f, 1.5f, 1.25f};
/* bench/peak.c's loop: 12 multiplies and 12 adds of independent chains an iteration */
__attribute__((noinline)) static float peak_loop(long iters) {
    v16 m = bc16(peak_init[0]), n = bc16(peak_init[1]), c = bc16(peak_init[2]), a0 = bc16(peak_init[3]);
    v16 a1 = a0 + c, a2 = a1 + c, a3 = a2 + c, a4 = a3 + c, a5 = a4 + c, b0 = a0, b1 = a1, b2 = a2, b3 = a3, b4 = a4, b5 = a5;
    for (long it = 0; it < iters; it++) {
        a0 = a0 * m; a1 = a1 * m; a2 = a2 * m; a3 = a3 * m; a4 = a4 * m; a5 = a5 * m;
        b0 = b0 + c; b1 = b1 + c; b2 = b2 + c; b3 = b3 + c; b4 = b4 + c; b5 = b5 + c;
        a0 = a0 * n; a1 = a1 * n; a2 = a2 * n; a3 = a3 * n; a4 = a4 * n; a5 = a5 * n;
        b0 = b0 - c; b1 = b1 - c; b2 = b2 - c; b3 = b3 - c; b4 = b4 - c; b5 = b5 - c;
    }
    v16 s = a0 + a1 + a2 + a3 + a4 + a5 + b0 + b1 + b2 + b3 + b4 + b5;
    return s[0];
}

static pthread_barrier_t bar;
static int shape;
static void *body(void *arg) {
    int tid = (int)(long)arg, K = 144, mr = SHAPES[shape].mr, nv = SHAPES[shape].nv;
    float *A = aligned_alloc(64, sizeof(float) * 128 * K), *B = aligned_alloc(64, sizeof(float) * (K * 128 + 16));
    float *C = aligned_alloc(64, sizeof(float) * 32 * 128);
    for (int i = 0; i < 128 * K; i++) A[i] = 0.001f * (float)(i % 97);
    for (int i = 0; i < K * 128 + 16; i++) B[i] = 0.002f * (float)(i % 89);
    const float *b = B + SHAPES[shape].off;
    long reps = 20000, iters;
    double flops = 2.0 * mr * nv * 16 * K * reps;
    iters = (long)(flops / (24 * 16));
    for (int r = 0; r < 5; r++) {
        pthread_barrier_wait(&bar);
        double t0 = now();
        for (long q = 0; q < reps; q++) SHAPES[shape].f(K, A, K, b, 128, C);
        double t1 = now();
        pthread_barrier_wait(&bar);
        double t2 = now();
        float s = peak_loop(iters);
        double t3 = now();
        pthread_barrier_wait(&bar);
        if (tid == 0)
            printf("%s: tile %.1f GFLOP/s a thread, loop %.1f, tile / loop time %.2f%s\n", SHAPES[shape].name,
                   1e-9 * flops / (t1 - t0), 1e-9 * flops / (t3 - t2), (t1 - t0) / (t3 - t2), s + C[5] == 12345.f ? " " : "");
    }
    free(A), free(B), free(C);
    return NULL;
}

int main(int argc, char **argv) {
    int nt = argc == 3 ? atoi(argv[2]) : 0;
    shape = -1;
    for (int i = 0; argc == 3 && i < (int)(sizeof SHAPES / sizeof SHAPES[0]); i++)
        if (!strcmp(argv[1], SHAPES[i].name)) shape = i;
    if (shape < 0 || nt < 1 || nt > 2) {
        fprintf(stderr, "usage: tile512_probe 8x32|8x48|6x64|12x32|14x32|4x96|16x16|24x16|8x32u|8x48u|8x32b|8x48b|6x64b|14x32b|4x96b|8x48ub 1|2\n");
        return 2;
    }
    pthread_barrier_init(&bar, NULL, (unsigned)nt);
    pthread_t th[2];
    for (long i = 0; i < nt; i++) pthread_create(&th[i], NULL, body, (void *)i);
    for (int i = 0; i < nt; i++) pthread_join(th[i], NULL);
    return 0;
}
