/* ops.h: the training ops as plain scalar loops on host arrays: the oracle of every
 * backend. Each op's comment states its one summation order; every backend follows it.
 * Float operations are + - * only, each rounded on its own; division, square roots, exp
 * and log come from base/fmath.h.
 *
 * "K8" is the compensated striped sum used by the long BatchNorm reductions: element j
 * goes to lane j mod 8; each lane keeps a sum s and an error sum c, and adds x in
 * increasing j by Knuth's TwoSum: t = s + x; z = t - s; c = c + ((s - (t - z)) + (x - z));
 * s = t (from s = c = +0). The total adds s_0..s_7 and then c_0..c_7 by the same steps
 * into one (S, C) pair and returns S + C. An 8-wide vector accumulator computes exactly
 * this. Plain float32 running sums over the 65,536 values of a BatchNorm channel lost
 * about 1e-3 of the gradient against PyTorch, which accumulates in float64.
 *
 * "K8C" (contract version 2, docs/bit-exact.md) is K8 in chunks, shaped for a GPU: the
 * elements are cut into chunks of 256 (element j in chunk j / 256); each chunk is a K8 state
 * of its own (lanes j mod 8, from +0); the chunks' states are combined lane by lane in a fixed
 * pairwise tree, comb((s1, c1), (s2, c2)) = (t, (c1 + c2) + e) where t = s1 + s2, z = t - s1,
 * e = (s1 - (t - z)) + (s2 - z) (TwoSum of the sums, error into the combined error sum): the
 * tree is the stride-doubling one (stride 1, 2, 4, ...: chunk q takes chunk q + stride when q
 * is a multiple of 2 stride and q + stride exists), which a running stack reproduces (push
 * each chunk; merge the top two while they are of equal height; at the end fold the stack
 * from the newest down). The root is totalled as K8's. Up to 256 elements it is exactly K8.
 * A GPU runs the chunks' 8 x 32-element chains in parallel instead of 8 chains of M / 8. */
#ifndef FLCE_OPS_H
#define FLCE_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"

/* y[n][k][oy][ox] = sum over ci, ky, kx (nested, ascending) of w[k][ci][ky][kx] * xp, where
 * xp = x[n][ci][oy s + ky - pad][ox s + kx - pad], or 0 outside the image (the product is
 * still added). */
void ref_conv2d_fwd(const flce_conv_shape *s, const float *x, const float *w, float *y);
/* dx[n][ci][iy][ix] = sum over ky, kx (ascending) of t(ky, kx), where for each (ky, kx)
 * with oy = (iy + pad - ky) / s and ox likewise integral and inside the output,
 * t = sum over k (ascending) of w[k][ci][ky][kx] * dy[n][k][oy][ox]; other (ky, kx) add
 * nothing. */
void ref_conv2d_bwd_data(const flce_conv_shape *s, const float *dy, const float *w, float *dx);
/* dw[k][ci][ky][kx] = sum over n (ascending) of t_n, where t_n = sum over oy, ox (nested,
 * ascending, from +0) of dy[n][k][oy][ox] * xp: a partial sum per sample keeps the
 * rounding error at (OH OW + N) ulp instead of N OH OW. */
void ref_conv2d_bwd_weight(const flce_conv_shape *s, const float *x, const float *dy, float *dw);

/* BatchNorm, per channel c over its M = N HW values (flat index n HW + i):
 *   invM = recip(M); mean = K8C(x) invM; var = K8C((x - mean)(x - mean)) invM;
 *   invstd = rsqrt(var + eps); xhat = (x - mean) invstd; y = xhat gamma + beta,
 *   and with relu = 1 the ReLU fused: y = y > 0 ? y : 0 (as ref_relu_fwd);
 *   running_mean = running_mean (1 - momentum) + mean momentum;
 *   running_var = running_var (1 - momentum) + (var M recip(M - 1)) momentum  (var if M = 1).
 * mean and invstd [C] are kept for the backward pass, which recomputes xhat from x with the
 * same two operations (so the same bits) instead of reading a stored copy. */
void ref_bn_fwd_train(int N, int C, int HW, float eps, float momentum, int relu, const float *x, const float *gamma,
                      const float *beta, float *y, float *mean, float *invstd, float *running_mean, float *running_var);
/* y = ((x - running_mean) rsqrt(running_var + eps)) gamma + beta; relu = 1 fuses the ReLU that
 * follows (y = o > 0 ? o : 0, as ref_relu_fwd) */
void ref_bn_fwd_eval(int N, int C, int HW, float eps, int relu, const float *x, const float *gamma, const float *beta,
                     const float *running_mean, const float *running_var, float *y);
/* The evaluation's convolution with its BatchNorm (running statistics) and what follows it, one
 * op: bit for bit ref_conv2d_fwd into y, then ref_bn_fwd_eval on y (the ReLU fused only without
 * r), then, with r, y = y + r and the ReLU where relu (ref_add): y [N, K, OH, OW], BatchNorm's
 * channels the K output channels; r (NULL: none) must not alias y. A fast backend computes the
 * three a sample at a time while the sample's output is still in cache. */
void ref_conv2d_fwd_bn_eval(const flce_conv_shape *s, const float *x, const float *w, float eps, const float *gamma,
                            const float *beta, const float *running_mean, const float *running_var, const float *r,
                            int relu, float *y);
/* The gradient through a fused ReLU (yr: its output; NULL when there is none) and BatchNorm:
 *   d = yr > 0 ? dy : 0 (d = dy without yr), xhat = (x - mean) invstd;
 *   dbeta = K8C(d); dgamma = K8C(d xhat); dx = ((gamma invstd) invM) ((M d - dbeta) - xhat dgamma) */
void ref_bn_bwd(int N, int C, int HW, const float *yr, const float *dy, const float *x, const float *mean,
                const float *gamma, const float *invstd, float *dx, float *dgamma, float *dbeta);
void ref_relu_fwd(size_t n, const float *x, float *y);                 /* y = x > 0 ? x : 0 */
void ref_relu_bwd(size_t n, const float *y, const float *dy, float *dx); /* dx = y > 0 ? dy : 0 */
void ref_add(size_t n, int relu, const float *a, const float *b, float *y); /* y = a + b; relu: then y > 0 ? y : 0 */
/* z[n][c] = (sum over i ascending of x[n][c][i]) recip(HW); dx = dz recip(HW) */
void ref_avgpool_fwd(int N, int C, int HW, const float *x, float *z);
void ref_avgpool_bwd(int N, int C, int HW, const float *dz, float *dx);
/* y[n][o] = (sum over i ascending of w[o][i] x[n][i]) + b[o];
 * dx[n][i] = sum over o of w[o][i] dy[n][o]; dw[o][i] = sum over n of dy[n][o] x[n][i];
 * db[o] = sum over n of dy[n][o] (all ascending) */
void ref_linear_fwd(int N, int I, int O, const float *x, const float *w, const float *b, float *y);
void ref_linear_bwd(int N, int I, int O, const float *x, const float *w, const float *dy, float *dx, float *dw,
                    float *db);
/* per sample: m = max; e_j = exp(l_j - m); s = sum e (ascending); lse = m + log(s);
 * loss_n = lse - l_y; dl_j = (e_j recip(s) - [j = y]) recip(N); loss = (sum loss_n) recip(N) */
void ref_softmax_ce(int N, int C, const float *logits, const int32_t *labels, float *loss, float *dlogits,
                    int32_t *pred);
/* eq:method.losscl in float32, following flce_supcon_loss (reference/flce_eq.c) step by
 * step: dz = lambda dL/dz. */
void ref_supcon(int N, int D, float tau, float lambda, const float *z, const int32_t *labels, float *loss, float *dz);
void ref_sgd(size_t n, float lr, float momentum, float wd, int first, float *w, const float *g, float *mom);
void ref_weighted_sum(size_t n, int K, const float *a, const float *const *xs, float *y);
/* Gradient clipping by the total norm (the released code's clip_grad_norm_, max 100): the
 * gradients g [np][n_i] of every trainable parameter, their L2 norm over all of them
 * (sqrt of the float64 sum of squares, parameters and elements in order), and where it exceeds
 * max_norm each gradient scaled by c = (float)(max_norm / (norm + 1e-6)), g = g * c in float32.
 * Host arithmetic, so the same bits whatever backend holds the gradients. Returns the norm. */
double ref_clip_grad_norm(int np, float *const *g, const size_t *n, double max_norm);


/* The K8 sum of x[0..n), exposed for tests; and the K8C sum. */
float ref_sum8(const float *x, size_t n);
float ref_sum8c(const float *x, size_t n);

/* K8 state and its steps (shared by the reference loops; backends follow them lane by lane). */
typedef struct {
    float s[8], c[8];
} ref_k8;
static inline void ref_twosum(float *s, float *c, float x) {
    float t = *s + x;
    float z = t - *s;
    *c = *c + ((*s - (t - z)) + (x - z));
    *s = t;
}
static inline void ref_k8_add(ref_k8 *k, int lane, float x) { ref_twosum(&k->s[lane], &k->c[lane], x); }
static inline float ref_k8_total(const ref_k8 *k) {
    float s = 0.0f, c = 0.0f;
    for (int l = 0; l < 8; l++) ref_twosum(&s, &c, k->s[l]);
    for (int l = 0; l < 8; l++) ref_twosum(&s, &c, k->c[l]);
    return s + c;
}

/* K8C (above): the running state of one sum. */
#define REF_K8C_CHUNK 256
#define REF_K8C_DEPTH 40
typedef struct {
    ref_k8 cur;                /* the chunk being filled */
    size_t count;              /* elements added so far */
    int depth;                 /* states on the stack */
    ref_k8 st[REF_K8C_DEPTH];  /* finished chunks and merged subtrees, oldest first */
    uint8_t lvl[REF_K8C_DEPTH]; /* their heights (a chunk: 0) */
} ref_k8c;
/* a <- comb(a, b), lane by lane */
static inline void ref_k8_comb(ref_k8 *a, const ref_k8 *b) {
    for (int l = 0; l < 8; l++) {
        float t = a->s[l] + b->s[l];
        float z = t - a->s[l];
        float e = (a->s[l] - (t - z)) + (b->s[l] - z);
        a->c[l] = (a->c[l] + b->c[l]) + e;
        a->s[l] = t;
    }
}
static inline void ref_k8c_push(ref_k8c *k, const ref_k8 *chunk) {
    k->st[k->depth] = *chunk;
    k->lvl[k->depth++] = 0;
    while (k->depth >= 2 && k->lvl[k->depth - 1] == k->lvl[k->depth - 2]) {
        ref_k8_comb(&k->st[k->depth - 2], &k->st[k->depth - 1]);
        k->lvl[k->depth - 2]++;
        k->depth--;
    }
}
static inline void ref_k8c_init(ref_k8c *k) {
    for (int l = 0; l < 8; l++) k->cur.s[l] = 0.0f, k->cur.c[l] = 0.0f;
    k->count = 0;
    k->depth = 0;
}
static inline void ref_k8c_add(ref_k8c *k, float x) {
    ref_k8_add(&k->cur, (int)(k->count & 7), x);
    if (++k->count % REF_K8C_CHUNK == 0) {
        ref_k8c_push(k, &k->cur);
        for (int l = 0; l < 8; l++) k->cur.s[l] = 0.0f, k->cur.c[l] = 0.0f;
    }
}
/* The total (the state is spent). */
static inline float ref_k8c_total(ref_k8c *k) {
    if (k->count % REF_K8C_CHUNK || k->count == 0) ref_k8c_push(k, &k->cur);
    ref_k8 acc = k->st[k->depth - 1];
    for (int i = k->depth - 2; i >= 0; i--) {
        ref_k8 t = k->st[i];
        ref_k8_comb(&t, &acc);
        acc = t;
    }
    return ref_k8_total(&acc);
}

#endif
