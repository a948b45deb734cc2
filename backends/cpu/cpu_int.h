/* cpu_int.h: what the CPU backend's files (cpu_backend.c: the op table, the constructor and the
 * profiler; cpu_conv.c: the convolutions; cpu_bn.c: BatchNorm; cpu_elementwise.c: ReLU and add)
 * share: the 8-wide vector type, the context with its thread pool and work buffers, the
 * profiler's macros, and the ops each file gives the table. */
#ifndef FLCE_CPU_INT_H
#define FLCE_CPU_INT_H

#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hostbuf.h"
#include "ops.h"
#include "pool.h"
#include "ref_backend.h"


typedef float v8 __attribute__((vector_size(32), aligned(4)));
typedef int v8i __attribute__((vector_size(32)));
extern int flce_cpu_use_avx512; /* the AVX-512 tiles (gemm512.c); set once by flce_backend_cpu */
#define USE_AVX512 flce_cpu_use_avx512
extern int flce_cpu_narrow; /* AVX-512 tiles one vector wide where there is a choice (gemm512.c); set once */
#define USE_NARROW (USE_AVX512 && flce_cpu_narrow) /* never without AVX-512, whatever sets the flag */

static inline v8 ld(const float *p) { return *(const v8 *)p; }
static inline void stv(float *p, v8 v) { *(v8 *)p = v; }
static inline v8 bc(float s) { return (v8){s, s, s, s, s, s, s, s}; }
/* lanes lo <= l < hi */
static inline v8i lanes_in(int lo, int hi) {
    v8i l = {0, 1, 2, 3, 4, 5, 6, 7};
    return (l >= (v8i){lo, lo, lo, lo, lo, lo, lo, lo}) & (l < (v8i){hi, hi, hi, hi, hi, hi, hi, hi});
}
static inline v8i lanes_below(int r) { return lanes_in(0, r); }
/* the lanes set in m from p (lane l: p[l]), the others zero; nothing read for them */
static inline v8 mload(const float *p, v8i m) { return (v8)_mm256_maskload_ps(p, (__m256i)m); }
/* p[0 .. n) = lanes [0, n) of v, 0 < n < 8, nothing else written: plain 16-, 8- and 4-byte stores
 * (a masked store, vmaskmovps, took about 8 cycles a row on AMD Zen 4: docs/performance.md) */
static inline void store_below(float *p, int n, v8 v) {
    __m128 h = _mm256_castps256_ps128((__m256)v);
    if (n >= 4) _mm_storeu_ps(p, h), h = _mm256_extractf128_ps((__m256)v, 1), p += 4, n -= 4;
    if (n >= 2) _mm_storel_pi((__m64 *)p, h), h = _mm_movehl_ps(h, h), p += 2, n -= 2;
    if (n) _mm_store_ss(p, h);
}
/* p[0 .. n) = the first n floats of lo then hi, 0 < n <= 16 (an interleaved row's block) */
static inline void store_pair(float *p, int n, v8 lo, v8 hi) {
    if (n >= 8) {
        stv(p, lo);
        if (n == 16) stv(p + 8, hi);
        else if (n > 8) store_below(p + 8, n - 8, hi);
    } else store_below(p, n, lo);
}
static inline v8 vor(v8 a, v8 b) { return (v8)((v8i)a | (v8i)b); }

typedef struct {
    float *p;
    size_t cap; /* floats */
} scratch;

/* A per-thread work buffer that grows and is kept: no page faults on every op. */
static inline float *scratch_get(scratch *s, size_t n) {
    if (n > s->cap) {
        free(s->p);
        s->p = flce_huge(aligned_alloc(64, (n + 15) / 16 * 64), (n + 15) / 16 * 64);
        s->cap = s->p ? (n + 15) / 16 * 16 : 0;
    }
    return s->p;
}

/* FLCE_CPU_PROFILE=1: wall time per op and shape, printed to stderr when the backend is
 * destroyed (the ops are synchronous, so wall time is the op's own). */
typedef flce_prof_row prof_entry; /* backend.h; flops: the convolutions' (PROF_CONV) */

typedef struct {
    int threads;
    pool pool;
    scratch a[16], b[16]; /* two work buffers per part */
    scratch wt;
    int profile;
    prof_entry prof[64];
    int nprof;
} cpu_ctx;

static inline double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline int nthreads(flce_backend *be) { return ((cpu_ctx *)be->ctx)->threads; }
static inline cpu_ctx *ctx_of(flce_backend *be) { return be->ctx; }

/* the profiler (cpu_backend.c): an op's wall time under its key */
void flce_cpu_prof_add(cpu_ctx *c, const char *key, double sec, double flops);
#define PROF_BEGIN(be) double prof_t0_ = ctx_of(be)->profile ? now_s() : 0.0
#define PROF_END(be, ...) PROF_END_FLOPS(be, 0.0, __VA_ARGS__)
#define PROF_END_FLOPS(be, flops, ...)                                                                         \
    do {                                                                                                       \
        double prof_flops_ = (flops);                                                                          \
        if (ctx_of(be)->profile) {                                                                             \
            char k_[40];                                                                                       \
            snprintf(k_, sizeof k_, __VA_ARGS__);                                                              \
            flce_cpu_prof_add(ctx_of(be), k_, now_s() - prof_t0_, prof_flops_);                                \
        }                                                                                                      \
    } while (0)
#define PROF_CONV(be, op, s)                                                                                   \
    PROF_END_FLOPS(be, 2.0 * (s)->N * (s)->K * (s)->C * (s)->R * (s)->R * (s)->OH * (s)->OW, "%s c%d %dx%d k%d r%d s%d", \
                   op, (s)->C, (s)->H, (s)->W, (s)->K, (s)->R, (s)->stride)

/* the ops of the table (CPU_OWN_OPS in cpu_backend.c) */
void c_conv2d_fwd(flce_backend *be, const flce_conv_shape *s, const flce_buf *x, const flce_buf *w, flce_buf *y);
void c_conv2d_fwd_bn_eval(flce_backend *be, const flce_conv_shape *s, const flce_buf *x, const flce_buf *w, float eps,
                          const flce_buf *g, const flce_buf *b, const flce_buf *rm, const flce_buf *rv, const flce_buf *r,
                          int relu, flce_buf *t, flce_buf *y);
void c_conv2d_bwd_data(flce_backend *be, const flce_conv_shape *s, const flce_buf *dy, const flce_buf *w,
                            flce_buf *dx);
void c_conv2d_bwd_weight(flce_backend *be, const flce_conv_shape *s, const flce_buf *x, const flce_buf *dy,
                              flce_buf *dw);
void c_relu_fwd(flce_backend *be, size_t n, const flce_buf *x, flce_buf *y);
void c_relu_bwd(flce_backend *be, size_t n, const flce_buf *y, const flce_buf *dy, flce_buf *dx);
void c_add(flce_backend *be, size_t n, int relu, const flce_buf *a, const flce_buf *b, flce_buf *y);
void c_avgpool_fwd(flce_backend *be, int N, int C, int HW, const flce_buf *x, flce_buf *z);
void c_avgpool_bwd(flce_backend *be, int N, int C, int HW, const flce_buf *dz, flce_buf *dx);
void c_add_relu_bwd(flce_backend *be, size_t n, const flce_buf *a, const flce_buf *b, const flce_buf *y,
                           flce_buf *dx);
void c_bn_fwd_train(flce_backend *be, int N, int C, int HW, float eps, float mom, int relu, const flce_buf *x,
                           const flce_buf *g, const flce_buf *b, flce_buf *y, flce_buf *mean, flce_buf *is, flce_buf *rm,
                           flce_buf *rv);
void c_bn_fwd_train_res(flce_backend *be, int N, int C, int HW, float eps, float mom, const flce_buf *x,
                               const flce_buf *g, const flce_buf *b, const flce_buf *r, flce_buf *y, flce_buf *mean,
                               flce_buf *is, flce_buf *rm, flce_buf *rv);
void c_bn_fwd_eval(flce_backend *be, int N, int C, int HW, float eps, int relu, const flce_buf *x, const flce_buf *g, const flce_buf *b,
                   const flce_buf *rm, const flce_buf *rv, flce_buf *y);
void c_bn_bwd(flce_backend *be, int N, int C, int HW, const flce_buf *yr, const flce_buf *dy, const flce_buf *x,
                     const flce_buf *mean, const flce_buf *g, const flce_buf *is, flce_buf *dx, flce_buf *dg,
                     flce_buf *db);

#endif
