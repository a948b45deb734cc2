/* conv_peak.c: each 3x3 stride-1 convolution pass of ResNet20's three stages (16 channels 28x28,
 * 32 at 14x14, 64 at 7x7; forward, input and weight gradients) timed alone through the CPU
 * backend, 2 threads, batch 64, 20 calls back to back (its data hot), each timing right after a
 * measurement of the mul+add peak (bench/peak.c, as flce-bench train measures it): the median and
 * range over REPS timings of each one's fraction of its own peak. Beside `FLCE_CPU_PROFILE=1
 * flce-bench train`'s table (the same passes inside the step) it separates what the op loses by
 * itself from what it loses in the step (docs/performance.md, twentieth session). Not part of the
 * build: a measurement tool.
 *   gcc -O2 -mavx2 -I reference -I base -I backends/cpu -I bench -o /tmp/conv_peak tools/conv_peak.c \
 *     bench/peak.c build/libflce_cpu.a build/libflce_reference.a build/libflce_base.a -lpthread -lm
 *   /tmp/conv_peak [REPS]     (default 5, at most 64) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "backend.h"
#include "cpu.h"
#include "hostbuf.h"
#include "peak.h"
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv) {
    int N = 64, reps = argc > 1 ? atoi(argv[1]) : 5;
    if (reps < 1 || reps > 64) {
        fprintf(stderr, "conv_peak: REPS must be 1 to 64\n");
        return 2;
    }
    int shapes[3][2] = {{16, 28}, {32, 14}, {64, 7}};
    flce_backend *be = flce_backend_cpu(2);
    if (!be) return 1;
    for (int sh = 0; sh < 3; sh++) {
        int C = shapes[sh][0], H = shapes[sh][1];
        flce_conv_shape s;
        flce_conv_shape_init(&s, N, C, H, H, C, 3, 1, 1);
        size_t nx = (size_t)N * C * H * H, nw = (size_t)C * C * 9;
        float *h = malloc(4 * nx);
        for (size_t i = 0; i < nx; i++) h[i] = (float)((i * 2654435761u) % 1000) * 0.001f - 0.5f;
        flce_buf *x = be->buf_alloc(be, 4 * nx), *y = be->buf_alloc(be, 4 * nx), *w = be->buf_alloc(be, 4 * nw), *dw = be->buf_alloc(be, 4 * nw), *dx = be->buf_alloc(be, 4 * nx);
        be->buf_write(be, x, 0, h, 4 * nx); be->buf_write(be, y, 0, h, 4 * nx); be->buf_write(be, w, 0, h, 4 * nw);
        double flops = 2.0 * nw * H * H * N;
        for (int op = 0; op < 3; op++) {
            double fr[64], gf[64];
            for (int r = 0; r < reps; r++) {
                double pk = flce_peak_gflops(2);
                double t0 = now();
                for (int k = 0; k < 20; k++) {
                    if (op == 0) be->conv2d_fwd(be, &s, x, w, y);
                    else if (op == 1) be->conv2d_bwd_data(be, &s, y, w, dx);
                    else be->conv2d_bwd_weight(be, &s, x, y, dw);
                }
                double t = (now() - t0) / 20;
                gf[r] = flops / t * 1e-9; fr[r] = gf[r] / pk;
            }
            qsort(fr, reps, sizeof *fr, cmp); qsort(gf, reps, sizeof *gf, cmp);
            printf("%-16s c%d %dx%d: %.1f GFLOP/s, %.1f%% of the peak before it (median of %d; range %.1f-%.1f%%)\n",
                   op == 0 ? "conv_fwd" : op == 1 ? "conv_bwd_data" : "conv_bwd_weight", C, H, H, gf[reps / 2], 100 * fr[reps / 2], reps, 100 * fr[0], 100 * fr[reps - 1]);
        }
        flce_buf *all[] = {x, y, w, dw, dx};
        for (int i = 0; i < 5; i++) be->buf_free(be, all[i]);
        free(h);
    }
    int bad = be->status != FLCE_OK;
    if (bad) fprintf(stderr, "conv_peak: the backend failed: %s\n", be->error.msg);
    be->destroy(be);
    return bad;
}
