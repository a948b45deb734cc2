/* ref_backend.c: the reference backend: host buffers and the plain loops of ops.c. The
 * cross-check harness and the tests hold every other backend against it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif

#include "hostbuf.h"
#include "ops.h"
#include "ref_backend.h"

flce_buf *flce_hostbuf_alloc(flce_backend *be, size_t bytes);
void flce_hostbuf_free(flce_backend *be, flce_buf *b);
void flce_hostbuf_write(flce_backend *be, flce_buf *b, size_t off, const void *src, size_t bytes);
void flce_hostbuf_read(flce_backend *be, const flce_buf *b, size_t off, void *dst, size_t bytes);

flce_buf *flce_hostbuf_alloc(flce_backend *be, size_t bytes) {
    (void)be;
    if (bytes > SIZE_MAX - 128) return NULL;
    flce_buf *b = malloc(sizeof *b);
    if (!b) return NULL;
    /* zeroed by calloc, which touches no page the system hands over zeroed (a large buffer):
     * a page of a buffer sized for the largest batch is faulted in only where a batch uses it
     * (a 2 MiB page, where the system has them: flce_huge) */
    size_t round = bytes ? (bytes + 63) / 64 * 64 : 64; /* the last 64 bytes whole and zero, as before */
    b->base = flce_huge(calloc(1, round + 64), round + 64);
    if (!b->base) {
        free(b);
        return NULL;
    }
    b->p = (void *)(((uintptr_t)b->base + 63) / 64 * 64);
    b->bytes = bytes;
#ifdef __SANITIZE_ADDRESS__ /* the slack around the buffer stays out of reach, as an exact allocation's would */
    ASAN_POISON_MEMORY_REGION(b->base, (size_t)((char *)b->p - (char *)b->base));
    ASAN_POISON_MEMORY_REGION((char *)b->p + round, (size_t)((char *)b->base + round + 64 - ((char *)b->p + round)));
#endif
    return b;
}

void flce_hostbuf_free(flce_backend *be, flce_buf *b) {
    (void)be;
    if (!b) return;
    free(b->base);
    free(b);
}

void flce_hostbuf_write(flce_backend *be, flce_buf *b, size_t off, const void *src, size_t bytes) {
    (void)be;
    memcpy((char *)b->p + off, src, bytes);
}

void flce_hostbuf_read(flce_backend *be, const flce_buf *b, size_t off, void *dst, size_t bytes) {
    (void)be;
    memcpy(dst, (const char *)b->p + off, bytes);
}

static void nop_sync(flce_backend *be) { (void)be; }
static void ref_destroy(flce_backend *be) { (void)be; }

static void r_conv2d_fwd(flce_backend *be, const flce_conv_shape *s, const flce_buf *x, const flce_buf *w, flce_buf *y) {
    (void)be;
    ref_conv2d_fwd(s, HB_CF(x), HB_CF(w), HB_F(y));
}
static void r_conv2d_bwd_data(flce_backend *be, const flce_conv_shape *s, const flce_buf *dy, const flce_buf *w,
                            flce_buf *dx) {
    (void)be;
    ref_conv2d_bwd_data(s, HB_CF(dy), HB_CF(w), HB_F(dx));
}
static void r_conv2d_bwd_weight(flce_backend *be, const flce_conv_shape *s, const flce_buf *x, const flce_buf *dy,
                              flce_buf *dw) {
    (void)be;
    ref_conv2d_bwd_weight(s, HB_CF(x), HB_CF(dy), HB_F(dw));
}
static void r_bn_fwd_train(flce_backend *be, int N, int C, int HW, float eps, float mom, int relu, const flce_buf *x,
                           const flce_buf *g, const flce_buf *b, flce_buf *y, flce_buf *mean, flce_buf *is,
                           flce_buf *rm, flce_buf *rv) {
    (void)be;
    ref_bn_fwd_train(N, C, HW, eps, mom, relu, HB_CF(x), HB_CF(g), HB_CF(b), HB_F(y), HB_F(mean), HB_F(is), HB_F(rm),
                     HB_F(rv));
}
static void r_bn_fwd_train_res(flce_backend *be, int N, int C, int HW, float eps, float mom, const flce_buf *x,
                               const flce_buf *g, const flce_buf *b, const flce_buf *r, flce_buf *y, flce_buf *mean,
                               flce_buf *is, flce_buf *rm, flce_buf *rv) {
    (void)be;
    ref_bn_fwd_train(N, C, HW, eps, mom, 0, HB_CF(x), HB_CF(g), HB_CF(b), HB_F(y), HB_F(mean), HB_F(is), HB_F(rm),
                     HB_F(rv));
    ref_add((size_t)N * C * HW, 1, HB_CF(y), HB_CF(r), HB_F(y));
}
static void r_bn_fwd_eval(flce_backend *be, int N, int C, int HW, float eps, int relu, const flce_buf *x, const flce_buf *g,
                          const flce_buf *b, const flce_buf *rm, const flce_buf *rv, flce_buf *y) {
    (void)be;
    ref_bn_fwd_eval(N, C, HW, eps, relu, HB_CF(x), HB_CF(g), HB_CF(b), HB_CF(rm), HB_CF(rv), HB_F(y));
}
static void r_conv2d_fwd_bn_eval(flce_backend *be, const flce_conv_shape *s, const flce_buf *x, const flce_buf *w,
                                 float eps, const flce_buf *g, const flce_buf *b, const flce_buf *rm,
                                 const flce_buf *rv, const flce_buf *r, int relu, flce_buf *t, flce_buf *y) {
    (void)be, (void)t;
    ref_conv2d_fwd_bn_eval(s, HB_CF(x), HB_CF(w), eps, HB_CF(g), HB_CF(b), HB_CF(rm), HB_CF(rv), r ? HB_CF(r) : NULL,
                           relu, HB_F(y));
}
static void r_bn_bwd(flce_backend *be, int N, int C, int HW, const flce_buf *yr, const flce_buf *dy, const flce_buf *x,
                     const flce_buf *mean, const flce_buf *g, const flce_buf *is, flce_buf *dx, flce_buf *dg,
                     flce_buf *db) {
    (void)be;
    ref_bn_bwd(N, C, HW, yr ? HB_CF(yr) : NULL, HB_CF(dy), HB_CF(x), HB_CF(mean), HB_CF(g), HB_CF(is), HB_F(dx), HB_F(dg),
               HB_F(db));
}
static void r_relu_fwd(flce_backend *be, size_t n, const flce_buf *x, flce_buf *y) {
    (void)be;
    ref_relu_fwd(n, HB_CF(x), HB_F(y));
}
static void r_relu_bwd(flce_backend *be, size_t n, const flce_buf *y, const flce_buf *dy, flce_buf *dx) {
    (void)be;
    ref_relu_bwd(n, HB_CF(y), HB_CF(dy), HB_F(dx));
}
static void r_add(flce_backend *be, size_t n, int relu, const flce_buf *a, const flce_buf *b, flce_buf *y) {
    (void)be;
    ref_add(n, relu, HB_CF(a), HB_CF(b), HB_F(y));
}
static void r_add_relu_bwd(flce_backend *be, size_t n, const flce_buf *a, const flce_buf *b, const flce_buf *y,
                           flce_buf *dx) {
    (void)be;
    ref_add(n, 0, HB_CF(a), HB_CF(b), HB_F(dx));
    ref_relu_bwd(n, HB_CF(y), HB_CF(dx), HB_F(dx));
}
static void r_avgpool_fwd(flce_backend *be, int N, int C, int HW, const flce_buf *x, flce_buf *z) {
    (void)be;
    ref_avgpool_fwd(N, C, HW, HB_CF(x), HB_F(z));
}
static void r_avgpool_bwd(flce_backend *be, int N, int C, int HW, const flce_buf *dz, flce_buf *dx) {
    (void)be;
    ref_avgpool_bwd(N, C, HW, HB_CF(dz), HB_F(dx));
}
static void r_linear_fwd(flce_backend *be, int N, int I, int O, const flce_buf *x, const flce_buf *w, const flce_buf *b,
                      flce_buf *y) {
    (void)be;
    ref_linear_fwd(N, I, O, HB_CF(x), HB_CF(w), HB_CF(b), HB_F(y));
}
static void r_linear_bwd(flce_backend *be, int N, int I, int O, const flce_buf *x, const flce_buf *w, const flce_buf *dy,
                      flce_buf *dx, flce_buf *dw, flce_buf *db) {
    (void)be;
    ref_linear_bwd(N, I, O, HB_CF(x), HB_CF(w), HB_CF(dy), HB_F(dx), HB_F(dw), HB_F(db));
}
static void r_softmax_ce(flce_backend *be, int N, int C, const flce_buf *l, const flce_buf *y, flce_buf *loss, flce_buf *dl,
                 flce_buf *pred) {
    (void)be;
    ref_softmax_ce(N, C, HB_CF(l), HB_CI(y), HB_F(loss), HB_F(dl), HB_I(pred));
}
static void r_supcon(flce_backend *be, int N, int D, float tau, float lambda, const flce_buf *z, const flce_buf *y,
                     flce_buf *loss, flce_buf *dz) {
    (void)be;
    ref_supcon(N, D, tau, lambda, HB_CF(z), HB_CI(y), HB_F(loss), HB_F(dz));
}
static void r_sgd(flce_backend *be, size_t n, float lr, float m, float wd, int first, flce_buf *w, const flce_buf *g,
                  flce_buf *mom) {
    (void)be;
    ref_sgd(n, lr, m, wd, first, HB_F(w), HB_CF(g), mom ? HB_F(mom) : NULL);
}
static void r_weighted_sum(flce_backend *be, size_t n, int K, const float *a, const flce_buf *const *xs, flce_buf *y) {
    (void)be;
    const float **ptr = malloc(sizeof *ptr * (size_t)(K > 0 ? K : 1));
    if (!ptr) return;
    for (int k = 0; k < K; k++) ptr[k] = HB_CF(xs[k]);
    ref_weighted_sum(n, K, a, ptr, HB_F(y));
    free(ptr);
}

/* Fill the host-buffer slots and the reference ops; the CPU backend overrides the fast ones. */
void flce_backend_fill_reference(flce_backend *be) {
    be->buf_alloc = flce_hostbuf_alloc;
    be->buf_free = flce_hostbuf_free;
    be->buf_write = flce_hostbuf_write;
    be->buf_read = flce_hostbuf_read;
    be->sync = nop_sync;
    be->destroy = ref_destroy;
#define REF_OP_SET(name, NAME, params, args) be->name = r_##name;
    FLCE_BACKEND_OPS(REF_OP_SET)
#undef REF_OP_SET
}

flce_backend *flce_backend_reference(void) {
    static flce_backend be;
    if (!be.name) {
        be.name = "reference";
        strcpy(be.device, "host (scalar reference loops)");
        flce_backend_fill_reference(&be);
    }
    return &be;
}
