/* backend_mode.c: a host backend (reference or CPU) computing in the flush-to-zero mode of the
 * float contract: every op of the inner backend runs with the calling thread's FTZ and DAZ
 * bits set and restored after (the CPU backend's pool workers take the caller's mode for each
 * task). Buffers are the inner backend's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "denormals.h"

typedef struct {
    flce_backend *in;
} wrap_ctx;

#define IN(be) (((wrap_ctx *)(be)->ctx)->in)
#define RUN(be, call)                                           \
    do {                                                        \
        unsigned saved_ = flce_fp_enter(FLCE_DENORM_FTZ);       \
        IN(be)->call;                                           \
        flce_fp_leave(saved_);                                  \
    } while (0)

static flce_buf *w_alloc(flce_backend *be, size_t bytes) { return IN(be)->buf_alloc(IN(be), bytes); }
static void w_free(flce_backend *be, flce_buf *b) { IN(be)->buf_free(IN(be), b); }
static void w_write(flce_backend *be, flce_buf *b, size_t o, const void *s, size_t n) { IN(be)->buf_write(IN(be), b, o, s, n); }
static void w_read(flce_backend *be, const flce_buf *b, size_t o, void *d, size_t n) { IN(be)->buf_read(IN(be), b, o, d, n); }
static void w_sync(flce_backend *be) { IN(be)->sync(IN(be)); }
static void w_destroy(flce_backend *be) {
    IN(be)->destroy(IN(be));
    free(be->ctx);
    free(be);
}
static void w_conv_fwd(flce_backend *be, const flce_conv_shape *s, const flce_buf *x, const flce_buf *w, flce_buf *y) {
    RUN(be, conv2d_fwd(IN(be), s, x, w, y));
}
static void w_conv_bd(flce_backend *be, const flce_conv_shape *s, const flce_buf *dy, const flce_buf *w, flce_buf *dx) {
    RUN(be, conv2d_bwd_data(IN(be), s, dy, w, dx));
}
static void w_conv_bw(flce_backend *be, const flce_conv_shape *s, const flce_buf *x, const flce_buf *dy, flce_buf *dw) {
    RUN(be, conv2d_bwd_weight(IN(be), s, x, dy, dw));
}
static void w_bn_train(flce_backend *be, int N, int C, int HW, float eps, float mom, int relu, const flce_buf *x,
                       const flce_buf *g, const flce_buf *b, flce_buf *y, flce_buf *mean, flce_buf *invstd, flce_buf *rm,
                       flce_buf *rv) {
    RUN(be, bn_fwd_train(IN(be), N, C, HW, eps, mom, relu, x, g, b, y, mean, invstd, rm, rv));
}
static void w_bn_train_res(flce_backend *be, int N, int C, int HW, float eps, float mom, const flce_buf *x, const flce_buf *g,
                           const flce_buf *b, const flce_buf *r, flce_buf *y, flce_buf *mean, flce_buf *invstd, flce_buf *rm,
                           flce_buf *rv) {
    RUN(be, bn_fwd_train_res(IN(be), N, C, HW, eps, mom, x, g, b, r, y, mean, invstd, rm, rv));
}
static void w_bn_eval(flce_backend *be, int N, int C, int HW, float eps, const flce_buf *x, const flce_buf *g, const flce_buf *b,
                      const flce_buf *rm, const flce_buf *rv, flce_buf *y) {
    RUN(be, bn_fwd_eval(IN(be), N, C, HW, eps, x, g, b, rm, rv, y));
}
static void w_bn_bwd(flce_backend *be, int N, int C, int HW, const flce_buf *yr, const flce_buf *dy, const flce_buf *x,
                     const flce_buf *mean, const flce_buf *g, const flce_buf *invstd, flce_buf *dx, flce_buf *dg, flce_buf *db) {
    RUN(be, bn_bwd(IN(be), N, C, HW, yr, dy, x, mean, g, invstd, dx, dg, db));
}
static void w_relu_fwd(flce_backend *be, size_t n, const flce_buf *x, flce_buf *y) { RUN(be, relu_fwd(IN(be), n, x, y)); }
static void w_relu_bwd(flce_backend *be, size_t n, const flce_buf *y, const flce_buf *dy, flce_buf *dx) {
    RUN(be, relu_bwd(IN(be), n, y, dy, dx));
}
static void w_add(flce_backend *be, size_t n, int relu, const flce_buf *a, const flce_buf *b, flce_buf *y) {
    RUN(be, add(IN(be), n, relu, a, b, y));
}
static void w_add_relu_bwd(flce_backend *be, size_t n, const flce_buf *a, const flce_buf *b, const flce_buf *y, flce_buf *dx) {
    RUN(be, add_relu_bwd(IN(be), n, a, b, y, dx));
}
static void w_pool_fwd(flce_backend *be, int N, int C, int HW, const flce_buf *x, flce_buf *z) {
    RUN(be, avgpool_fwd(IN(be), N, C, HW, x, z));
}
static void w_pool_bwd(flce_backend *be, int N, int C, int HW, const flce_buf *dz, flce_buf *dx) {
    RUN(be, avgpool_bwd(IN(be), N, C, HW, dz, dx));
}
static void w_lin_fwd(flce_backend *be, int N, int I, int O, const flce_buf *x, const flce_buf *w, const flce_buf *b, flce_buf *y) {
    RUN(be, linear_fwd(IN(be), N, I, O, x, w, b, y));
}
static void w_lin_bwd(flce_backend *be, int N, int I, int O, const flce_buf *x, const flce_buf *w, const flce_buf *dy,
                      flce_buf *dx, flce_buf *dw, flce_buf *db) {
    RUN(be, linear_bwd(IN(be), N, I, O, x, w, dy, dx, dw, db));
}
static void w_softmax_ce(flce_backend *be, int N, int C, const flce_buf *l, const flce_buf *y, flce_buf *loss, flce_buf *dl,
                         flce_buf *pred) {
    RUN(be, softmax_ce(IN(be), N, C, l, y, loss, dl, pred));
}
static void w_supcon(flce_backend *be, int N, int D, float tau, float lambda, const flce_buf *z, const flce_buf *y, flce_buf *loss,
                     flce_buf *dz) {
    RUN(be, supcon(IN(be), N, D, tau, lambda, z, y, loss, dz));
}
static void w_sgd(flce_backend *be, size_t n, float lr, float mom, float wd, int first, flce_buf *w, const flce_buf *g,
                  flce_buf *m) {
    RUN(be, sgd(IN(be), n, lr, mom, wd, first, w, g, m));
}
static void w_wsum(flce_backend *be, size_t n, int K, const float *a, const flce_buf *const *xs, flce_buf *y) {
    RUN(be, weighted_sum(IN(be), n, K, a, xs, y));
}

flce_backend *flce_backend_ftz(flce_backend *in) {
    flce_backend *be = calloc(1, sizeof *be);
    wrap_ctx *c = calloc(1, sizeof *c);
    if (!be || !c) {
        free(be), free(c);
        return NULL;
    }
    c->in = in;
    be->ctx = c;
    be->name = in->name;
    be->ftz = 1;
    snprintf(be->device, sizeof be->device, "%.140s; denormals ftz", in->device);
    be->buf_alloc = w_alloc, be->buf_free = w_free, be->buf_write = w_write, be->buf_read = w_read, be->sync = w_sync;
    be->destroy = w_destroy;
    be->conv2d_fwd = w_conv_fwd, be->conv2d_bwd_data = w_conv_bd, be->conv2d_bwd_weight = w_conv_bw;
    be->bn_fwd_train = w_bn_train, be->bn_fwd_train_res = w_bn_train_res, be->bn_fwd_eval = w_bn_eval, be->bn_bwd = w_bn_bwd;
    be->relu_fwd = w_relu_fwd, be->relu_bwd = w_relu_bwd, be->add = w_add, be->add_relu_bwd = w_add_relu_bwd;
    be->avgpool_fwd = w_pool_fwd, be->avgpool_bwd = w_pool_bwd, be->linear_fwd = w_lin_fwd, be->linear_bwd = w_lin_bwd;
    be->softmax_ce = w_softmax_ce, be->supcon = w_supcon, be->sgd = w_sgd, be->weighted_sum = w_wsum;
    return be;
}
