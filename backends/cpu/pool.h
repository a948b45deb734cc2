/* pool.h: a fixed set of worker threads for the CPU backend. pool_run(fn, arg, parts)
 * calls fn(arg, part, parts) for every part, part 0 on the caller, and returns when all
 * are done. Parts must touch disjoint outputs; which thread runs a part never changes a
 * result: workers run each part in the caller's floating-point mode (denormals preserved or
 * flushed, docs/bit-exact.md) and restore their own after. */
#ifndef FLCE_POOL_H
#define FLCE_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

typedef void (*pool_fn)(void *arg, int part, int parts);

typedef struct pool pool;
struct pool_worker {
    pool *p;
    int id; /* this worker runs parts id + 1, id + 1 + (workers + 1), ... */
};

struct pool {
    int workers; /* threads besides the caller */
    pthread_t th[15];
    struct pool_worker wa[15];
    pthread_mutex_t mu;
    pthread_cond_t start, done;
    _Atomic uint64_t gen; /* written under mu; read by spinning workers without it */
    atomic_int pending, quit;
    pool_fn fn;
    void *arg;
    int parts;
    unsigned csr; /* the caller's floating-point control (MXCSR): workers run its parts in it */
};

/* Start threads - 1 workers (fewer when the system refuses; work then runs on the caller). */
void pool_init(pool *p, int threads);
void pool_run(pool *p, pool_fn fn, void *arg, int parts);
void pool_destroy(pool *p);

#endif
