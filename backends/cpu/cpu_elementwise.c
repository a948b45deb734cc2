/* cpu_elementwise.c: the CPU backend's memory-bound ops (ReLU, add, their gradients, global
 * average pooling): split across the pool, 8-wide, in the order of reference/ops.h. */
#include "fmath.h"
#include "cpu_int.h"

/* ---- memory-bound ops: split across the pool, 8-wide, same order as the reference ---- */
typedef struct {
    size_t n;
    const float *a, *b;
    float *y;
    int relu;
    const float *c; /* add_relu_bwd: the ReLU's output */
} ew_job;

static void ew_range(size_t n, int part, int parts, size_t *lo, size_t *hi) {
    size_t per = (n / (size_t)parts + 7) / 8 * 8;
    *lo = per * (size_t)part;
    *hi = *lo + per;
    if (*lo > n) *lo = n;
    if (*hi > n || part == parts - 1) *hi = n;
}

static void relu_fwd_part(void *arg, int part, int parts) {
    ew_job *j = arg;
    size_t lo, hi, i;
    ew_range(j->n, part, parts, &lo, &hi);
    v8 z = bc(0.0f);
    for (i = lo; i + 8 <= hi; i += 8) {
        v8 x = ld(j->a + i);
        stv(j->y + i, (v8)((__typeof__(x > z))(x > z) & (__typeof__(x > z))x));
    }
    for (; i < hi; i++) j->y[i] = j->a[i] > 0.0f ? j->a[i] : 0.0f;
}

static void relu_bwd_part(void *arg, int part, int parts) { /* a = y, b = dy */
    ew_job *j = arg;
    size_t lo, hi, i;
    ew_range(j->n, part, parts, &lo, &hi);
    v8 z = bc(0.0f);
    for (i = lo; i + 8 <= hi; i += 8) {
        v8 y = ld(j->a + i), d = ld(j->b + i);
        stv(j->y + i, (v8)((__typeof__(y > z))(y > z) & (__typeof__(y > z))d));
    }
    for (; i < hi; i++) j->y[i] = j->a[i] > 0.0f ? j->b[i] : 0.0f;
}

static void add_part(void *arg, int part, int parts) {
    ew_job *j = arg;
    size_t lo, hi, i;
    ew_range(j->n, part, parts, &lo, &hi);
    v8 z = bc(0.0f);
    if (j->relu)
        for (i = lo; i + 8 <= hi; i += 8) {
            v8 s = ld(j->a + i) + ld(j->b + i);
            stv(j->y + i, (v8)((__typeof__(s > z))(s > z) & (__typeof__(s > z))s));
        }
    else
        for (i = lo; i + 8 <= hi; i += 8) stv(j->y + i, ld(j->a + i) + ld(j->b + i));
    for (; i < hi; i++) {
        float s = j->a[i] + j->b[i];
        j->y[i] = j->relu && !(s > 0.0f) ? 0.0f : s;
    }
}

static void add_relu_bwd_part(void *arg, int part, int parts) { /* c = y */
    ew_job *j = arg;
    size_t lo, hi, i;
    ew_range(j->n, part, parts, &lo, &hi);
    v8 z = bc(0.0f);
    for (i = lo; i + 8 <= hi; i += 8) {
        v8 s = ld(j->a + i) + ld(j->b + i), y = ld(j->c + i);
        stv(j->y + i, (v8)((__typeof__(y > z))(y > z) & (__typeof__(y > z))s));
    }
    for (; i < hi; i++) {
        float s = j->a[i] + j->b[i];
        j->y[i] = j->c[i] > 0.0f ? s : 0.0f;
    }
}

static int ew_parts(flce_backend *be, size_t n) { return n < 32768 ? 1 : nthreads(be); }

void c_relu_fwd(flce_backend *be, size_t n, const flce_buf *x, flce_buf *y) {
    ew_job j = {n, HB_CF(x), NULL, HB_F(y), 0, NULL};
    PROF_BEGIN(be);
    pool_run(&ctx_of(be)->pool, relu_fwd_part, &j, ew_parts(be, n));
    PROF_END(be, "relu_fwd n%zu", n);
}
void c_relu_bwd(flce_backend *be, size_t n, const flce_buf *y, const flce_buf *dy, flce_buf *dx) {
    ew_job j = {n, HB_CF(y), HB_CF(dy), HB_F(dx), 0, NULL};
    PROF_BEGIN(be);
    pool_run(&ctx_of(be)->pool, relu_bwd_part, &j, ew_parts(be, n));
    PROF_END(be, "relu_bwd n%zu", n);
}
void c_add(flce_backend *be, size_t n, int relu, const flce_buf *a, const flce_buf *b, flce_buf *y) {
    ew_job j = {n, HB_CF(a), HB_CF(b), HB_F(y), relu, NULL};
    PROF_BEGIN(be);
    pool_run(&ctx_of(be)->pool, add_part, &j, ew_parts(be, n));
    PROF_END(be, "add%s n%zu", relu ? "+relu" : "", n);
}
void c_add_relu_bwd(flce_backend *be, size_t n, const flce_buf *a, const flce_buf *b, const flce_buf *y,
                           flce_buf *dx) {
    ew_job j = {n, HB_CF(a), HB_CF(b), HB_F(dx), 0, HB_CF(y)};
    PROF_BEGIN(be);
    pool_run(&ctx_of(be)->pool, add_relu_bwd_part, &j, ew_parts(be, n));
    PROF_END(be, "add+relu_bwd n%zu", n);
}

/* Global average pooling (ref_avgpool_fwd, ref_avgpool_bwd), split across the pool by ranges of
 * planes (n C + c), which are the halves of the batch the ops before and after it split by
 * elements (each core reads what it wrote). Forward: each plane's sum over i ascending from +0,
 * times recip(HW), as the reference; eight planes at a time, so that eight independent chains
 * run (one plane's 49 dependent adds are latency-bound). Backward: dx = dz recip(HW) over the
 * plane, 8-wide. Before 2026-11-30 the reference's loops on the calling thread: the backward's
 * worker then read half of its dy from the other core (relu_bwd's worker waited for it 4x as long
 * as the caller worked). */
typedef struct {
    int HW;
    size_t planes;
    const float *x;
    float *y;
} pool_job;

static void avgpool_fwd_part(void *arg, int part, int parts) {
    const pool_job *j = arg;
    size_t lo = j->planes * (size_t)part / (size_t)parts, hi = j->planes * (size_t)(part + 1) / (size_t)parts, p = lo;
    int HW = j->HW;
    float inv = fm_recip((float)HW);
    for (; p + 8 <= hi; p += 8) {
        const float *x = j->x + p * (size_t)HW;
        float acc[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
        for (int i = 0; i < HW; i++)
            for (int q = 0; q < 8; q++) acc[q] = acc[q] + x[(size_t)q * HW + i];
        for (int q = 0; q < 8; q++) j->y[p + q] = acc[q] * inv;
    }
    for (; p < hi; p++) {
        const float *x = j->x + p * (size_t)HW;
        float acc = 0.0f;
        for (int i = 0; i < HW; i++) acc = acc + x[i];
        j->y[p] = acc * inv;
    }
}

static void avgpool_bwd_part(void *arg, int part, int parts) {
    const pool_job *j = arg;
    size_t lo = j->planes * (size_t)part / (size_t)parts, hi = j->planes * (size_t)(part + 1) / (size_t)parts;
    int HW = j->HW;
    float inv = fm_recip((float)HW);
    for (size_t p = lo; p < hi; p++) {
        float v = j->x[p] * inv, *dx = j->y + p * (size_t)HW;
        v8 vv = bc(v);
        int i = 0;
        for (; i + 8 <= HW; i += 8) stv(dx + i, vv);
        for (; i < HW; i++) dx[i] = v;
    }
}

static int pool_parts(flce_backend *be, int N, size_t n) { return n < 32768 || N < 2 ? 1 : nthreads(be); }

void c_avgpool_fwd(flce_backend *be, int N, int C, int HW, const flce_buf *x, flce_buf *z) {
    pool_job j = {HW, (size_t)N * C, HB_CF(x), HB_F(z)};
    PROF_BEGIN(be);
    pool_run(&ctx_of(be)->pool, avgpool_fwd_part, &j, pool_parts(be, N, (size_t)N * C * HW));
    PROF_END(be, "avgpool_fwd c%d hw%d", C, HW);
}
void c_avgpool_bwd(flce_backend *be, int N, int C, int HW, const flce_buf *dz, flce_buf *dx) {
    pool_job j = {HW, (size_t)N * C, HB_CF(dz), HB_F(dx)};
    PROF_BEGIN(be);
    pool_run(&ctx_of(be)->pool, avgpool_bwd_part, &j, pool_parts(be, N, (size_t)N * C * HW));
    PROF_END(be, "avgpool_bwd c%d hw%d", C, HW);
}
