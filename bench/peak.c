/* peak.c: the machine's measured float32 peaks: separate multiplies and adds (the bit-exact
 * contract allows nothing else) with 8-wide AVX2 and, where the CPU has them, 16-wide AVX-512
 * vectors; and, for comparison only, fused multiply-adds (what a framework without the contract,
 * PyTorch's oneDNN say, may use). Independent chains on every thread, so the GFLOP/s of the
 * training ops can be quoted as a fraction of the peak of the vectors the CPU backend runs. */
#include "peak.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef float v8 __attribute__((vector_size(32)));
typedef float v16 __attribute__((vector_size(64)));

typedef struct {
    int kind;
    long iters;
    float sink;
} peak_job;

/* 12 mul + 12 add vectors per iteration: 24 VW flops. Every chain starts from its own value
 * read through a volatile, so the compiler cannot merge chains it could prove equal. */
static volatile float peak_init[15] = {0.99999994f, 1.00000006f, 1.5f,  1.25f, 0.75f, 1.125f, 0.875f, 1.0625f,
                                       0.9375f,     1.03125f,    0.96875f, 2.5f, 3.5f, 1.75f, 0.625f};

#define MULADD_LOOP(VT, VW)                                                                                   \
    VT m, n, c, a[6], b[6];                                                                                   \
    for (int i = 0; i < VW; i++) {                                                                            \
        m[i] = peak_init[0], n[i] = peak_init[1], c[i] = peak_init[2];                                        \
        for (int r = 0; r < 6; r++) a[r][i] = peak_init[3 + r], b[r][i] = peak_init[9 + r];                  \
    }                                                                                                         \
    VT a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], a4 = a[4], a5 = a[5];                                      \
    VT b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3], b4 = b[4], b5 = b[5];                                      \
    for (long it = 0; it < iters; it++) {                                                                     \
        a0 = a0 * m; a1 = a1 * m; a2 = a2 * m; a3 = a3 * m; a4 = a4 * m; a5 = a5 * m;                         \
        b0 = b0 + c; b1 = b1 + c; b2 = b2 + c; b3 = b3 + c; b4 = b4 + c; b5 = b5 + c;                         \
        a0 = a0 * n; a1 = a1 * n; a2 = a2 * n; a3 = a3 * n; a4 = a4 * n; a5 = a5 * n;                         \
        b0 = b0 - c; b1 = b1 - c; b2 = b2 - c; b3 = b3 - c; b4 = b4 - c; b5 = b5 - c;                         \
    }                                                                                                         \
    VT s = a0 + a1 + a2 + a3 + a4 + a5 + b0 + b1 + b2 + b3 + b4 + b5;                                        \
    return s[0] + s[VW - 1];

static float muladd8(long iters) { MULADD_LOOP(v8, 8) }

__attribute__((target("avx512f"))) static float muladd16(long iters) { MULADD_LOOP(v16, 16) }

/* 12 independent FMA chains, 2 flops per lane each: 24 VW flops per iteration, as above. */
#define FMA_LOOP(VT, VW, FMA)                                                                                 \
    VT m, c, a[12];                                                                                           \
    for (int i = 0; i < VW; i++) {                                                                            \
        m[i] = peak_init[0], c[i] = 1e-7f * peak_init[2];                                                     \
        for (int r = 0; r < 12; r++) a[r][i] = peak_init[3 + r % 12];                                         \
    }                                                                                                         \
    for (long it = 0; it < iters; it++)                                                                       \
        for (int r = 0; r < 12; r++) a[r] = FMA(a[r], m, c);                                                  \
    VT s = a[0];                                                                                              \
    for (int r = 1; r < 12; r++) s = s + a[r];                                                                \
    return s[0] + s[VW - 1];

__attribute__((target("avx2,fma"))) static float fma8(long iters) { FMA_LOOP(v8, 8, __builtin_ia32_vfmaddps256) }

__attribute__((target("avx512f"))) static float fma16(long iters) {
#define FMA16(a, b, c) __builtin_ia32_vfmaddps512_mask(a, b, c, (unsigned short)-1, 4)
    FMA_LOOP(v16, 16, FMA16)
#undef FMA16
}

static void *peak_thread(void *arg) {
    peak_job *j = arg;
    switch (j->kind) {
    case PEAK_MULADD_AVX2: j->sink = muladd8(j->iters); break;
    case PEAK_MULADD_AVX512: j->sink = muladd16(j->iters); break;
    case PEAK_FMA_AVX2: j->sink = fma8(j->iters); break;
    default: j->sink = fma16(j->iters); break;
    }
    return NULL;
}

int flce_peak_has_avx512(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
}

double flce_peak_kind_gflops(int kind, int threads) {
    if (threads < 1) threads = 1;
    if (threads > 64) threads = 64;
    if ((kind == PEAK_MULADD_AVX512 || kind == PEAK_FMA_AVX512) && !flce_peak_has_avx512()) return 0.0;
    int width = kind == PEAK_MULADD_AVX512 || kind == PEAK_FMA_AVX512 ? 16 : 8;
    peak_job jobs[64];
    pthread_t th[64];
    long iters = 160000000 / width;
    double best = 0;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = bench_now();
        for (int i = 0; i < threads; i++) {
            jobs[i].kind = kind;
            jobs[i].iters = iters;
            pthread_create(&th[i], NULL, peak_thread, &jobs[i]);
        }
        for (int i = 0; i < threads; i++) pthread_join(th[i], NULL);
        double dt = bench_now() - t0;
        double g = (double)threads * (double)iters * 24.0 * width / dt * 1e-9;
        if (g > best) best = g;
    }
    return best;
}

/* The vectors the CPU backend runs: AVX-512 where the CPU has it, unless FLCE_CPU_ISA=avx2. */
int flce_peak_backend_kind(void) {
    const char *isa = getenv("FLCE_CPU_ISA");
    return flce_peak_has_avx512() && !(isa && !strcmp(isa, "avx2")) ? PEAK_MULADD_AVX512 : PEAK_MULADD_AVX2;
}

double flce_peak_gflops(int threads) { return flce_peak_kind_gflops(flce_peak_backend_kind(), threads); }
