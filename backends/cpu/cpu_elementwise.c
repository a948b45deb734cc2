/* cpu_elementwise.c: the CPU backend's memory-bound ops (ReLU, add, their gradients): split
 * across the pool, 8-wide, in the order of reference/ops.h. */
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
