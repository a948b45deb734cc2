/* bw_probe.c: two threads each stream-read their half of a buffer of MB megabytes five times
 * (8-wide vector adds into one accumulator) and print the last pass's GB/s of each: memory
 * bandwidth a core against the caches' (docs/performance.md, 2026-11-30, twenty-fourth session).
 * One accumulator limits the loop itself to about one vector per add latency, which is what the
 * cache-resident sizes show. Not part of the build: a measurement tool.
 *   gcc -O2 -mavx2 -o /tmp/bw_probe tools/bw_probe.c -lpthread && for m in 1 16 256; do /tmp/bw_probe $m; done */
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static float *buf;
static size_t n;
static double gbs[2];
static void *reader(void *a) {
    int t = (int)(long)a;
    size_t lo = n * (size_t)t / 2, hi = n * (size_t)(t + 1) / 2;
    __m256 s = _mm256_setzero_ps();
    for (int r = 0; r < 5; r++) {
        double t0 = now();
        for (size_t i = lo; i < hi; i += 8) s = _mm256_add_ps(s, _mm256_loadu_ps(buf + i));
        if (r == 4) gbs[t] = (double)(hi - lo) * 4 / (now() - t0) / 1e9;
    }
    float o[8];
    _mm256_storeu_ps(o, s);
    return (void *)(long)(o[0] > 1e30f);
}
int main(int argc, char **argv) {
    size_t mb = argc > 1 ? (size_t)atoi(argv[1]) : 256;
    n = mb * (1u << 20) / 4;
    if (!mb || !(buf = aligned_alloc(64, n * 4))) {
        fprintf(stderr, "usage: bw_probe MB (a positive size that fits in memory)\n");
        return 2;
    }
    for (size_t i = 0; i < n; i++) buf[i] = 1.0f;
    pthread_t th[2];
    for (long t = 0; t < 2; t++) pthread_create(&th[t], NULL, reader, (void *)t);
    for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
    printf("%zu MB: %.1f and %.1f GB/s\n", mb, gbs[0], gbs[1]);
    free(buf);
    return 0;
}
