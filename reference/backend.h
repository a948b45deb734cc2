/* backend.h: the backend interface: a struct of operation function pointers plus an
 * opaque context (after ggml-backend). A backend owns buffers and runs ops; it knows
 * nothing of federated learning. The interface belongs to the reference part; each backend
 * has its own header with its constructor (ref_backend.h, backends/cpu/cpu.h,
 * backends/vulkan/vulkan.h), and only the programs choose and create one (apps/backend_select.h). Every op has one documented summation order
 * (reference/ops.h), so every backend gives the same float32 bits (docs/bit-exact.md).
 *
 * Buffers are opaque handles; the host reads and writes them only through buf_read and
 * buf_write, so a device backend keeps parameters, activations and gradients on the device
 * for a whole training step. Integer buffers (labels, predictions) hold int32. */
#ifndef FLCE_BACKEND_H
#define FLCE_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "denormals.h"
#include "base.h"

/* The version of the bit-exact contract (docs/bit-exact.md) every backend follows: results
 * change only when it does. 1: K8 BatchNorm sums, denormals preserved. 2 (2026-11-26): K8C
 * (chunked, tree-combined) BatchNorm sums; the ftz mode beside preserve. */
#define FLCE_CONTRACT_VERSION 2

typedef struct flce_buf flce_buf;
typedef struct flce_backend flce_backend;

/* A 2-D convolution without bias: x [N, C, H, W], w [K, C, R, R], y [N, K, OH, OW],
 * OH = (H + 2 pad - R) / stride + 1. */
typedef struct {
    int N, C, H, W; /* input */
    int K, R;       /* output channels, kernel size (1 or 3) */
    int stride, pad;
    int OH, OW;     /* filled by flce_conv_shape_init */
} flce_conv_shape;

void flce_conv_shape_init(flce_conv_shape *s, int N, int C, int H, int W, int K, int R, int stride, int pad);

/* The ops, named once: the interface's function pointers (struct flce_backend), the op enum and
 * names, the start-up check that a backend has every op, and each backend's install are all
 * generated from this list (and a wrapper's forwarding, backend_mode.c). X(field, ENUM_SUFFIX,
 * (parameters), (argument names)). Every op returns void: a failure is recorded in the backend
 * (flce_backend_fail) and read with flce_backend_status. */
#define FLCE_BACKEND_OPS(X)                                                                              \
    /* convolution: forward, gradient of the input, gradient of the weights */                           \
    X(conv2d_fwd, CONV2D_FWD, (flce_backend *be, const flce_conv_shape *s, const flce_buf *x,            \
        const flce_buf *w, flce_buf *y), (be, s, x, w, y))                                               \
    X(conv2d_bwd_data, CONV2D_BWD_DATA, (flce_backend *be, const flce_conv_shape *s,                     \
        const flce_buf *dy, const flce_buf *w, flce_buf *dx), (be, s, dy, w, dx))                        \
    X(conv2d_bwd_weight, CONV2D_BWD_WEIGHT, (flce_backend *be, const flce_conv_shape *s,                 \
        const flce_buf *x, const flce_buf *dy, flce_buf *dw), (be, s, x, dy, dw))                        \
    /* BatchNorm2d over x [N, C, HW]: training (batch statistics; saves mean and invstd [C] for          \
     * the backward pass; updates running_mean/var [C] with momentum; relu = 1 fuses the ReLU            \
     * that follows: y = max(y, 0) as relu_fwd), evaluation, and backward (recomputes xhat from          \
     * x, mean and invstd; yr is the fused ReLU's output, whose mask applies to dy first, or             \
     * NULL when there was none) */                                                                      \
    X(bn_fwd_train, BN_FWD_TRAIN, (flce_backend *be, int N, int C, int HW, float eps,                    \
        float momentum, int relu, const flce_buf *x, const flce_buf *gamma, const flce_buf *beta,        \
        flce_buf *y, flce_buf *mean, flce_buf *invstd, flce_buf *running_mean,                           \
        flce_buf *running_var),                                                                          \
        (be, N, C, HW, eps, momentum, relu, x, gamma, beta, y, mean, invstd, running_mean, running_var)) \
    /* training, then a residual add and ReLU: y = max(bn(x) + r, 0), bit for bit bn_fwd_train           \
     * (relu = 0) followed by add (relu = 1) of r; the residual block's last BatchNorm (r is the         \
     * block's input or the other branch's BatchNorm output; r must not alias y) */                      \
    X(bn_fwd_train_res, BN_FWD_TRAIN_RES, (flce_backend *be, int N, int C, int HW, float eps,            \
        float momentum, const flce_buf *x, const flce_buf *gamma, const flce_buf *beta,                  \
        const flce_buf *r, flce_buf *y, flce_buf *mean, flce_buf *invstd, flce_buf *running_mean,        \
        flce_buf *running_var),                                                                          \
        (be, N, C, HW, eps, momentum, x, gamma, beta, r, y, mean, invstd, running_mean, running_var))    \
    X(bn_fwd_eval, BN_FWD_EVAL, (flce_backend *be, int N, int C, int HW, float eps, int relu,            \
        const flce_buf *x, const flce_buf *gamma, const flce_buf *beta,                                  \
        const flce_buf *running_mean, const flce_buf *running_var, flce_buf *y),                         \
        (be, N, C, HW, eps, relu, x, gamma, beta, running_mean, running_var, y))                         \
    /* the evaluation's convolution, BatchNorm (running statistics) and what follows, bit for bit        \
     * conv2d_fwd into y, bn_fwd_eval on y (relu fused only without r), then with r add (relu) of r:     \
     * y = [relu](bn(conv(x, w)) [+ r]); r (NULL: none) must not alias y; t (y's size) is scratch a      \
     * backend may use for the convolution's output (its contents afterwards unspecified) */             \
    X(conv2d_fwd_bn_eval, CONV2D_FWD_BN_EVAL, (flce_backend *be, const flce_conv_shape *s,               \
        const flce_buf *x, const flce_buf *w, float eps, const flce_buf *gamma, const flce_buf *beta,    \
        const flce_buf *running_mean, const flce_buf *running_var, const flce_buf *r, int relu,          \
        flce_buf *t, flce_buf *y),                                                                       \
        (be, s, x, w, eps, gamma, beta, running_mean, running_var, r, relu, t, y))                       \
    X(bn_bwd, BN_BWD, (flce_backend *be, int N, int C, int HW, const flce_buf *yr,                       \
        const flce_buf *dy, const flce_buf *x, const flce_buf *mean, const flce_buf *gamma,              \
        const flce_buf *invstd, flce_buf *dx, flce_buf *dgamma, flce_buf *dbeta),                        \
        (be, N, C, HW, yr, dy, x, mean, gamma, invstd, dx, dgamma, dbeta))                               \
    /* elementwise over n floats */                                                                      \
    X(relu_fwd, RELU_FWD, (flce_backend *be, size_t n, const flce_buf *x, flce_buf *y), (be, n, x, y))   \
    X(relu_bwd, RELU_BWD, (flce_backend *be, size_t n, const flce_buf *y, const flce_buf *dy,            \
        flce_buf *dx), (be, n, y, dy, dx))                                                               \
    /* y = a + b; relu = 1 fuses a ReLU: y = max(a + b, 0) as relu_fwd */                                \
    X(add, ADD, (flce_backend *be, size_t n, int relu, const flce_buf *a, const flce_buf *b,             \
        flce_buf *y), (be, n, relu, a, b, y))                                                            \
    /* dx = y > 0 ? a + b : 0, bit for bit add (relu = 0) then relu_bwd (y the ReLU's output): a         \
     * residual block's input gradient through the ReLU of the block before; dx may be a or b */         \
    X(add_relu_bwd, ADD_RELU_BWD, (flce_backend *be, size_t n, const flce_buf *a, const flce_buf *b,     \
        const flce_buf *y, flce_buf *dx), (be, n, a, b, y, dx))                                          \
    /* global average pooling x [N, C, HW] -> z [N, C] */                                                \
    X(avgpool_fwd, AVGPOOL_FWD, (flce_backend *be, int N, int C, int HW, const flce_buf *x,              \
        flce_buf *z), (be, N, C, HW, x, z))                                                              \
    X(avgpool_bwd, AVGPOOL_BWD, (flce_backend *be, int N, int C, int HW, const flce_buf *dz,             \
        flce_buf *dx), (be, N, C, HW, dz, dx))                                                           \
    /* linear y [N, O] = x [N, I] w^T + b, w [O, I] */                                                   \
    X(linear_fwd, LINEAR_FWD, (flce_backend *be, int N, int I, int O, const flce_buf *x,                 \
        const flce_buf *w, const flce_buf *b, flce_buf *y), (be, N, I, O, x, w, b, y))                   \
    X(linear_bwd, LINEAR_BWD, (flce_backend *be, int N, int I, int O, const flce_buf *x,                 \
        const flce_buf *w, const flce_buf *dy, flce_buf *dx, flce_buf *dw, flce_buf *db),                \
        (be, N, I, O, x, w, dy, dx, dw, db))                                                             \
    /* mean softmax cross-entropy of logits [N, C] against labels [N] (int32): loss [1],                 \
     * dlogits [N, C] (gradient of the mean), pred [N] (int32 argmax, first maximum) */                  \
    X(softmax_ce, SOFTMAX_CE, (flce_backend *be, int N, int C, const flce_buf *logits,                   \
        const flce_buf *labels, flce_buf *loss, flce_buf *dlogits, flce_buf *pred),                      \
        (be, N, C, logits, labels, loss, dlogits, pred))                                                 \
    /* supervised contrastive loss (eq:method.losscl) of z [N, D]: loss [1] and                          \
     * dz [N, D] = lambda * dL/dz */                                                                     \
    X(supcon, SUPCON, (flce_backend *be, int N, int D, float tau, float lambda, const flce_buf *z,       \
        const flce_buf *labels, flce_buf *loss, flce_buf *dz),                                           \
        (be, N, D, tau, lambda, z, labels, loss, dz))                                                    \
    /* SGD on n floats: g' = g + wd w; with momentum, m = first ? g' : momentum m + g', d = m;           \
     * else d = g'; w = w - lr d. mom may be NULL when momentum is 0. */                                 \
    X(sgd, SGD, (flce_backend *be, size_t n, float lr, float momentum, float wd, int first,              \
        flce_buf *w, const flce_buf *g, flce_buf *mom), (be, n, lr, momentum, wd, first, w, g, mom))     \
    /* y = sum_k a_k x_k over k ascending (aggregation of parameter vectors) */                          \
    X(weighted_sum, WEIGHTED_SUM, (flce_backend *be, size_t n, int K, const float *a,                    \
        const flce_buf *const *xs, flce_buf *y), (be, n, K, a, xs, y))                                   \


/* A row of a backend's own profile (flce_backend.profile): an op and its shape, the seconds and
 * calls so far, and the multiplies and adds of a convolution's calls (each one FLOP; 0 for other ops). */
typedef struct {
    char key[40];
    double sec, flops;
    long calls;
} flce_prof_row;

struct flce_backend {
    const char *name;  /* "reference", "cpu", "vulkan" */
    char device[160];  /* the device and driver, for start-up lines and reports */
    int ftz;           /* the denormal mode its ops compute in: 0 preserve, 1 ftz (docs/bit-exact.md) */
    char note[256];    /* a line for the program to show the user (e.g. "not bit-exact"); empty: none */
    void *ctx;         /* backend-specific */

    flce_buf *(*buf_alloc)(flce_backend *be, size_t bytes); /* zeroed; NULL on failure */
    void (*buf_free)(flce_backend *be, flce_buf *b);
    void (*buf_write)(flce_backend *be, flce_buf *b, size_t offset, const void *src, size_t bytes);
    void (*buf_read)(flce_backend *be, const flce_buf *b, size_t offset, void *dst, size_t bytes);
    void (*sync)(flce_backend *be); /* wait until every op issued so far has finished */
    void (*destroy)(flce_backend *be);
    /* Optional (NULL: none): the backend's profile so far (the CPU backend's with FLCE_CPU_PROFILE
     * set), at most max rows into rows; returns how many (0: not profiling). */
    int (*profile)(const flce_backend *be, flce_prof_row *rows, int max);

    flce_status status; /* the first failure of an op (FLCE_OK: none); later ops do nothing */
    flce_err error;     /* its one-line description */

#define FLCE_OP_FIELD(name, NAME, params, args) void(*name) params;
    FLCE_BACKEND_OPS(FLCE_OP_FIELD)
#undef FLCE_OP_FIELD
};

/* A host backend (reference or CPU) whose ops run with FTZ and DAZ set (backend_mode.c); it
 * owns `in` and destroys it with itself. NULL when out of memory. */
flce_backend *flce_backend_ftz(flce_backend *in);

/* The ops as an enum (FLCE_OP_CONV2D_FWD, ...) and their names ("conv2d_fwd"). */
typedef enum {
#define FLCE_OP_ENUM(name, NAME, params, args) FLCE_OP_##NAME,
    FLCE_BACKEND_OPS(FLCE_OP_ENUM)
#undef FLCE_OP_ENUM
    FLCE_OP_COUNT
} flce_op;
const char *flce_op_name(flce_op op);
/* The first op a backend lacks (its name), or NULL when it has all: backends call it when they
 * are created and refuse to start without every op. */
const char *flce_backend_missing_op(const flce_backend *be);
/* Record a failure of an op (the first one counts; later ones are dropped). Ops after a failure
 * do nothing; a backend whose device is lost stays failed. */
void flce_backend_fail(flce_backend *be, flce_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* FLCE_OK, or the first failure (its message into e, when e is not NULL). */
flce_status flce_backend_status(const flce_backend *be, flce_err *e);

#endif
