/* op_ab.c: one op of the CPU backend timed alone (2 threads, batch 64), two variants of it
 * alternating call by call in one process, so that the machine's drift (these virtual machines'
 * speed moves by a quarter from minute to minute) falls on both alike (docs/performance.md,
 * 2026-11-29). Not part of the build: a measurement tool.
 *   cmake --build build && gcc -O2 -I reference -I base -I backends/cpu -o /tmp/op_ab tools/op_ab.c \
 *     build/libflce_cpu.a build/libflce_reference.a build/libflce_base.a -lpthread -lm
 *   /tmp/op_ab OP C H K CALLS     e.g. /tmp/op_ab conv_fwd 16 28 16 60
 * OP: conv_fwd, conv_bwd_data, conv_bwd_weight (3x3 with pad 1, or 1x1 without with $R=1; stride $STRIDE (default 1), C -> K
 * channels, H x H), bn_fwd (BatchNorm training with the ReLU, C channels of H x H) or bn_bwd (its backward with the
 * ReLU's mask), or chain (conv_fwd, bn_fwd on its output, conv_fwd on that: a stage's forward,
 * C == K; chainrot: the same over $ROT sets of buffers in turn, as in a step, whose activations
 * do not fit the caches), or bchainrot (a layer's backward over $ROT sets: bn_bwd, the weight and
 * input gradients of its dx); with ROTAB set, variant A uses the first set every call (its data
 * in the caches) and B the ROT sets in turn (a step's case). The two variants: the tool sets `flce_cpu_ab` to 0 (A) and 1 (B, or $BV) before
 * each call, A first in even calls and B first in odd ones. The library has no such switch: to
 * compare two ways of computing an op, add `int flce_cpu_ab = 1;` to backends/cpu/cpu_backend.c
 * for the experiment and branch on it (and take it out again: results must never depend on it).
 * Without it, A and B are the same code: the ratio shows the noise floor (1.004-1.076 in four
 * runs here, 2026-11-29: trust only a difference that every one of several runs shows).
 * NARROW_AB=1: A with the wide AVX-512 tiles, B with the one-vector ones (flce_cpu_narrow, set
 * before each call; no switch needed in the library).
 * NB: the batch (default 64). COLD=1: before each call two threads rewrite the input, each half of its channels (as a
 * channel-split BatchNorm leaves it), and read 32 MB of other data (the input not in this core's
 * cache). Prints the mean (calls after the first two) and the best time of each, GFLOP/s of the
 * best (convolutions), and B's mean over A's. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "cpu.h"
#include "hostbuf.h"

__attribute__((weak)) int flce_cpu_ab; /* the library's, when an experiment defines one */
extern int flce_cpu_narrow;            /* the library's choice of AVX-512 tiles (NARROW_AB) */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int N = 64; /* the batch: $NB, default 64 */
static float *cold_x, *junk;
static size_t cold_c, cold_hw, njunk = (size_t)8 << 20;
static void *cold_part(void *a) {
    int t = (int)(long)a;
    for (size_t n = 0; n < (size_t)N; n++)
        for (size_t c = cold_c * t / 2; c < cold_c * (t + 1) / 2; c++) {
            float *p = cold_x + (n * cold_c + c) * cold_hw;
            for (size_t i = 0; i < cold_hw; i++) p[i] = p[i] * 0.5f + 0.25f;
        }
    float s = 0.0f;
    for (size_t i = njunk * t / 2; i < njunk * (t + 1) / 2; i += 16) s += junk[i];
    return (void *)(long)(s > 1e30f);
}
static void make_cold(void) {
    pthread_t th[2];
    for (long i = 0; i < 2; i++) pthread_create(&th[i], NULL, cold_part, (void *)i);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
}

/* Set `call` of $ROT (1..64, default 8) sets of four nx-float buffers, allocated on the first
 * call (a call the timing skips); set 0 every time where fixed. */
static flce_buf **rot_set(flce_backend *be, size_t nx, const float *h, int call, int fixed) {
    static flce_buf *set[64][4];
    static int nset;
    if (!nset) {
        nset = getenv("ROT") ? atoi(getenv("ROT")) : 8;
        nset = nset < 1 ? 1 : nset > 64 ? 64 : nset;
        for (int i = 0; i < nset; i++)
            for (int q = 0; q < 4; q++) set[i][q] = be->buf_alloc(be, 4 * nx), be->buf_write(be, set[i][q], 0, h, 4 * nx);
    }
    return set[fixed ? 0 : call % nset];
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: op_ab conv_fwd|conv_bwd_data|conv_bwd_weight|bn_fwd|bn_bwd|chain C H K CALLS\n");
        return 2;
    }
    const char *op = argv[1];
    if (getenv("NB")) N = atoi(getenv("NB"));
    int C = atoi(argv[2]), H = atoi(argv[3]), K = atoi(argv[4]), calls = atoi(argv[5]);
    int conv = !strncmp(op, "conv_", 5), bv = getenv("BV") ? atoi(getenv("BV")) : 1, cold = getenv("COLD") != NULL,
        narrow_ab = getenv("NARROW_AB") != NULL;
    if (C < 1 || H < 1 || K < 1 || calls < 3 || (!conv && strcmp(op, "bn_fwd") && strcmp(op, "bn_bwd") && strcmp(op, "chain") && strcmp(op, "chainrot") &&
                  strcmp(op, "bchainrot")) ||
        (!strcmp(op, "chain") && C != K)) {
        fprintf(stderr, "op_ab: bad arguments (C, H, K at least 1, CALLS at least 3)\n");
        return 2;
    }
    flce_backend *be = flce_backend_cpu(2);
    flce_conv_shape s;
    int R = getenv("R") ? atoi(getenv("R")) : 3; /* R=1: a 1x1 convolution without padding */
    flce_conv_shape_init(&s, N, C, H, H, K, R, getenv("STRIDE") ? atoi(getenv("STRIDE")) : 1, R / 2);
    size_t nx = (size_t)N * C * H * H, ny = (size_t)N * K * s.OH * s.OW, nw = (size_t)K * C * R * R;
    size_t nmax = nx > ny ? nx : ny;
    float *h = malloc(sizeof(float) * nmax);
    for (size_t i = 0; i < nmax; i++) h[i] = (float)((i * 2654435761u) % 1000) * 0.001f - 0.5f;
    flce_buf *x = be->buf_alloc(be, 4 * nx), *y = be->buf_alloc(be, 4 * ny), *w = be->buf_alloc(be, 4 * nw),
             *dw = be->buf_alloc(be, 4 * nw), *y2 = be->buf_alloc(be, 4 * nx), *x2 = be->buf_alloc(be, 4 * nx),
             *dx = be->buf_alloc(be, 4 * nx);
    flce_buf *st[8];
    for (int i = 0; i < 8; i++) st[i] = be->buf_alloc(be, 4 * (size_t)C); /* gamma beta mean invstd rm rv dg db */
    be->buf_write(be, x, 0, h, 4 * nx);
    be->buf_write(be, y, 0, h, 4 * ny);
    be->buf_write(be, w, 0, h, 4 * nw);
    be->buf_write(be, x2, 0, h, 4 * nx);
    be->buf_write(be, st[0], 0, h, 4 * (size_t)C);
    junk = calloc(njunk, sizeof(float));
    cold_x = HB_F(!strcmp(op, "conv_bwd_data") ? y : x);
    cold_c = !strcmp(op, "conv_bwd_data") ? (size_t)K : (size_t)C, cold_hw = (size_t)H * H;
    if (!conv || !strcmp(op, "bchainrot")) /* the statistics the backward reads */
        be->bn_fwd_train(be, N, C, H * H, 1e-5f, 0.1f, 1, x, st[0], st[1], y2, st[2], st[3], st[4], st[5]);
    double flops = 2.0 * (double)nw * s.OH * s.OW * N, sum[2] = {0, 0}, best[2] = {1e9, 1e9};
    for (int r = 0; r < calls; r++)
        for (int k = 0; k < 2; k++) {
            int v = r & 1 ? 1 - k : k;
            flce_cpu_ab = v ? bv : 0;
            if (narrow_ab) flce_cpu_narrow = v;
            if (cold) make_cold();
            double t0 = now();
            if (!strcmp(op, "conv_fwd")) be->conv2d_fwd(be, &s, x, w, y);
            else if (!strcmp(op, "conv_bwd_data")) be->conv2d_bwd_data(be, &s, y, w, dx);
            else if (!strcmp(op, "conv_bwd_weight")) be->conv2d_bwd_weight(be, &s, x, y, dw);
            else if (!strcmp(op, "chain")) { /* a stage's forward: conv, BatchNorm with ReLU, conv */
                be->conv2d_fwd(be, &s, x, w, y);
                be->bn_fwd_train(be, N, C, H * H, 1e-5f, 0.1f, 1, y, st[0], st[1], y2, st[2], st[3], st[4], st[5]);
                be->conv2d_fwd(be, &s, y2, w, x2);
            } else if (!strcmp(op, "chainrot")) { /* the same over ROT buffer sets in turn */
                flce_buf **b = rot_set(be, nx, h, 2 * r + k, getenv("ROTAB") && !v);
                be->conv2d_fwd(be, &s, b[0], w, b[1]);
                be->bn_fwd_train(be, N, C, H * H, 1e-5f, 0.1f, 1, b[1], st[0], st[1], b[2], st[2], st[3], st[4], st[5]);
                be->conv2d_fwd(be, &s, b[2], w, b[0]);
            } else if (!strcmp(op, "bchainrot")) { /* a layer's backward over ROT buffer sets in turn */
                flce_buf **b = rot_set(be, nx, h, 2 * r + k, getenv("ROTAB") && !v);
                be->bn_bwd(be, N, C, H * H, b[1], b[0], b[2], st[2], st[0], st[3], b[3], st[6], st[7]);
                be->conv2d_bwd_weight(be, &s, b[2], b[3], dw);
                be->conv2d_bwd_data(be, &s, b[3], w, b[0]);
            } else if (!strcmp(op, "bn_fwd"))
                be->bn_fwd_train(be, N, C, H * H, 1e-5f, 0.1f, 1, x, st[0], st[1], y2, st[2], st[3], st[4], st[5]);
            else be->bn_bwd(be, N, C, H * H, y2, x2, x, st[2], st[0], st[3], dx, st[6], st[7]);
            be->sync(be);
            double d = now() - t0;
            if (r < 2) continue;
            sum[v] += d;
            if (d < best[v]) best[v] = d;
        }
    if (be->status != FLCE_OK) {
        fprintf(stderr, "op_ab: the backend failed: %s\n", be->error.msg);
        return 1;
    }
    for (int v = 0; v < 2; v++) {
        printf("%s %s c%d %dx%d k%d: mean %.3f ms, best %.3f ms", v ? "B" : "A", op, C, H, H, K, 1e3 * sum[v] / (calls - 2),
               1e3 * best[v]);
        if (conv) printf(" (%.1f GFLOP/s)", 1e-9 * flops / best[v]);
        printf("\n");
    }
    printf("B / A (means): %.3f\n", sum[1] / sum[0]);
    be->destroy(be);
    return 0;
}
