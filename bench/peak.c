/* peak.c: the machine's measured peak for separate float32 multiplies and adds (no FMA,
 * as the bit-exact contract allows): independent chains of 8-wide vector mul and add on
 * every thread, so GFLOP/s of the training ops can be quoted as a fraction of it. */
#include "peak.h"

#include <pthread.h>

#include "util.h"

typedef float v8 __attribute__((vector_size(32)));

typedef struct {
    long iters;
    float sink;
} peak_job;

static void *peak_thread(void *arg) {
    peak_job *j = arg;
    volatile float vm = 0.99999994f, vn = 1.00000006f, vc = 1.5f;
    v8 m = {0}, n = {0}, c = {0};
    for (int i = 0; i < 8; i++) m[i] = vm, n[i] = vn, c[i] = vc;
    v8 a0 = m, a1 = n, a2 = m, a3 = n, a4 = m, a5 = n, b0 = c, b1 = m, b2 = n, b3 = c, b4 = m, b5 = n;
    for (long it = 0; it < j->iters; it++) { /* 12 mul + 12 add vectors per iteration */
        a0 = a0 * m; a1 = a1 * m; a2 = a2 * m; a3 = a3 * m; a4 = a4 * m; a5 = a5 * m;
        b0 = b0 + c; b1 = b1 + c; b2 = b2 + c; b3 = b3 + c; b4 = b4 + c; b5 = b5 + c;
        a0 = a0 * n; a1 = a1 * n; a2 = a2 * n; a3 = a3 * n; a4 = a4 * n; a5 = a5 * n;
        b0 = b0 - c; b1 = b1 - c; b2 = b2 - c; b3 = b3 - c; b4 = b4 - c; b5 = b5 - c;
    }
    v8 s = a0 + a1 + a2 + a3 + a4 + a5 + b0 + b1 + b2 + b3 + b4 + b5;
    j->sink = s[0] + s[7];
    return NULL;
}

double flce_peak_gflops(int threads) {
    if (threads < 1) threads = 1;
    if (threads > 64) threads = 64;
    peak_job jobs[64];
    pthread_t th[64];
    long iters = 20000000;
    double best = 0;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = bench_now();
        for (int i = 0; i < threads; i++) {
            jobs[i].iters = iters;
            pthread_create(&th[i], NULL, peak_thread, &jobs[i]);
        }
        for (int i = 0; i < threads; i++) pthread_join(th[i], NULL);
        double dt = bench_now() - t0;
        double g = (double)threads * (double)iters * 24.0 * 8.0 / dt * 1e-9;
        if (g > best) best = g;
    }
    return best;
}
