/* pool.c: see pool.h. Between calls a worker first spins for a few microseconds (the next op
 * usually follows at once: a training step issues a few hundred), then sleeps on a condition
 * variable; the caller waits for the workers the same way. */
#include "pool.h"

#include <stdlib.h>

#include "denormals.h"

#define SPIN 5000 /* pause instructions before sleeping: about 50 microseconds here (11 ns each) */

static int spin_limit(void) {
    static int v = -1;
    if (v < 0) {
        const char *e = getenv("FLCE_POOL_SPIN");
        v = e ? atoi(e) : SPIN;
    }
    return v;
}

static void *worker(void *a) {
    struct pool_worker *w = a;
    pool *p = w->p;
    uint64_t seen = 0;
    for (;;) {
        for (int i = 0, n = spin_limit(); i < n && atomic_load(&p->gen) == seen && !atomic_load(&p->quit); i++)
            __builtin_ia32_pause();
        pthread_mutex_lock(&p->mu);
        while (p->gen == seen && !p->quit) pthread_cond_wait(&p->start, &p->mu);
        if (p->quit) {
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        seen = p->gen;
        pool_fn fn = p->fn;
        void *arg = p->arg;
        int parts = p->parts;
        unsigned csr = p->csr;
        pthread_mutex_unlock(&p->mu);
        /* the caller's floating-point mode (denormals: preserve or ftz) for this task, then back */
        unsigned saved = flce_fp_get();
        if (saved != csr) flce_fp_set(csr);
        for (int part = w->id + 1; part < parts; part += p->workers + 1) fn(arg, part, parts);
        if (saved != csr) flce_fp_set(saved);
        pthread_mutex_lock(&p->mu);
        if (--p->pending == 0) pthread_cond_signal(&p->done);
        pthread_mutex_unlock(&p->mu);
    }
}

void pool_init(pool *p, int threads) {
    p->workers = 0;
    p->gen = 0;
    p->pending = 0;
    p->quit = 0;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->start, NULL);
    pthread_cond_init(&p->done, NULL);
    for (int i = 0; i < threads - 1 && i < 15; i++) {
        p->wa[i] = (struct pool_worker){p, i};
        if (pthread_create(&p->th[i], NULL, worker, &p->wa[i]) != 0) break;
        p->workers++;
    }
}

void pool_run(pool *p, pool_fn fn, void *arg, int parts) {
    if (parts <= 1 || p->workers == 0) {
        for (int part = 0; part < parts; part++) fn(arg, part, parts);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->arg = arg;
    p->parts = parts;
    p->csr = flce_fp_get();
    p->pending = p->workers;
    p->gen++;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->mu);
    for (int part = 0; part < parts; part += p->workers + 1) fn(arg, part, parts);
    for (int i = 0, n = spin_limit(); i < n && atomic_load(&p->pending) > 0; i++) __builtin_ia32_pause();
    pthread_mutex_lock(&p->mu);
    while (p->pending > 0) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

void pool_destroy(pool *p) {
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->workers; i++) pthread_join(p->th[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->start);
    pthread_cond_destroy(&p->done);
}
