/* parallel.h: one loop spread over threads, for the server's equations (completion folds and
 * classes). Each index runs exactly once, on some thread, with nothing shared but what fn's
 * context gives it: a caller that writes index i's result into slot i and combines the slots in
 * index order afterwards gets the same bits for any number of threads. */
#ifndef FLCE_PARALLEL_H
#define FLCE_PARALLEL_H

typedef void (*flce_task_fn)(void *ctx, int i);

/* fn(ctx, i) for i in 0..n-1 on up to `threads` threads (0: one per online CPU; the caller's
 * thread is one of them); returns when all are done. Falls back to fewer threads (at least the
 * caller's) when a thread cannot be started. */
void flce_parallel_for(int n, int threads, flce_task_fn fn, void *ctx);
/* The number of online CPUs (at least 1, at most 64). */
int flce_cpu_count(void);

#endif
