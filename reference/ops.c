/* ops.c: the training ops as plain scalar loops (see ops.h for each op's order). */
#include "ops.h"
#include <math.h>

#include <stdlib.h>
#include <string.h>

#include "fmath.h"

void flce_conv_shape_init(flce_conv_shape *s, int N, int C, int H, int W, int K, int R, int stride, int pad) {
    s->N = N, s->C = C, s->H = H, s->W = W, s->K = K, s->R = R, s->stride = stride, s->pad = pad;
    s->OH = (H + 2 * pad - R) / stride + 1;
    s->OW = (W + 2 * pad - R) / stride + 1;
}

static float xpad(const flce_conv_shape *s, const float *x, int n, int c, int iy, int ix) {
    if (iy < 0 || iy >= s->H || ix < 0 || ix >= s->W) return 0.0f;
    return x[(((size_t)n * s->C + c) * s->H + iy) * s->W + ix];
}

void ref_conv2d_fwd(const flce_conv_shape *s, const float *x, const float *w, float *y) {
    int R = s->R;
    for (int n = 0; n < s->N; n++)
        for (int k = 0; k < s->K; k++)
            for (int oy = 0; oy < s->OH; oy++)
                for (int ox = 0; ox < s->OW; ox++) {
                    float acc = 0.0f;
                    for (int c = 0; c < s->C; c++)
                        for (int ky = 0; ky < R; ky++)
                            for (int kx = 0; kx < R; kx++) {
                                float wv = w[(((size_t)k * s->C + c) * R + ky) * R + kx];
                                acc = acc + wv * xpad(s, x, n, c, oy * s->stride + ky - s->pad, ox * s->stride + kx - s->pad);
                            }
                    y[(((size_t)n * s->K + k) * s->OH + oy) * s->OW + ox] = acc;
                }
}

void ref_conv2d_bwd_data(const flce_conv_shape *s, const float *dy, const float *w, float *dx) {
    int R = s->R, st = s->stride;
    for (int n = 0; n < s->N; n++)
        for (int c = 0; c < s->C; c++)
            for (int iy = 0; iy < s->H; iy++)
                for (int ix = 0; ix < s->W; ix++) {
                    float acc = 0.0f;
                    for (int ky = 0; ky < R; ky++)
                        for (int kx = 0; kx < R; kx++) {
                            int ty = iy + s->pad - ky, tx = ix + s->pad - kx;
                            if (ty < 0 || tx < 0 || ty % st || tx % st) continue;
                            int oy = ty / st, ox = tx / st;
                            if (oy >= s->OH || ox >= s->OW) continue;
                            float t = 0.0f;
                            for (int k = 0; k < s->K; k++)
                                t = t + w[(((size_t)k * s->C + c) * R + ky) * R + kx] *
                                            dy[(((size_t)n * s->K + k) * s->OH + oy) * s->OW + ox];
                            acc = acc + t;
                        }
                    dx[(((size_t)n * s->C + c) * s->H + iy) * s->W + ix] = acc;
                }
}

void ref_conv2d_bwd_weight(const flce_conv_shape *s, const float *x, const float *dy, float *dw) {
    int R = s->R;
    for (int k = 0; k < s->K; k++)
        for (int c = 0; c < s->C; c++)
            for (int ky = 0; ky < R; ky++)
                for (int kx = 0; kx < R; kx++) {
                    float acc = 0.0f;
                    for (int n = 0; n < s->N; n++) {
                        float t = 0.0f;
                        for (int oy = 0; oy < s->OH; oy++)
                            for (int ox = 0; ox < s->OW; ox++)
                                t = t + dy[(((size_t)n * s->K + k) * s->OH + oy) * s->OW + ox] *
                                            xpad(s, x, n, c, oy * s->stride + ky - s->pad, ox * s->stride + kx - s->pad);
                        acc = acc + t;
                    }
                    dw[(((size_t)k * s->C + c) * R + ky) * R + kx] = acc;
                }
}

float ref_sum8(const float *x, size_t n) {
    ref_k8 k = {{0}, {0}};
    for (size_t j = 0; j < n; j++) ref_k8_add(&k, (int)(j & 7), x[j]);
    return ref_k8_total(&k);
}

float ref_sum8c(const float *x, size_t n) {
    static _Thread_local ref_k8c k; /* 2.6 KiB: not on the stack of every caller */
    ref_k8c_init(&k);
    for (size_t j = 0; j < n; j++) ref_k8c_add(&k, x[j]);
    return ref_k8c_total(&k);
}

#define AT(n, c, i) (((size_t)(n) * C + (c)) * HW + (i))

void ref_bn_fwd_train(int N, int C, int HW, float eps, float momentum, int relu, const float *x, const float *gamma,
                      const float *beta, float *y, float *mean_out, float *invstd, float *running_mean, float *running_var) {
    int M = N * HW;
    float invM = fm_recip((float)M), one_m = 1.0f - momentum;
    for (int c = 0; c < C; c++) {
        static _Thread_local ref_k8c l;
        ref_k8c_init(&l);
        for (int n = 0; n < N; n++)
            for (int i = 0; i < HW; i++) ref_k8c_add(&l, x[AT(n, c, i)]);
        float mean = ref_k8c_total(&l) * invM;
        ref_k8c_init(&l);
        for (int n = 0; n < N; n++)
            for (int i = 0; i < HW; i++) {
                float d = x[AT(n, c, i)] - mean;
                ref_k8c_add(&l, d * d);
            }
        float var = ref_k8c_total(&l) * invM;
        float is = fm_rsqrt(var + eps);
        mean_out[c] = mean;
        invstd[c] = is;
        for (int n = 0; n < N; n++)
            for (int i = 0; i < HW; i++) {
                float xh = (x[AT(n, c, i)] - mean) * is;
                float o = xh * gamma[c] + beta[c];
                y[AT(n, c, i)] = relu && !(o > 0.0f) ? 0.0f : o;
            }
        float unb = M > 1 ? (var * (float)M) * fm_recip((float)(M - 1)) : var;
        running_mean[c] = running_mean[c] * one_m + mean * momentum;
        running_var[c] = running_var[c] * one_m + unb * momentum;
    }
}

void ref_bn_fwd_eval(int N, int C, int HW, float eps, int relu, const float *x, const float *gamma, const float *beta,
                     const float *running_mean, const float *running_var, float *y) {
    for (int c = 0; c < C; c++) {
        float is = fm_rsqrt(running_var[c] + eps);
        for (int n = 0; n < N; n++)
            for (int i = 0; i < HW; i++) {
                float o = ((x[AT(n, c, i)] - running_mean[c]) * is) * gamma[c] + beta[c];
                y[AT(n, c, i)] = relu && !(o > 0.0f) ? 0.0f : o;
            }
    }
}

void ref_conv2d_fwd_bn_eval(const flce_conv_shape *s, const float *x, const float *w, float eps, const float *gamma,
                            const float *beta, const float *running_mean, const float *running_var, const float *r,
                            int relu, float *y) {
    int P = s->OH * s->OW;
    ref_conv2d_fwd(s, x, w, y);
    ref_bn_fwd_eval(s->N, s->K, P, eps, relu && !r, y, gamma, beta, running_mean, running_var, y); /* in place */
    if (r) ref_add((size_t)s->N * s->K * P, relu, y, r, y);
}

void ref_bn_bwd(int N, int C, int HW, const float *yr, const float *dy, const float *x, const float *mean,
                const float *gamma, const float *invstd, float *dx, float *dgamma, float *dbeta) {
    int M = N * HW;
    float invM = fm_recip((float)M), Mf = (float)M;
    for (int c = 0; c < C; c++) {
        static _Thread_local ref_k8c lb, lg;
        ref_k8c_init(&lb), ref_k8c_init(&lg);
        for (int n = 0; n < N; n++)
            for (int i = 0; i < HW; i++) {
                size_t e = AT(n, c, i);
                float d = yr && !(yr[e] > 0.0f) ? 0.0f : dy[e];
                float xh = (x[e] - mean[c]) * invstd[c];
                ref_k8c_add(&lb, d);
                ref_k8c_add(&lg, d * xh);
            }
        float db = ref_k8c_total(&lb), dg = ref_k8c_total(&lg);
        dbeta[c] = db;
        dgamma[c] = dg;
        float k = (gamma[c] * invstd[c]) * invM;
        for (int n = 0; n < N; n++)
            for (int i = 0; i < HW; i++) {
                size_t e = AT(n, c, i);
                float d = yr && !(yr[e] > 0.0f) ? 0.0f : dy[e];
                float xh = (x[e] - mean[c]) * invstd[c];
                dx[e] = k * ((Mf * d - db) - xh * dg);
            }
    }
}

void ref_relu_fwd(size_t n, const float *x, float *y) {
    for (size_t i = 0; i < n; i++) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void ref_relu_bwd(size_t n, const float *y, const float *dy, float *dx) {
    for (size_t i = 0; i < n; i++) dx[i] = y[i] > 0.0f ? dy[i] : 0.0f;
}

void ref_add(size_t n, int relu, const float *a, const float *b, float *y) {
    for (size_t i = 0; i < n; i++) {
        float s = a[i] + b[i];
        y[i] = relu && !(s > 0.0f) ? 0.0f : s;
    }
}

void ref_avgpool_fwd(int N, int C, int HW, const float *x, float *z) {
    float inv = fm_recip((float)HW);
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++) {
            float acc = 0.0f;
            for (int i = 0; i < HW; i++) acc = acc + x[AT(n, c, i)];
            z[(size_t)n * C + c] = acc * inv;
        }
}

void ref_avgpool_bwd(int N, int C, int HW, const float *dz, float *dx) {
    float inv = fm_recip((float)HW);
    for (int n = 0; n < N; n++)
        for (int c = 0; c < C; c++)
            for (int i = 0; i < HW; i++) dx[AT(n, c, i)] = dz[(size_t)n * C + c] * inv;
}

void ref_linear_fwd(int N, int I, int O, const float *x, const float *w, const float *b, float *y) {
    for (int n = 0; n < N; n++)
        for (int o = 0; o < O; o++) {
            float acc = 0.0f;
            for (int i = 0; i < I; i++) acc = acc + w[(size_t)o * I + i] * x[(size_t)n * I + i];
            y[(size_t)n * O + o] = acc + b[o];
        }
}

void ref_linear_bwd(int N, int I, int O, const float *x, const float *w, const float *dy, float *dx, float *dw,
                    float *db) {
    for (int n = 0; n < N; n++)
        for (int i = 0; i < I; i++) {
            float acc = 0.0f;
            for (int o = 0; o < O; o++) acc = acc + w[(size_t)o * I + i] * dy[(size_t)n * O + o];
            dx[(size_t)n * I + i] = acc;
        }
    for (int o = 0; o < O; o++) {
        for (int i = 0; i < I; i++) {
            float acc = 0.0f;
            for (int n = 0; n < N; n++) acc = acc + dy[(size_t)n * O + o] * x[(size_t)n * I + i];
            dw[(size_t)o * I + i] = acc;
        }
        float acc = 0.0f;
        for (int n = 0; n < N; n++) acc = acc + dy[(size_t)n * O + o];
        db[o] = acc;
    }
}

void ref_softmax_ce(int N, int C, const float *logits, const int32_t *labels, float *loss, float *dlogits,
                    int32_t *pred) {
    float invN = fm_recip((float)N), total = 0.0f;
    for (int n = 0; n < N; n++) {
        const float *l = logits + (size_t)n * C;
        float m = l[0];
        int arg = 0;
        for (int j = 1; j < C; j++)
            if (l[j] > m) m = l[j], arg = j;
        pred[n] = arg;
        float s = 0.0f;
        for (int j = 0; j < C; j++) s = s + fm_exp(l[j] - m);
        float inv = fm_recip(s), lse = m + fm_log(s);
        total = total + (lse - l[labels[n]]);
        for (int j = 0; j < C; j++)
            dlogits[(size_t)n * C + j] = (fm_exp(l[j] - m) * inv - (j == labels[n] ? 1.0f : 0.0f)) * invN;
    }
    loss[0] = total * invN;
}

void ref_supcon(int N, int D, float tau, float lambda, const float *z, const int32_t *y, float *loss, float *dz) {
    float *zn = malloc(sizeof(float) * (size_t)N * D), *gn = malloc(sizeof(float) * (size_t)N * D);
    float *nrm_inv = malloc(sizeof(float) * (size_t)N), *sim = malloc(sizeof(float) * (size_t)N);
    int *npos = malloc(sizeof(int) * (size_t)N);
    if (!zn || !gn || !nrm_inv || !sim || !npos) { /* out of memory: NaN loss, zero gradient */
        loss[0] = fm_float(0x7fc00000u);
        memset(dz, 0, sizeof(float) * (size_t)N * D);
        goto out;
    }
    float inv_tau = fm_recip(tau);
    for (int i = 0; i < N; i++) {
        float s = 0.0f;
        for (int j = 0; j < D; j++) s = s + z[i * D + j] * z[i * D + j];
        float nr = fm_sqrt(s);
        nrm_inv[i] = nr > 0.0f ? fm_recip(nr) : 0.0f;
        for (int j = 0; j < D; j++) {
            zn[i * D + j] = z[i * D + j] * nrm_inv[i];
            gn[i * D + j] = 0.0f;
        }
    }
    int anchors = 0;
    for (int i = 0; i < N; i++) {
        npos[i] = 0;
        for (int j = 0; j < N; j++) npos[i] += j != i && y[j] == y[i];
        anchors += npos[i] > 0;
    }
    float total = 0.0f;
    if (anchors > 0) {
        float invA = fm_recip((float)anchors);
        for (int i = 0; i < N; i++) {
            if (npos[i] == 0) continue;
            float invP = fm_recip((float)npos[i]), mx = -3.4028235e38f;
            for (int k = 0; k < N; k++) {
                if (k == i) continue;
                float s = 0.0f;
                for (int j = 0; j < D; j++) s = s + zn[i * D + j] * zn[k * D + j];
                sim[k] = s * inv_tau;
                if (sim[k] > mx) mx = sim[k];
            }
            float den = 0.0f;
            for (int k = 0; k < N; k++)
                if (k != i) den = den + fm_exp(sim[k] - mx);
            float lse = mx + fm_log(den), li = 0.0f;
            for (int k = 0; k < N; k++)
                if (k != i && y[k] == y[i]) li = li + (lse - sim[k]) * invP;
            total = total + li * invA;
            for (int k = 0; k < N; k++) {
                if (k == i) continue;
                float c = ((fm_exp(sim[k] - lse) - (y[k] == y[i] ? invP : 0.0f)) * invA) * inv_tau;
                for (int j = 0; j < D; j++) {
                    gn[i * D + j] = gn[i * D + j] + c * zn[k * D + j];
                    gn[k * D + j] = gn[k * D + j] + c * zn[i * D + j];
                }
            }
        }
    }
    for (int i = 0; i < N; i++) {
        float dot = 0.0f;
        for (int j = 0; j < D; j++) dot = dot + zn[i * D + j] * gn[i * D + j];
        for (int j = 0; j < D; j++) dz[i * D + j] = lambda * ((gn[i * D + j] - zn[i * D + j] * dot) * nrm_inv[i]);
    }
    loss[0] = total;
out:
    free(zn), free(gn), free(nrm_inv), free(sim), free(npos);
}

void ref_sgd(size_t n, float lr, float momentum, float wd, int first, float *w, const float *g, float *mom) {
    for (size_t i = 0; i < n; i++) {
        float d = wd != 0.0f ? g[i] + wd * w[i] : g[i];
        if (momentum != 0.0f) {
            mom[i] = first ? d : mom[i] * momentum + d;
            d = mom[i];
        }
        w[i] = w[i] - lr * d;
    }
}

double ref_clip_grad_norm(int np, float *const *g, const size_t *n, double max_norm) {
    double ss = 0;
    for (int p = 0; p < np; p++)
        for (size_t i = 0; i < n[p]; i++) ss += (double)g[p][i] * (double)g[p][i];
    double norm = sqrt(ss);
    if (norm > max_norm) {
        float c = (float)(max_norm / (norm + 1e-6));
        for (int p = 0; p < np; p++)
            for (size_t i = 0; i < n[p]; i++) g[p][i] = g[p][i] * c;
    }
    return norm;
}

void ref_weighted_sum(size_t n, int K, const float *a, const float *const *xs, float *y) {
    for (size_t i = 0; i < n; i++) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++) acc = acc + a[k] * xs[k][i];
        y[i] = acc;
    }
}
