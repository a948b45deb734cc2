/* core_latency.c: the round trip of a cache line between the two threads of this process (two
 * threads hand a counter back and forth 200,000 times; the mean time of one round trip), to tell
 * which state a 2-vCPU machine is in: on the AMD EPYC Zen 4 of 2026-11-30 it read 55-145 ns while
 * `flce-bench train` ran at 62-69% of the peak and 320-410 ns while it ran at 50-55%, switching
 * every few seconds (docs/performance.md, twenty-second session). Not part of the build.
 *   gcc -O2 -o /tmp/core_latency tools/core_latency.c -lpthread && /tmp/core_latency */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#define TRIPS 200000
static _Atomic int flag __attribute__((aligned(64)));

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *other(void *arg) {
    (void)arg;
    for (int i = 0; i < TRIPS; i++) {
        while (atomic_load_explicit(&flag, memory_order_acquire) != 2 * i + 1) {
        }
        atomic_store_explicit(&flag, 2 * i + 2, memory_order_release);
    }
    return NULL;
}

int main(void) {
    pthread_t t;
    if (pthread_create(&t, NULL, other, NULL)) {
        fprintf(stderr, "core_latency: cannot start a thread\n");
        return 1;
    }
    double t0 = now();
    for (int i = 0; i < TRIPS; i++) {
        atomic_store_explicit(&flag, 2 * i + 1, memory_order_release);
        while (atomic_load_explicit(&flag, memory_order_acquire) != 2 * i + 2) {
        }
    }
    double t1 = now();
    pthread_join(t, NULL);
    printf("%.0f ns a round trip between the two threads\n", (t1 - t0) / TRIPS * 1e9);
    return 0;
}
