/* model.c: ResNet20 on a backend (see model.h). The forward and backward passes are written
 * out layer by layer; every op runs on the model's backend, so parameters, activations and
 * gradients stay where the backend keeps them for the whole step. */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safetensors.h"
#include "ops.h" /* ref_clip_grad_norm */

static int add_param(flce_model *m, const char *name, int ndim, const int64_t *shape, int trainable) {
    flce_param *p = &m->p[m->nparams];
    snprintf(p->name, sizeof p->name, "%s", name);
    p->ndim = ndim;
    p->n = 1;
    for (int i = 0; i < ndim; i++) p->shape[i] = shape[i], p->n *= (size_t)shape[i];
    p->trainable = trainable;
    return m->nparams++;
}

static int add_conv(flce_model *m, flce_conv_l *c, const char *name, int N, int C, int H, int W, int K, int R,
                    int stride) {
    int64_t sh[4] = {K, C, R, R};
    c->w = add_param(m, name, 4, sh, 1);
    flce_conv_shape_init(&c->s, N, C, H, W, K, R, stride, R == 3 ? 1 : 0);
    return c->s.OH;
}

static void add_bn(flce_model *m, flce_bn_l *b, const char *prefix, int C, int HW) {
    char nm[64];
    int64_t sh[1] = {C};
    snprintf(nm, sizeof nm, "%s.weight", prefix);
    b->g = add_param(m, nm, 1, sh, 1);
    snprintf(nm, sizeof nm, "%s.bias", prefix);
    b->b = add_param(m, nm, 1, sh, 1);
    snprintf(nm, sizeof nm, "%s.running_mean", prefix);
    b->rm = add_param(m, nm, 1, sh, 0);
    snprintf(nm, sizeof nm, "%s.running_var", prefix);
    b->rv = add_param(m, nm, 1, sh, 0);
    b->C = C;
    b->HW = HW;
    b->tracked = 0;
}

static flce_buf *alloc_f(flce_model *m, size_t n, int *fail) {
    flce_buf *b = m->be->buf_alloc(m->be, (n ? n : 1) * sizeof(float));
    if (!b) *fail = 1;
    return b;
}

flce_status flce_model_create(flce_model *m, flce_backend *be, int in_c, int in_h, int in_w, int classes, int batch,
                              flce_err *e) {
    memset(m, 0, sizeof *m);
    if (in_c < 1 || in_c > 3 || in_h < 4 || in_w < 4 || in_h > 512 || in_w > 512)
        return flce_fail(e, FLCE_ERR_ARG, "model: input %dx%dx%d not supported (1-3 channels, 4..512 pixels)", in_c, in_h, in_w);
    if (classes < 2 || classes > 1000) return flce_fail(e, FLCE_ERR_ARG, "model: %d classes (2..1000)", classes);
    if (batch < 1) return flce_fail(e, FLCE_ERR_ARG, "model: batch %d", batch);
    const char *missing = flce_backend_missing_op(be);
    if (missing) return flce_fail(e, FLCE_ERR_ARG, "backend '%s' lacks the op %s: it cannot train", be->name, missing);
    if (flce_backend_status(be, e)) return be->status;
    m->be = be, m->in_c = in_c, m->in_h = in_h, m->in_w = in_w, m->classes = classes, m->batch = batch;
    int H = add_conv(m, &m->conv1, "conv1.weight", batch, in_c, in_h, in_w, 16, 3, 1), W = m->conv1.s.OW;
    add_bn(m, &m->bn1, "bn1", 16, H * W);
    m->max_act = (size_t)batch * 16 * H * W;
    int cin = 16, bi = 0;
    static const int widths[3] = {16, 32, 64};
    for (int L = 0; L < 3; L++)
        for (int j = 0; j < 3; j++, bi++) {
            flce_block *b = &m->blk[bi];
            int cout = widths[L], stride = (L > 0 && j == 0) ? 2 : 1;
            char nm[64];
            b->in_n = (size_t)batch * cin * H * W;
            snprintf(nm, sizeof nm, "layer%d.%d.conv1.weight", L + 1, j);
            int OH = add_conv(m, &b->c1, nm, batch, cin, H, W, cout, 3, stride), OW = b->c1.s.OW;
            snprintf(nm, sizeof nm, "layer%d.%d.bn1", L + 1, j);
            add_bn(m, &b->b1, nm, cout, OH * OW);
            snprintf(nm, sizeof nm, "layer%d.%d.conv2.weight", L + 1, j);
            add_conv(m, &b->c2, nm, batch, cout, OH, OW, cout, 3, 1);
            snprintf(nm, sizeof nm, "layer%d.%d.bn2", L + 1, j);
            add_bn(m, &b->b2, nm, cout, OH * OW);
            b->has_sc = stride != 1 || cin != cout;
            if (b->has_sc) {
                snprintf(nm, sizeof nm, "layer%d.%d.shortcut.0.weight", L + 1, j);
                add_conv(m, &b->sc, nm, batch, cin, H, W, cout, 1, stride);
                snprintf(nm, sizeof nm, "layer%d.%d.shortcut.1", L + 1, j);
                add_bn(m, &b->sb, nm, cout, OH * OW);
            }
            b->out_n = (size_t)batch * cout * OH * OW;
            cin = cout, H = OH, W = OW;
        }
    int64_t lw[2] = {classes, FLCE_FEAT}, lb[1] = {classes};
    m->lin_w = add_param(m, "linear.weight", 2, lw, 1);
    m->lin_b = add_param(m, "linear.bias", 1, lb, 1);

    int fail = 0;
    for (int i = 0; i < m->nparams; i++) {
        m->p[i].w = alloc_f(m, m->p[i].n, &fail);
        if (m->p[i].trainable) m->p[i].g = alloc_f(m, m->p[i].n, &fail);
    }
    flce_bn_l *bns[1 + 9 * 3];
    int nb = 0;
    bns[nb++] = &m->bn1;
    for (int i = 0; i < 9; i++) {
        bns[nb++] = &m->blk[i].b1;
        bns[nb++] = &m->blk[i].b2;
        if (m->blk[i].has_sc) bns[nb++] = &m->blk[i].sb;
    }
    for (int i = 0; i < nb; i++) {
        bns[i]->mean = alloc_f(m, (size_t)bns[i]->C, &fail);
        bns[i]->invstd = alloc_f(m, (size_t)bns[i]->C, &fail);
    }
    size_t a0 = (size_t)batch * 16 * m->conv1.s.OH * m->conv1.s.OW;
    m->x = alloc_f(m, (size_t)batch * in_c * in_h * in_w, &fail);
    m->labels = alloc_f(m, (size_t)batch, &fail);
    m->pred = alloc_f(m, (size_t)batch, &fail);
    m->a0 = alloc_f(m, a0, &fail), m->r0 = alloc_f(m, a0, &fail);
    for (int i = 0; i < 9; i++) {
        flce_block *b = &m->blk[i];
        size_t o = b->out_n;
        b->a1 = alloc_f(m, o, &fail), b->r1 = alloc_f(m, o, &fail);
        b->a2 = alloc_f(m, o, &fail), b->y2 = alloc_f(m, o, &fail);
        b->out = alloc_f(m, o, &fail);
        if (b->has_sc) b->sa = alloc_f(m, o, &fail);
    }
    m->z = alloc_f(m, (size_t)batch * FLCE_FEAT, &fail);
    m->dz = alloc_f(m, (size_t)batch * FLCE_FEAT, &fail);
    m->dz2 = alloc_f(m, (size_t)batch * FLCE_FEAT, &fail);
    m->logits = alloc_f(m, (size_t)batch * classes, &fail);
    m->dlogits = alloc_f(m, (size_t)batch * classes, &fail);
    m->loss = alloc_f(m, 1, &fail);
    m->loss_cl = alloc_f(m, 1, &fail);
    for (int i = 0; i < 4; i++) m->d[i] = alloc_f(m, m->max_act, &fail);
    if (fail) {
        flce_model_free(m);
        return flce_fail(e, FLCE_ERR_NOMEM, "model: cannot allocate buffers for batch %d on %s", batch, be->name);
    }
    return FLCE_OK;
}

void flce_model_free(flce_model *m) {
    flce_backend *be = m->be;
    if (!be) return;
#define FREEB(b) ((b) ? be->buf_free(be, b) : (void)0, (b) = NULL)
    for (int i = 0; i < m->nparams; i++) {
        FREEB(m->p[i].w);
        FREEB(m->p[i].g);
        FREEB(m->p[i].m);
    }
    FREEB(m->bn1.mean);
    FREEB(m->bn1.invstd);
    for (int i = 0; i < 9; i++) {
        flce_block *b = &m->blk[i];
        FREEB(b->b1.mean), FREEB(b->b1.invstd), FREEB(b->b2.mean), FREEB(b->b2.invstd);
        FREEB(b->sb.mean), FREEB(b->sb.invstd);
        FREEB(b->a1), FREEB(b->r1), FREEB(b->a2), FREEB(b->y2), FREEB(b->out);
        FREEB(b->sa);
    }
    FREEB(m->x), FREEB(m->labels), FREEB(m->pred), FREEB(m->a0), FREEB(m->r0);
    FREEB(m->z), FREEB(m->dz), FREEB(m->dz2), FREEB(m->logits), FREEB(m->dlogits), FREEB(m->loss), FREEB(m->loss_cl);
    for (int i = 0; i < 4; i++) FREEB(m->d[i]);
#undef FREEB
    m->be = NULL;
}

void flce_model_init(flce_model *m, uint64_t seed) {
    size_t maxn = 0;
    for (int i = 0; i < m->nparams; i++) maxn = m->p[i].n > maxn ? m->p[i].n : maxn;
    float *v = malloc(maxn * sizeof *v);
    if (!v) return;
    for (int i = 0; i < m->nparams; i++) {
        flce_param *p = &m->p[i];
        const char *suf = strrchr(p->name, '.');
        if (p->ndim >= 2) { /* conv and linear weights: N(0, 2 / fan_in) */
            size_t fan_in = p->n / (size_t)p->shape[0];
            double sd = sqrt(2.0 / (double)fan_in);
            flce_rng r;
            flce_rng_init(&r, seed, FLCE_RNG_INIT, 0, (uint32_t)i);
            for (size_t j = 0; j < p->n; j++) v[j] = (float)(flce_rng_normal(&r) * sd);
        } else {
            float c = (!strcmp(suf, ".weight") || !strcmp(suf, ".running_var")) ? 1.0f : 0.0f;
            for (size_t j = 0; j < p->n; j++) v[j] = c;
        }
        m->be->buf_write(m->be, p->w, 0, v, p->n * sizeof *v);
    }
    free(v);
}

int64_t flce_model_count_trainable(const flce_model *m) {
    int64_t s = 0;
    for (int i = 0; i < m->nparams; i++)
        if (m->p[i].trainable) s += (int64_t)m->p[i].n;
    return s;
}

int64_t flce_model_count_all(const flce_model *m) {
    int64_t s = 0;
    for (int i = 0; i < m->nparams; i++) s += (int64_t)m->p[i].n;
    return s;
}

/* conv with the model's shape but n samples */
static flce_conv_shape cs(const flce_conv_l *c, int n) {
    flce_conv_shape s = c->s;
    s.N = n;
    return s;
}

#define P(i) (m->p[i].w)
#define G(i) (m->p[i].g)

/* relu = 1: the ReLU that follows is fused (y is then the ReLU's output) */
static void bn_train(flce_model *m, flce_bn_l *b, int n, flce_buf *x, flce_buf *y, int relu) {
    m->be->bn_fwd_train(m->be, n, b->C, b->HW, 1e-5f, 0.1f, relu, x, P(b->g), P(b->b), y, b->mean, b->invstd, P(b->rm),
                        P(b->rv));
    b->x = x;
    b->tracked++;
}

/* ... then y = relu(bn(x) + r): the block's output in one pass (bn_fwd_train_res) */
static void bn_train_res(flce_model *m, flce_bn_l *b, int n, flce_buf *x, const flce_buf *r, flce_buf *y) {
    m->be->bn_fwd_train_res(m->be, n, b->C, b->HW, 1e-5f, 0.1f, x, P(b->g), P(b->b), r, y, b->mean, b->invstd,
                            P(b->rm), P(b->rv));
    b->x = x;
    b->tracked++;
}

/* Evaluation: y = [relu](bn(conv(x)) [+ r]) with the running statistics, one op
 * (conv2d_fwd_bn_eval; t: the convolution's output buffer of training, scratch here) */
static void conv_bn_eval(flce_model *m, const flce_conv_l *c, flce_bn_l *b, int n, const flce_buf *x, const flce_buf *r,
                         int relu, flce_buf *t, flce_buf *y) {
    flce_conv_shape s = cs(c, n);
    m->be->conv2d_fwd_bn_eval(m->be, &s, x, P(c->w), 1e-5f, P(b->g), P(b->b), P(b->rm), P(b->rv), r, relu, t, y);
}

/* Forward to the logits; train selects batch statistics. Leaves z and logits. */
static void forward(flce_model *m, int n, int train) {
    flce_backend *be = m->be;
    if (!train) { /* each convolution with its BatchNorm, ReLU and residual: one op */
        conv_bn_eval(m, &m->conv1, &m->bn1, n, m->x, NULL, 1, m->a0, m->r0);
        const flce_buf *in = m->r0;
        for (int i = 0; i < 9; i++) {
            flce_block *b = &m->blk[i];
            conv_bn_eval(m, &b->c1, &b->b1, n, in, NULL, 1, b->a1, b->r1);
            if (b->has_sc) {
                conv_bn_eval(m, &b->c2, &b->b2, n, b->r1, NULL, 0, b->a2, b->y2);
                conv_bn_eval(m, &b->sc, &b->sb, n, in, b->y2, 1, b->sa, b->out); /* out = relu(bn(sa) + y2) */
            } else {
                conv_bn_eval(m, &b->c2, &b->b2, n, b->r1, in, 1, b->a2, b->out); /* out = relu(y2 + in) */
            }
            in = b->out;
        }
    } else {
        flce_conv_shape s = cs(&m->conv1, n);
        be->conv2d_fwd(be, &s, m->x, P(m->conv1.w), m->a0);
        bn_train(m, &m->bn1, n, m->a0, m->r0, 1);
        const flce_buf *in = m->r0;
        for (int i = 0; i < 9; i++) {
            flce_block *b = &m->blk[i];
            s = cs(&b->c1, n);
            be->conv2d_fwd(be, &s, in, P(b->c1.w), b->a1);
            bn_train(m, &b->b1, n, b->a1, b->r1, 1);
            s = cs(&b->c2, n);
            be->conv2d_fwd(be, &s, b->r1, P(b->c2.w), b->a2);
            if (b->has_sc) {
                bn_train(m, &b->b2, n, b->a2, b->y2, 0);
                s = cs(&b->sc, n);
                be->conv2d_fwd(be, &s, in, P(b->sc.w), b->sa);
                bn_train_res(m, &b->sb, n, b->sa, b->y2, b->out); /* out = relu(bn(sa) + y2) */
            } else {
                bn_train_res(m, &b->b2, n, b->a2, in, b->out); /* out = relu(y2 + in) */
            }
            in = b->out;
        }
    }
    flce_block *last = &m->blk[8];
    be->avgpool_fwd(be, n, FLCE_FEAT, last->b2.HW, last->out, m->z);
    be->linear_fwd(be, n, FLCE_FEAT, m->classes, m->z, P(m->lin_w), P(m->lin_b), m->logits);
    m->cur_n = n;
}

/* yr: the output of the fused ReLU, or NULL */
static void bn_back(flce_model *m, flce_bn_l *b, int n, const flce_buf *yr, const flce_buf *dy, flce_buf *dx) {
    m->be->bn_bwd(m->be, n, b->C, b->HW, yr, dy, b->x, b->mean, P(b->g), b->invstd, dx, G(b->g), G(b->b));
}

flce_status flce_model_forward_train(flce_model *m, int n, const float *x, const int32_t *labels, flce_err *e) {
    if (n < 1 || n > m->batch) return flce_fail(e, FLCE_ERR_ARG, "model: %d samples for a model built for %d", n, m->batch);
    for (int i = 0; i < n; i++)
        if (labels[i] < 0 || labels[i] >= m->classes)
            return flce_fail(e, FLCE_ERR_ARG, "label %d of sample %d out of range (0..%d)", labels[i], i, m->classes - 1);
    flce_backend *be = m->be;
    be->buf_write(be, m->x, 0, x, sizeof(float) * (size_t)n * m->in_c * m->in_h * m->in_w);
    be->buf_write(be, m->labels, 0, labels, sizeof(int32_t) * (size_t)n);
    forward(m, n, 1);
    return flce_backend_status(be, e); /* an op's failure (a lost device, no memory) */
}

flce_status flce_model_forward_backward(flce_model *m, int n, const float *x, const int32_t *labels, float lambda,
                                        float tau, flce_losses *out, flce_err *e) {
    flce_status st = flce_model_forward_train(m, n, x, labels, e);
    if (st) return st;
    flce_model_backward(m, lambda, tau, NULL, out);
    return flce_backend_status(m->be, e);
}

void flce_model_backward(flce_model *m, float lambda, float tau, const float *extra_dz, flce_losses *out) {
    flce_backend *be = m->be;
    int n = m->cur_n;
    be->softmax_ce(be, n, m->classes, m->logits, m->labels, m->loss, m->dlogits, m->pred);
    be->linear_bwd(be, n, FLCE_FEAT, m->classes, m->z, P(m->lin_w), m->dlogits, m->dz, G(m->lin_w), G(m->lin_b));
    if (lambda != 0.0f) {
        be->supcon(be, n, FLCE_FEAT, tau, lambda, m->z, m->labels, m->loss_cl, m->dz2);
        be->add(be, (size_t)n * FLCE_FEAT, 0, m->dz, m->dz2, m->dz);
    }
    if (extra_dz) { /* a loss on z computed by the caller (MOON) */
        be->buf_write(be, m->dz2, 0, extra_dz, sizeof(float) * (size_t)n * FLCE_FEAT);
        be->add(be, (size_t)n * FLCE_FEAT, 0, m->dz, m->dz2, m->dz);
    }
    flce_block *last = &m->blk[8];
    flce_buf *dout = m->d[0], *t1 = m->d[1], *t2 = m->d[2], *t3 = m->d[3];
    be->avgpool_bwd(be, n, FLCE_FEAT, last->b2.HW, m->dz, dout);
    for (int i = 8; i >= 0; i--) {
        flce_block *b = &m->blk[i];
        const flce_buf *in = i ? m->blk[i - 1].out : m->r0;
        size_t on = b->out_n / (size_t)m->batch * (size_t)n, inn = b->in_n / (size_t)m->batch * (size_t)n;
        if (i == 8) be->relu_bwd(be, on, b->out, dout, t1); /* t1 = d sum (the blocks below: add_relu_bwd) */
        bn_back(m, &b->b2, n, NULL, t1, t2);             /* t2 = d a2 */
        flce_conv_shape s = cs(&b->c2, n);
        be->conv2d_bwd_weight(be, &s, b->r1, t2, G(b->c2.w));
        be->conv2d_bwd_data(be, &s, t2, P(b->c2.w), t3); /* t3 = d r1 */
        bn_back(m, &b->b1, n, b->r1, t3, t2);            /* t2 = d a1, through the fused ReLU */
        s = cs(&b->c1, n);
        be->conv2d_bwd_weight(be, &s, in, t2, G(b->c1.w));
        be->conv2d_bwd_data(be, &s, t2, P(b->c1.w), dout); /* dout = d in (main path) */
        if (b->has_sc) {
            bn_back(m, &b->sb, n, NULL, t1, t2);         /* t2 = d sa */
            s = cs(&b->sc, n);
            be->conv2d_bwd_weight(be, &s, in, t2, G(b->sc.w));
            be->conv2d_bwd_data(be, &s, t2, P(b->sc.w), t3);
        }
        const flce_buf *skip = b->has_sc ? t3 : t1; /* d in through the shortcut */
        if (i) be->add_relu_bwd(be, inn, dout, skip, in, t1); /* t1 = d sum of the block below */
        else be->add(be, inn, 0, dout, skip, dout);       /* bn1's backward applies its own ReLU mask */
    }
    flce_conv_shape s = cs(&m->conv1, n);
    bn_back(m, &m->bn1, n, m->r0, dout, t2);
    be->conv2d_bwd_weight(be, &s, m->x, t2, G(m->conv1.w));
    if (out) {
        float ce = 0, cl = 0;
        be->buf_read(be, m->loss, 0, &ce, sizeof ce);
        if (lambda != 0.0f) be->buf_read(be, m->loss_cl, 0, &cl, sizeof cl);
        out->loss_ce = ce;
        out->loss_cl = cl;
        out->loss = ce + lambda * cl;
    }
}

double flce_model_clip(flce_model *m, double max_norm, flce_err *e) {
    int np = 0;
    size_t tot = 0;
    for (int i = 0; i < m->nparams; i++)
        if (m->p[i].trainable) np++, tot += m->p[i].n;
    float *host = malloc(sizeof(float) * (tot ? tot : 1)), **g = malloc(sizeof *g * (size_t)(np ? np : 1));
    size_t *n = malloc(sizeof *n * (size_t)(np ? np : 1));
    if (!host || !g || !n) {
        free(host), free(g), free(n);
        flce_fail(e, FLCE_ERR_NOMEM, "gradient clipping: out of memory");
        return -1;
    }
    size_t off = 0;
    for (int i = 0, j = 0; i < m->nparams; i++) { /* every backend's gradients through the host: the same bits */
        flce_param *p = &m->p[i];
        if (!p->trainable) continue;
        g[j] = host + off, n[j] = p->n;
        m->be->buf_read(m->be, p->g, 0, g[j], sizeof(float) * p->n);
        off += p->n, j++;
    }
    double norm = ref_clip_grad_norm(np, g, n, max_norm);
    for (int i = 0, j = 0; norm > max_norm && i < m->nparams; i++) {
        flce_param *p = &m->p[i];
        if (!p->trainable) continue;
        m->be->buf_write(m->be, p->g, 0, g[j], sizeof(float) * p->n);
        j++;
    }
    free(host), free(g), free(n);
    return norm;
}

void flce_model_sgd(flce_model *m, float lr, float momentum, float wd, int first) {
    for (int i = 0; i < m->nparams; i++) {
        flce_param *p = &m->p[i];
        if (!p->trainable) continue;
        if (momentum != 0.0f && !p->m) p->m = m->be->buf_alloc(m->be, p->n * sizeof(float));
        m->be->sgd(m->be, p->n, lr, momentum, wd, first, p->w, p->g, momentum != 0.0f ? p->m : NULL);
    }
}

flce_status flce_model_eval(flce_model *m, int n, const float *x, float *logits, float *z, flce_err *e) {
    if (n < 1 || n > m->batch) return flce_fail(e, FLCE_ERR_ARG, "model: %d samples for a model built for %d", n, m->batch);
    m->be->buf_write(m->be, m->x, 0, x, sizeof(float) * (size_t)n * m->in_c * m->in_h * m->in_w);
    forward(m, n, 0);
    if (logits) flce_model_read_logits(m, logits);
    if (z) flce_model_read_features(m, z);
    return flce_backend_status(m->be, e);
}

void flce_model_read_logits(flce_model *m, float *out) {
    m->be->buf_read(m->be, m->logits, 0, out, sizeof(float) * (size_t)m->cur_n * m->classes);
}

void flce_model_read_features(flce_model *m, float *out) {
    m->be->buf_read(m->be, m->z, 0, out, sizeof(float) * (size_t)m->cur_n * FLCE_FEAT);
}

size_t flce_model_state_size(const flce_model *m) { return (size_t)flce_model_count_all(m); }

void flce_model_get_state(flce_model *m, float *out) {
    for (int i = 0; i < m->nparams; i++) {
        m->be->buf_read(m->be, m->p[i].w, 0, out, m->p[i].n * sizeof(float));
        out += m->p[i].n;
    }
}

void flce_model_set_state(flce_model *m, const float *in) {
    for (int i = 0; i < m->nparams; i++) {
        m->be->buf_write(m->be, m->p[i].w, 0, in, m->p[i].n * sizeof(float));
        in += m->p[i].n;
    }
}

uint64_t flce_model_digest(flce_model *m, int grads) {
    size_t tot = 0;
    for (int i = 0; i < m->nparams; i++)
        if (!grads || m->p[i].trainable) tot += m->p[i].n;
    float *v = malloc(tot * sizeof *v), *o = v;
    if (!v) return 0;
    for (int i = 0; i < m->nparams; i++) {
        if (grads && !m->p[i].trainable) continue;
        m->be->buf_read(m->be, grads ? m->p[i].g : m->p[i].w, 0, o, m->p[i].n * sizeof(float));
        o += m->p[i].n;
    }
    uint64_t d = flce_digest(v, tot * sizeof *v);
    free(v);
    return d;
}

static flce_bn_l *bn_of(flce_model *m, int k) { /* the k-th BatchNorm in parameter order */
    if (k == 0) return &m->bn1;
    k--;
    for (int i = 0; i < 9; i++) {
        if (k == 0) return &m->blk[i].b1;
        if (k == 1) return &m->blk[i].b2;
        k -= 2;
        if (m->blk[i].has_sc) {
            if (k == 0) return &m->blk[i].sb;
            k--;
        }
    }
    return NULL;
}

flce_status flce_model_save(flce_model *m, const char *path, flce_err *e) {
    flce_st_tensor t[FLCE_MAX_PARAMS + 32];
    char names[32][96];
    int64_t tracked[32];
    float *vals = malloc(flce_model_state_size(m) * sizeof(float));
    if (!vals) return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", path);
    flce_model_get_state(m, vals);
    if (flce_backend_status(m->be, e)) { /* never a checkpoint of what a failed device returned */
        free(vals);
        return m->be->status;
    }
    int n = 0, nb = 0;
    const float *v = vals;
    for (int i = 0; i < m->nparams; i++) {
        flce_param *p = &m->p[i];
        t[n] = (flce_st_tensor){p->name, FLCE_ST_F32, p->ndim, {p->shape[0], p->shape[1], p->shape[2], p->shape[3]}, v};
        n++;
        v += p->n;
        const char *suf = strrchr(p->name, '.');
        if (!strcmp(suf, ".running_var")) { /* PyTorch's BatchNorm also keeps num_batches_tracked */
            flce_bn_l *b = bn_of(m, nb);
            snprintf(names[nb], sizeof names[nb], "%.*snum_batches_tracked", (int)(suf - p->name + 1), p->name);
            tracked[nb] = b ? b->tracked : 0;
            t[n++] = (flce_st_tensor){names[nb], FLCE_ST_I64, 0, {0}, &tracked[nb]};
            nb++;
        }
    }
    const char *meta[4] = {"format", "pt", "producer", "flce " FLCE_VERSION};
    flce_status st = flce_st_write(path, t, n, meta, 2, e);
    free(vals);
    return st;
}

flce_status flce_model_load(flce_model *m, const char *path, flce_err *e) {
    flce_st_file f;
    flce_status st = flce_st_read(path, &f, e);
    if (st) return st;
    int nb = 0, used = 0;
    for (int i = 0; i < m->nparams && !st; i++) {
        flce_param *p = &m->p[i];
        const flce_st_entry *t = flce_st_find(&f, p->name);
        if (!t) {
            st = flce_fail(e, FLCE_ERR_FORMAT, "%s: tensor '%s' missing", path, p->name);
            break;
        }
        int ok = t->dtype == FLCE_ST_F32 && t->ndim == p->ndim;
        for (int d = 0; d < p->ndim && ok; d++) ok = t->shape[d] == p->shape[d];
        if (!ok) {
            st = flce_fail(e, FLCE_ERR_FORMAT, "%s: tensor '%s' has the wrong dtype or shape for this model (%lld x ...)", path,
                           p->name, (long long)(t->ndim ? t->shape[0] : 0));
            break;
        }
        m->be->buf_write(m->be, p->w, 0, f.data + t->begin, p->n * sizeof(float));
        used++;
        const char *suf = strrchr(p->name, '.');
        if (!strcmp(suf, ".running_var")) {
            char nm[96];
            snprintf(nm, sizeof nm, "%.*snum_batches_tracked", (int)(suf - p->name + 1), p->name);
            const flce_st_entry *tb = flce_st_find(&f, nm);
            flce_bn_l *b = bn_of(m, nb++);
            if (tb) {
                used++;
                if (tb->dtype != FLCE_ST_I64 || tb->ndim != 0) {
                    st = flce_fail(e, FLCE_ERR_FORMAT, "%s: '%s' must be an int64 scalar", path, nm);
                    break;
                }
                if (b) memcpy(&b->tracked, f.data + tb->begin, 8);
            }
        }
    }
    if (!st && used != f.n) {
        for (int i = 0; i < f.n; i++) {
            int known = 0;
            for (int j = 0; j < m->nparams && !known; j++) known = !strcmp(f.t[i].name, m->p[j].name);
            if (!known && !strstr(f.t[i].name, "num_batches_tracked")) {
                st = flce_fail(e, FLCE_ERR_FORMAT, "%s: unexpected tensor '%s' (not part of ResNet20)", path, f.t[i].name);
                break;
            }
        }
    }
    flce_st_free(&f);
    return st;
}

flce_status flce_checkpoint_probe(const char *path, int *in_c, int *classes, flce_err *e) {
    flce_st_file f;
    flce_status st = flce_st_read(path, &f, e);
    if (st) return st;
    const flce_st_entry *c1 = flce_st_find(&f, "conv1.weight"), *lw = flce_st_find(&f, "linear.weight");
    if (!c1 || !lw || c1->ndim != 4 || lw->ndim != 2)
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: not a ResNet20 checkpoint (conv1.weight or linear.weight missing)", path);
    else if (c1->shape[1] < 1 || c1->shape[1] > 64 || lw->shape[0] < 2 || lw->shape[0] > 100000)
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: conv1.weight has %lld input channels and linear.weight %lld classes "
                       "(1..64 and 2..100000)", path, (long long)c1->shape[1], (long long)lw->shape[0]);
    else {
        *in_c = (int)c1->shape[1];
        *classes = (int)lw->shape[0];
    }
    flce_st_free(&f);
    return st;
}

/* The multiplies and adds of the convolutions and the linear layer per sample: the forward
 * pass alone, or with the weight and input gradients (train). */
static double model_flops(const flce_model *m, int train) {
    double f = 0;
    const flce_conv_l *cv[1 + 27];
    int nc = 0;
    cv[nc++] = &m->conv1;
    for (int i = 0; i < 9; i++) {
        cv[nc++] = &m->blk[i].c1;
        cv[nc++] = &m->blk[i].c2;
        if (m->blk[i].has_sc) cv[nc++] = &m->blk[i].sc;
    }
    for (int i = 0; i < nc; i++) {
        const flce_conv_shape *s = &cv[i]->s;
        double fwd = 2.0 * s->K * s->OH * s->OW * s->C * s->R * s->R;
        f += !train ? fwd : i == 0 ? 2 * fwd : 3 * fwd; /* forward, weight gradient, input gradient (not for conv1) */
    }
    f += (train ? 3 : 1) * 2.0 * FLCE_FEAT * m->classes;
    return f;
}
double flce_model_train_flops_per_sample(const flce_model *m) { return model_flops(m, 1); }
double flce_model_forward_flops_per_sample(const flce_model *m) { return model_flops(m, 0); }
