/* split_read_probe.c: what BatchNorm's split costs when the convolutions split the batch by
 * samples (docs/performance.md, 2026-11-30). Two threads each write half the samples of a
 * [64][16][784] tensor (as the forward convolution leaves it), then read it back: mode 0 by
 * samples (each thread its own half, three reads and one write, as BatchNorm split by chunks of
 * the batch does), mode 1 by channels (one channel at a time, read once from both halves and
 * twice from a contiguous copy, one write, as the channel split did). Prints the mean time of a
 * pass; run it beside tools/core_latency.c, which tells this machine's two states apart. Not
 * part of the build:
 *   gcc -O2 -mavx512f -o /tmp/split_read_probe tools/split_read_probe.c -lpthread
 *   /tmp/split_read_probe 0; /tmp/split_read_probe 1 */
#include <immintrin.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 64
#define C 16
#define HW 784
static float *x, *y;
static atomic_int bar;
static int mode;
static double sink[2], tsum[2], tcnt[2];

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
static void barrier(int gen) {
    atomic_fetch_add(&bar, 1);
    while (atomic_load(&bar) < 2 * gen) _mm_pause();
}
static void *run(void *a) {
    int t = (int)(long)a, gen = 0;
    static _Thread_local float buf[N * HW];
    for (int rep = 0; rep < 200; rep++) {
        for (int n = t * 32; n < t * 32 + 32; n++) /* this thread's samples, written */
            for (int i = 0; i < C * HW; i++) x[(size_t)n * C * HW + i] = (float)(n + i + rep);
        barrier(++gen);
        double t0 = now();
        __m512 s = _mm512_setzero_ps();
        if (mode == 0) {
            for (int r = 0; r < 3; r++)
                for (int n = t * 32; n < t * 32 + 32; n++)
                    for (int i = 0; i < C * HW; i += 16) s = _mm512_add_ps(s, _mm512_loadu_ps(x + (size_t)n * C * HW + i));
            for (int n = t * 32; n < t * 32 + 32; n++)
                for (int i = 0; i < C * HW; i += 16)
                    _mm512_storeu_ps(y + (size_t)n * C * HW + i, _mm512_loadu_ps(x + (size_t)n * C * HW + i));
        } else
            for (int c = t * 8; c < t * 8 + 8; c++) {
                for (int n = 0; n < N; n++)
                    for (int i = 0; i < HW; i += 16) {
                        __m512 v = _mm512_loadu_ps(x + ((size_t)n * C + c) * HW + i);
                        s = _mm512_add_ps(s, v);
                        _mm512_storeu_ps(buf + n * HW + i, v);
                    }
                for (int r = 0; r < 2; r++)
                    for (int i = 0; i < N * HW; i += 16) s = _mm512_add_ps(s, _mm512_loadu_ps(buf + i));
                for (int n = 0; n < N; n++)
                    for (int i = 0; i < HW; i += 16) _mm512_storeu_ps(y + ((size_t)n * C + c) * HW + i, _mm512_loadu_ps(buf + n * HW + i));
            }
        sink[t] += _mm512_reduce_add_ps(s);
        double t1 = now();
        barrier(++gen);
        if (rep >= 20) tsum[t] += t1 - t0, tcnt[t]++;
    }
    return NULL;
}
int main(int argc, char **argv) {
    mode = argc > 1 ? atoi(argv[1]) : 0;
    x = aligned_alloc(64, (size_t)N * C * HW * 4);
    y = aligned_alloc(64, (size_t)N * C * HW * 4);
    if (!x || !y) return 1;
    pthread_t th;
    pthread_create(&th, 0, run, (void *)1L);
    run(0);
    pthread_join(th, 0);
    printf("mode %d (%s): %.1f us a pass (thread 0 %.1f, thread 1 %.1f)\n", mode, mode ? "by channels" : "by samples",
           1e6 * (tsum[0] + tsum[1]) / (tcnt[0] + tcnt[1]), 1e6 * tsum[0] / tcnt[0], 1e6 * tsum[1] / tcnt[1]);
    return 0;
}
