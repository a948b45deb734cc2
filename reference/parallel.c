/* parallel.c: flce_parallel_for (parallel.h): the indices handed out one at a time from a shared
 * counter, so a slow index does not hold up the others. */
#include "parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

typedef struct {
    atomic_int next;
    int n;
    flce_task_fn fn;
    void *ctx;
} loop;

static void *worker(void *p) {
    loop *L = p;
    for (int i; (i = atomic_fetch_add(&L->next, 1)) < L->n;) L->fn(L->ctx, i);
    return NULL;
}

int flce_cpu_count(void) {
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c < 1 ? 1 : c > 64 ? 64 : (int)c;
}

void flce_parallel_for(int n, int threads, flce_task_fn fn, void *ctx) {
    if (threads <= 0) threads = flce_cpu_count();
    if (threads > n) threads = n;
    if (threads > 64) threads = 64;
    loop L = {.n = n, .fn = fn, .ctx = ctx};
    atomic_init(&L.next, 0);
    pthread_t th[64];
    int started = 0;
    for (int i = 1; i < threads; i++, started++)
        if (pthread_create(&th[started], NULL, worker, &L) != 0) break;
    worker(&L);
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
}
