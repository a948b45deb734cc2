/* backend.h: the backend interface: a struct of operation function pointers plus an
 * opaque context (after ggml-backend). A backend owns buffers and runs ops; it knows
 * nothing of federated learning. Every op has one documented summation order
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
#include "flce.h"

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

struct flce_backend {
    const char *name;  /* "reference", "cpu", "vulkan" */
    char device[160];  /* the device and driver, for start-up lines and reports */
    int ftz;           /* the denormal mode its ops compute in: 0 preserve, 1 ftz (docs/bit-exact.md) */
    void *ctx;         /* backend-specific */

    flce_buf *(*buf_alloc)(flce_backend *be, size_t bytes); /* zeroed; NULL on failure */
    void (*buf_free)(flce_backend *be, flce_buf *b);
    void (*buf_write)(flce_backend *be, flce_buf *b, size_t offset, const void *src, size_t bytes);
    void (*buf_read)(flce_backend *be, const flce_buf *b, size_t offset, void *dst, size_t bytes);
    void (*sync)(flce_backend *be); /* wait until every op issued so far has finished */
    void (*destroy)(flce_backend *be);

    /* convolution: forward, gradient of the input, gradient of the weights */
    void (*conv2d_fwd)(flce_backend *be, const flce_conv_shape *s, const flce_buf *x, const flce_buf *w, flce_buf *y);
    void (*conv2d_bwd_data)(flce_backend *be, const flce_conv_shape *s, const flce_buf *dy, const flce_buf *w,
                            flce_buf *dx);
    void (*conv2d_bwd_weight)(flce_backend *be, const flce_conv_shape *s, const flce_buf *x, const flce_buf *dy,
                              flce_buf *dw);
    /* BatchNorm2d over x [N, C, HW]: training (batch statistics; saves mean and invstd [C] for
     * the backward pass; updates running_mean/var [C] with momentum; relu = 1 fuses the ReLU
     * that follows: y = max(y, 0) as relu_fwd), evaluation, and backward (recomputes xhat from
     * x, mean and invstd; yr is the fused ReLU's output, whose mask applies to dy first, or
     * NULL when there was none) */
    void (*bn_fwd_train)(flce_backend *be, int N, int C, int HW, float eps, float momentum, int relu, const flce_buf *x,
                         const flce_buf *gamma, const flce_buf *beta, flce_buf *y, flce_buf *mean, flce_buf *invstd,
                         flce_buf *running_mean, flce_buf *running_var);
    /* training, then a residual add and ReLU: y = max(bn(x) + r, 0), bit for bit bn_fwd_train
     * (relu = 0) followed by add (relu = 1) of r; the residual block's last BatchNorm (r is the
     * block's input or the other branch's BatchNorm output; r must not alias y) */
    void (*bn_fwd_train_res)(flce_backend *be, int N, int C, int HW, float eps, float momentum, const flce_buf *x,
                             const flce_buf *gamma, const flce_buf *beta, const flce_buf *r, flce_buf *y, flce_buf *mean,
                             flce_buf *invstd, flce_buf *running_mean, flce_buf *running_var);
    void (*bn_fwd_eval)(flce_backend *be, int N, int C, int HW, float eps, const flce_buf *x, const flce_buf *gamma,
                        const flce_buf *beta, const flce_buf *running_mean, const flce_buf *running_var, flce_buf *y);
    void (*bn_bwd)(flce_backend *be, int N, int C, int HW, const flce_buf *yr, const flce_buf *dy, const flce_buf *x,
                   const flce_buf *mean, const flce_buf *gamma, const flce_buf *invstd, flce_buf *dx, flce_buf *dgamma,
                   flce_buf *dbeta);
    /* elementwise over n floats */
    void (*relu_fwd)(flce_backend *be, size_t n, const flce_buf *x, flce_buf *y);
    void (*relu_bwd)(flce_backend *be, size_t n, const flce_buf *y, const flce_buf *dy, flce_buf *dx);
    /* y = a + b; relu = 1 fuses a ReLU: y = max(a + b, 0) as relu_fwd */
    void (*add)(flce_backend *be, size_t n, int relu, const flce_buf *a, const flce_buf *b, flce_buf *y);
    /* dx = y > 0 ? a + b : 0, bit for bit add (relu = 0) then relu_bwd (y the ReLU's output): a
     * residual block's input gradient through the ReLU of the block before; dx may be a or b */
    void (*add_relu_bwd)(flce_backend *be, size_t n, const flce_buf *a, const flce_buf *b, const flce_buf *y,
                         flce_buf *dx);
    /* global average pooling x [N, C, HW] -> z [N, C] */
    void (*avgpool_fwd)(flce_backend *be, int N, int C, int HW, const flce_buf *x, flce_buf *z);
    void (*avgpool_bwd)(flce_backend *be, int N, int C, int HW, const flce_buf *dz, flce_buf *dx);
    /* linear y [N, O] = x [N, I] w^T + b, w [O, I] */
    void (*linear_fwd)(flce_backend *be, int N, int I, int O, const flce_buf *x, const flce_buf *w, const flce_buf *b,
                       flce_buf *y);
    void (*linear_bwd)(flce_backend *be, int N, int I, int O, const flce_buf *x, const flce_buf *w,
                       const flce_buf *dy, flce_buf *dx, flce_buf *dw, flce_buf *db);
    /* mean softmax cross-entropy of logits [N, C] against labels [N] (int32): loss [1],
     * dlogits [N, C] (gradient of the mean), pred [N] (int32 argmax, first maximum) */
    void (*softmax_ce)(flce_backend *be, int N, int C, const flce_buf *logits, const flce_buf *labels,
                       flce_buf *loss, flce_buf *dlogits, flce_buf *pred);
    /* supervised contrastive loss (eq:method.losscl) of z [N, D]: loss [1] and
     * dz [N, D] = lambda * dL/dz */
    void (*supcon)(flce_backend *be, int N, int D, float tau, float lambda, const flce_buf *z,
                   const flce_buf *labels, flce_buf *loss, flce_buf *dz);
    /* SGD on n floats: g' = g + wd w; with momentum, m = first ? g' : momentum m + g', d = m;
     * else d = g'; w = w - lr d. mom may be NULL when momentum is 0. */
    void (*sgd)(flce_backend *be, size_t n, float lr, float momentum, float wd, int first, flce_buf *w,
                const flce_buf *g, flce_buf *mom);
    /* y = sum_k a_k x_k over k ascending (aggregation of parameter vectors) */
    void (*weighted_sum)(flce_backend *be, size_t n, int K, const float *a, const flce_buf *const *xs, flce_buf *y);
};

/* The backends compiled in. */
flce_backend *flce_backend_reference(void);
flce_backend *flce_backend_cpu(int threads);
/* The Vulkan backend (built when FLCE_HAVE_VULKAN): the device named by
 * flce_vulkan_select (from --device) or the environment variable FLCE_VK_DEVICE (an index or
 * part of the name), else the best device, a real GPU before a CPU implementation. NULL and
 * a one-line error where there is no loader, no device, or the device fails the start-up
 * probe of the float contract. */
flce_backend *flce_backend_vulkan(flce_err *e);
/* The same in a given denormal mode (auto: the device's own; refused when the device cannot
 * compute in the mode asked for bit for bit). */
flce_backend *flce_backend_vulkan_mode(flce_denorm_mode mode, flce_err *e);
void flce_vulkan_select(const char *spec);
/* 1 when a Vulkan GPU (not a CPU implementation) is present; desc lists the devices seen. */
int flce_vulkan_gpu(char *desc, size_t cap);
/* Warnings and errors reported by the validation layer so far (FLCE_VK_VALIDATION=1). */
long flce_vulkan_validation_messages(void);
/* The GLSL math library on the device: out[6 i + 0..5] = recip(x_i), div(x_i, y_i),
 * rsqrt(x_i), sqrt(x_i), exp(x_i), log(x_i) (for the C-against-GLSL identity check). */
flce_status flce_vulkan_fmath(flce_backend *be, const float *x, const float *y, size_t n, float *out, flce_err *e);

/* By name: "reference", "cpu", "vulkan", or "auto": Vulkan where a GPU is present, else the
 * CPU backend after one line on stderr saying why (NULL and error when unknown or
 * unavailable). flce_backend_create_mode also takes the denormal mode: preserve, ftz, or auto
 * (what the device does: preserve on the host; the probe's finding on a Vulkan device). */
flce_backend *flce_backend_create(const char *name, flce_err *e);
flce_backend *flce_backend_create_mode(const char *name, flce_denorm_mode mode, flce_err *e);
/* A host backend (reference or CPU) whose ops run with FTZ and DAZ set (backend_mode.c); it
 * owns `in` and destroys it with itself. NULL when out of memory. */
flce_backend *flce_backend_ftz(flce_backend *in);
/* 1 when name is one of flce_backend_names(). */
int flce_backend_known(const char *name);
/* The names this build accepts, for messages: "reference, cpu, vulkan, auto". */
const char *flce_backend_names(void);

#endif
