/* model.h: ResNet20 with 1x1-convolution shortcuts (the FLCE paper's model) built from
 * the backend ops: forward and backward, SGD, evaluation, He-normal initialisation from
 * the seeded generator, and safetensors checkpoints with PyTorch's tensor names.
 *
 *   conv1 3x3 (in -> 16), bn1, relu
 *   layer1: 3 basic blocks 16 -> 16;  layer2: 3 blocks 16 -> 32 (the first with stride 2
 *   and a 1x1 convolution + BatchNorm shortcut);  layer3: 3 blocks 32 -> 64 (likewise)
 *   global average pooling -> z (64-d, the representation for prototypes and L_CL)
 *   linear 64 -> classes
 * 272,474 trainable parameters for 3x32x32 inputs and 10 classes; 278,324 for 100. */
#ifndef FLCE_MODEL_H
#define FLCE_MODEL_H

#include "backend.h"

#define FLCE_MAX_PARAMS 128
#define FLCE_FEAT 64

typedef struct {
    char name[64];       /* PyTorch state_dict name */
    int ndim;
    int64_t shape[4];
    size_t n;            /* elements */
    int trainable;       /* 0: BatchNorm running statistics */
    flce_buf *w, *g, *m; /* value, gradient, momentum (m allocated on first use) */
} flce_param;

typedef struct {
    int w;                  /* param index of the weight */
    flce_conv_shape s;
} flce_conv_l;

typedef struct {
    int g, b, rm, rv;       /* param indices: weight, bias, running_mean, running_var */
    int C, HW;
    int64_t tracked;        /* num_batches_tracked */
    flce_buf *x;            /* the input of the last training forward (a convolution's output) */
    flce_buf *mean, *invstd; /* its batch statistics [C], for the backward pass */
} flce_bn_l;

typedef struct {
    flce_conv_l c1, c2, sc;
    flce_bn_l b1, b2, sb;
    int has_sc;
    size_t in_n, out_n;     /* activation elements for the model's batch */
    flce_buf *a1, *r1, *a2, *y2, *sa, *out; /* out = relu(y2 + shortcut) */
} flce_block;

typedef struct {
    flce_backend *be;
    int in_c, in_h, in_w, classes, batch; /* batch: the most samples one call may take */
    int nparams;
    flce_param p[FLCE_MAX_PARAMS];
    flce_conv_l conv1;
    flce_bn_l bn1;
    flce_block blk[9];
    int lin_w, lin_b;
    int cur_n;              /* samples of the last forward */
    flce_buf *x, *labels, *a0, *r0, *z, *logits, *dlogits, *dz, *dz2, *loss, *loss_cl, *pred;
    flce_buf *d[4];         /* backward scratch, each of the largest activation size */
    size_t max_act;
} flce_model;

/* Build the model for inputs in_c x in_h x in_w and `classes` outputs, with buffers for up
 * to `batch` samples, on backend be. Parameters are zero until init or load. */
flce_status flce_model_create(flce_model *m, flce_backend *be, int in_c, int in_h, int in_w, int classes, int batch,
                              flce_err *e);
void flce_model_free(flce_model *m);
/* He-normal (fan-in, ReLU gain) convolution and linear weights from the stream
 * (seed, init, 0, param index); linear bias 0; BatchNorm weight 1, bias 0, running (0, 1). */
void flce_model_init(flce_model *m, uint64_t seed);
int64_t flce_model_count_trainable(const flce_model *m);
int64_t flce_model_count_all(const flce_model *m); /* with running statistics */

typedef struct {
    float loss, loss_ce, loss_cl;
} flce_losses;

/* One training-mode forward and backward on n samples x [n, C, H, W], labels [n]:
 * L = L_CE + lambda L_CL (L_CL skipped when lambda is 0); gradients land in p[i].g;
 * BatchNorm running statistics are updated as in PyTorch. */
flce_status flce_model_forward_backward(flce_model *m, int n, const float *x, const int32_t *labels, float lambda,
                                        float tau, flce_losses *out, flce_err *e);
/* The same in two halves, for losses on z computed by the caller: a training-mode
 * forward (z and logits readable), then the backward of L_CE + lambda L_CL plus
 * extra_dz [n, 64] (host, may be NULL) added to dL/dz. */
flce_status flce_model_forward_train(flce_model *m, int n, const float *x, const int32_t *labels, flce_err *e);
void flce_model_backward(flce_model *m, float lambda, float tau, const float *extra_dz, flce_losses *out);
/* The gradients of every trainable parameter clipped to a total L2 norm of max_norm
 * (ref_clip_grad_norm, through the host); the norm before, or -1 when out of memory. */
double flce_model_clip(flce_model *m, double max_norm, flce_err *e);
/* SGD on every trainable parameter (first: the first step of this optimiser). */
void flce_model_sgd(flce_model *m, float lr, float momentum, float wd, int first);
/* Evaluation-mode forward (running statistics) of n samples: logits [n, classes] and
 * features z [n, 64] into host arrays (either may be NULL). */
flce_status flce_model_eval(flce_model *m, int n, const float *x, float *logits, float *z, flce_err *e);

/* Read the logits [cur_n, classes] / features [cur_n, 64] of the last forward. */
void flce_model_read_logits(flce_model *m, float *out);
void flce_model_read_features(flce_model *m, float *out);

/* All values (trainable and running statistics) as one flat vector in parameter order,
 * and back; flce_model_state_size gives its length. */
size_t flce_model_state_size(const flce_model *m);
void flce_model_get_state(flce_model *m, float *out);
void flce_model_set_state(flce_model *m, const float *in);
/* xxh3-64 of every parameter's value (or gradient) bytes, in parameter order. */
uint64_t flce_model_digest(flce_model *m, int grads);

/* safetensors with PyTorch names (plus bn*.num_batches_tracked as int64 scalars). */
flce_status flce_model_save(flce_model *m, const char *path, flce_err *e);
/* Strict load: every tensor of the model must be present with its shape (num_batches_tracked
 * optional), and nothing else. */
flce_status flce_model_load(flce_model *m, const char *path, flce_err *e);
/* The input channels and classes a checkpoint's conv1.weight and linear.weight imply. */
flce_status flce_checkpoint_probe(const char *path, int *in_c, int *classes, flce_err *e);

/* Floating-point operations of one training step (forward + backward) per sample, and of
 * the forward alone, counting a multiply and an add as two. */
double flce_model_train_flops_per_sample(const flce_model *m);
/* ... of the forward pass alone (an evaluation). */
double flce_model_forward_flops_per_sample(const flce_model *m);

#endif
