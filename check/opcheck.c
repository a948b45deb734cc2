/* opcheck.c: see opcheck.h. Inputs are drawn from the stream (seed 1, bench, case, input).
 * Cases cover every op of the backend interface, with odd sizes (1, 7, 33 ...), strides,
 * and BatchNorm spatial sizes that are and are not multiples of 8. */
#include "opcheck.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    flce_op op; /* the op of the interface's list (backend.h) */
    int a[10]; /* the shape; for convolutions a[8] = 1: the inputs hold inf, -inf and NaN among
                * the normal values, and every NaN compares as one (payloads are not contracted);
                * conv2d_fwd_bn_eval's a[9]: 0 BatchNorm alone, 1 with the ReLU, 2 + r and the
                * ReLU, 3 + r without the ReLU */
} op_case;

#define CONV3(op) \
    {op, {1, 1, 1, 1, 1, 3, 1, 1}}, {op, {2, 3, 5, 7, 4, 3, 1, 1}}, {op, {3, 16, 9, 9, 16, 3, 2, 1}}, \
    {op, {2, 5, 8, 8, 7, 1, 2, 0}}, {op, {1, 2, 6, 5, 3, 1, 1, 0}}, {op, {2, 16, 32, 32, 16, 3, 1, 1}}, \
    {op, {2, 32, 16, 16, 64, 3, 2, 1}}, {op, {3, 3, 33, 31, 17, 3, 1, 1}}, {op, {5, 1, 28, 28, 16, 3, 1, 1}}, \
    {op, {2, 32, 7, 7, 64, 1, 2, 0}}, {op, {2, 7, 16, 16, 13, 3, 1, 1}}, {op, {2, 3, 9, 9, 5, 3, 1, 1, 1}}, \
    {op, {2, 3, 9, 8, 5, 3, 2, 1, 1}}, {op, {2, 64, 8, 8, 64, 3, 1, 1}}, {op, {40, 64, 4, 4, 64, 3, 1, 1}}, \
    {op, {2, 3, 6, 6, 64, 3, 1, 1, 1}}, {op, {2, 64, 7, 7, 64, 3, 1, 1}}, {op, {2, 32, 14, 14, 64, 3, 2, 1}}, \
    {op, {3, 16, 8, 8, 16, 3, 1, 1, 1}}, {op, {2, 16, 16, 16, 32, 3, 2, 1}}, {op, {2, 16, 14, 14, 32, 3, 2, 1}}, \
    {op, {2, 8, 9, 9, 16, 5, 1, 2}}, {op, {3, 8, 7, 9, 16, 3, 1, 0}}, {op, {2, 8, 10, 11, 16, 3, 3, 1}}, \
    /* 16 output channels by input position (flce_wgrad512_xc): rows and columns of 2, unequal sides */ \
    {op, {3, 8, 5, 2, 16, 3, 1, 1}}, {op, {2, 8, 2, 7, 16, 3, 1, 1, 1}}, \
    /* the 1x28x28 study's stage shapes (8 x 48 forward tiles; 7-wide channel vectors for the input \
     * gradient at 14x14 and 7x7), and 96 output channels (64-column index tiles, then 32) */ \
    {op, {2, 16, 28, 28, 16, 3, 1, 1}}, {op, {2, 32, 14, 14, 32, 3, 1, 1}}, {op, {2, 32, 7, 7, 16, 3, 1, 1, 1}}, \
    {op, {2, 8, 6, 6, 96, 3, 1, 1}}, {op, {2, 8, 7, 7, 96, 3, 1, 1}}, \
    /* 14 x 32 channel-vector forward tiles (32 output channels, 14 wide; stride 1 and 2) with inf \
     * and NaN, and an odd height */ \
    {op, {2, 32, 14, 14, 32, 3, 1, 1, 1}}, {op, {1, 8, 14, 14, 32, 3, 1, 1}}, {op, {2, 16, 28, 28, 32, 3, 2, 1, 1}}, \
    {op, {1, 8, 27, 28, 32, 3, 2, 1}}, \
    /* 1x1 stride 2 by channel vectors: 14 x 32 tiles with inf and NaN, 7 x 64 with an odd width */ \
    {op, {2, 16, 28, 28, 32, 1, 2, 0, 1}}, {op, {1, 32, 14, 13, 64, 1, 2, 0}}, \
    /* stride 2, 16 channels: the input gradient's rows of 3, 13 and 12 (its last block of each \
     * interleaved row 3, 5 and 4 wide: store_pair's three forms) */ \
    {op, {2, 16, 6, 6, 16, 3, 2, 1}}, {op, {1, 16, 4, 26, 32, 3, 2, 1}}, {op, {1, 16, 8, 24, 16, 3, 2, 1}}

static const op_case CASES[] = {
    CONV3(FLCE_OP_CONV2D_FWD), CONV3(FLCE_OP_CONV2D_BWD_DATA), CONV3(FLCE_OP_CONV2D_BWD_WEIGHT),
    /* the evaluation's convolution + BatchNorm (+ residual) (+ ReLU): every forward path of the CPU
     * backend (flat positions, channel vectors, row-aligned, im2col and 1x1) and the ResNet20
     * block shapes, each mode at least twice */
    {FLCE_OP_CONV2D_FWD_BN_EVAL, {1, 1, 1, 1, 1, 3, 1, 1, 0, 0}}, {FLCE_OP_CONV2D_FWD_BN_EVAL, {5, 1, 28, 28, 16, 3, 1, 1, 0, 1}},
    {FLCE_OP_CONV2D_FWD_BN_EVAL, {2, 16, 28, 28, 16, 3, 1, 1, 0, 1}}, {FLCE_OP_CONV2D_FWD_BN_EVAL, {2, 16, 28, 28, 16, 3, 1, 1, 0, 2}},
    {FLCE_OP_CONV2D_FWD_BN_EVAL, {2, 32, 14, 14, 32, 3, 1, 1, 0, 2}}, {FLCE_OP_CONV2D_FWD_BN_EVAL, {2, 64, 7, 7, 64, 3, 1, 1, 0, 2}},
    {FLCE_OP_CONV2D_FWD_BN_EVAL, {2, 16, 28, 28, 32, 3, 2, 1, 0, 0}}, {FLCE_OP_CONV2D_FWD_BN_EVAL, {2, 16, 28, 28, 32, 1, 2, 0, 0, 2}},
    {FLCE_OP_CONV2D_FWD_BN_EVAL, {2, 32, 16, 16, 64, 3, 2, 1, 0, 0}}, {FLCE_OP_CONV2D_FWD_BN_EVAL, {2, 32, 16, 16, 64, 1, 2, 0, 0, 2}},
    {FLCE_OP_CONV2D_FWD_BN_EVAL, {2, 16, 32, 32, 16, 3, 1, 1, 0, 3}}, {FLCE_OP_CONV2D_FWD_BN_EVAL, {3, 3, 33, 31, 17, 3, 1, 1, 0, 3}},
    {FLCE_OP_CONV2D_FWD_BN_EVAL, {2, 3, 9, 9, 5, 3, 1, 1, 1, 1}}, {FLCE_OP_CONV2D_FWD_BN_EVAL, {2, 32, 7, 7, 16, 3, 1, 1, 1, 2}},
    {FLCE_OP_CONV2D_FWD_BN_EVAL, {2, 5, 8, 8, 7, 1, 1, 0, 0, 1}},
    /* BatchNorm: N, C, HW, fused ReLU (training and backward) */
    {FLCE_OP_BN_FWD_TRAIN, {2, 3, 64}}, {FLCE_OP_BN_FWD_TRAIN, {4, 16, 1024}}, {FLCE_OP_BN_FWD_TRAIN, {3, 5, 49}}, {FLCE_OP_BN_FWD_TRAIN, {1, 1, 1}},
    {FLCE_OP_BN_FWD_TRAIN, {2, 7, 9}}, {FLCE_OP_BN_FWD_TRAIN, {5, 3, 1000}}, {FLCE_OP_BN_FWD_TRAIN, {2, 3, 64, 1}}, {FLCE_OP_BN_FWD_TRAIN, {3, 5, 49, 1}},
    {FLCE_OP_BN_FWD_TRAIN, {4, 16, 1024, 1}}, {FLCE_OP_BN_FWD_EVAL, {2, 3, 64}}, {FLCE_OP_BN_FWD_EVAL, {3, 5, 49}},
    {FLCE_OP_BN_FWD_EVAL, {9, 16, 289}}, /* over 32,768 values: the CPU backend splits it across threads */
    {FLCE_OP_BN_FWD_EVAL, {3, 5, 49, 1}}, {FLCE_OP_BN_FWD_EVAL, {9, 16, 289, 1}}, /* with the ReLU fused */
    /* relu 2: the residual form, y = relu(bn(x) + r) */
    {FLCE_OP_BN_FWD_TRAIN_RES, {2, 3, 64, 2}}, {FLCE_OP_BN_FWD_TRAIN_RES, {3, 5, 49, 2}}, {FLCE_OP_BN_FWD_TRAIN_RES, {4, 16, 1024, 2}}, {FLCE_OP_BN_FWD_TRAIN_RES, {2, 7, 9, 2}},
    {FLCE_OP_BN_BWD, {5, 3, 1000}}, {FLCE_OP_BN_BWD, {2, 3, 64}}, {FLCE_OP_BN_BWD, {4, 16, 1024}}, {FLCE_OP_BN_BWD, {3, 5, 49}},
    {FLCE_OP_BN_BWD, {2, 7, 9}}, {FLCE_OP_BN_BWD, {2, 3, 64, 1}}, {FLCE_OP_BN_BWD, {3, 5, 49, 1}}, {FLCE_OP_BN_BWD, {4, 16, 1024, 1}},
    {FLCE_OP_BN_BWD, {2, 7, 9, 1}},
    /* K8C's chunks of 256: 12.25 chunks (7x7 planes), 3.25 (8x8), 2.3 with boundaries inside a
     * sample's run (200-wide planes) */
    {FLCE_OP_BN_FWD_TRAIN, {64, 2, 49}}, {FLCE_OP_BN_FWD_TRAIN, {13, 2, 64}}, {FLCE_OP_BN_FWD_TRAIN, {3, 2, 200}}, {FLCE_OP_BN_FWD_TRAIN_RES, {13, 2, 64, 2}},
    {FLCE_OP_BN_BWD, {64, 2, 49}}, {FLCE_OP_BN_BWD, {13, 2, 64, 1}}, {FLCE_OP_BN_BWD, {3, 2, 200}},
    /* 2.4 MB: (before 2026-11-30) several groups of channels a thread in cpu_bn.c; a 2026-11-29
     * experiment stored such outputs past the caches (docs/performance.md) */
    {FLCE_OP_BN_FWD_TRAIN, {9, 16, 4096, 1}}, {FLCE_OP_BN_FWD_TRAIN_RES, {9, 16, 4096, 2}}, {FLCE_OP_BN_BWD, {9, 16, 4096, 1}},
    /* elementwise: n */
    {FLCE_OP_RELU_FWD, {1}}, {FLCE_OP_RELU_FWD, {77}}, {FLCE_OP_RELU_FWD, {100003}}, {FLCE_OP_RELU_BWD, {13}}, {FLCE_OP_RELU_BWD, {65537}},
    {FLCE_OP_ADD, {9}}, {FLCE_OP_ADD, {70001}}, {FLCE_OP_ADD, {9, 1}}, {FLCE_OP_ADD, {70001, 1}}, {FLCE_OP_ADD_RELU_BWD, {13}},
    {FLCE_OP_ADD_RELU_BWD, {65537}},
    /* pooling: N, C, HW */
    {FLCE_OP_AVGPOOL_FWD, {2, 64, 64}}, {FLCE_OP_AVGPOOL_FWD, {3, 5, 49}}, {FLCE_OP_AVGPOOL_BWD, {2, 64, 64}}, {FLCE_OP_AVGPOOL_BWD, {1, 3, 1}},
    /* linear: N, I, O */
    {FLCE_OP_LINEAR_FWD, {1, 1, 1}}, {FLCE_OP_LINEAR_FWD, {5, 64, 10}}, {FLCE_OP_LINEAR_FWD, {7, 64, 100}}, {FLCE_OP_LINEAR_BWD, {5, 64, 10}},
    {FLCE_OP_LINEAR_BWD, {3, 17, 9}},
    /* softmax cross-entropy: N, C; supervised contrastive: N, D, classes */
    {FLCE_OP_SOFTMAX_CE, {1, 2}}, {FLCE_OP_SOFTMAX_CE, {8, 10}}, {FLCE_OP_SOFTMAX_CE, {5, 100}}, {FLCE_OP_SUPCON, {8, 64, 3}}, {FLCE_OP_SUPCON, {5, 7, 5}},
    {FLCE_OP_SUPCON, {16, 64, 16}}, {FLCE_OP_SUPCON, {130, 64, 10}}, {FLCE_OP_SOFTMAX_CE, {130, 10}},
    /* SGD: n, momentum (0/1), weight decay (0/1), first, tensors (run_sgd); weighted sum: n, K */
    {FLCE_OP_SGD, {1000, 0, 0, 1}}, {FLCE_OP_SGD, {1001, 1, 1, 0}}, {FLCE_OP_SGD, {1000, 1, 1, 0, 5}},
    {FLCE_OP_SGD, {700, 0, 0, 1, 5}}, {FLCE_OP_WEIGHTED_SUM, {999, 1}}, {FLCE_OP_WEIGHTED_SUM, {4099, 10}},
};

int flce_opcheck_count(void) { return (int)(sizeof CASES / sizeof CASES[0]); }

/* The op's name as the table prints it: "CONV2D_FWD". */
static const char *upper(flce_op op, char *nm) {
    const char *s = flce_op_name(op);
    size_t k = 0;
    for (; s[k] && k < 31; k++) nm[k] = (char)(s[k] >= 'a' && s[k] <= 'z' ? s[k] - 32 : s[k]);
    nm[k] = 0;
    return nm;
}

const char *flce_opcheck_missing(void) {
    for (int op = 0; op < FLCE_OP_COUNT; op++) {
        int has = 0;
        for (int i = 0; i < flce_opcheck_count(); i++) has |= CASES[i].op == (flce_op)op;
        if (!has) return flce_op_name((flce_op)op);
    }
    return NULL;
}

const char *flce_opcheck_name(int i, char *buf, size_t cap) {
    const op_case *c = &CASES[i];
    const int *a = c->a;
    char nm[32];
    switch (c->op) {
    case FLCE_OP_CONV2D_FWD:
    case FLCE_OP_CONV2D_BWD_DATA:
    case FLCE_OP_CONV2D_BWD_WEIGHT:
        snprintf(buf, cap, "%s(N=%d,C=%d,H=%d,W=%d,K=%d,R=%d,s=%d,p=%d%s)", upper(c->op, nm), a[0], a[1], a[2], a[3], a[4],
                 a[5], a[6], a[7], a[8] ? ",inf/nan" : "");
        break;
    case FLCE_OP_CONV2D_FWD_BN_EVAL:
        snprintf(buf, cap, "%s(N=%d,C=%d,H=%d,W=%d,K=%d,R=%d,s=%d,p=%d%s%s%s)", upper(c->op, nm), a[0], a[1], a[2], a[3],
                 a[4], a[5], a[6], a[7], a[9] >= 2 ? ",+r" : "", a[9] == 1 || a[9] == 2 ? ",relu" : "",
                 a[8] ? ",inf/nan" : "");
        break;
    case FLCE_OP_BN_FWD_TRAIN:
    case FLCE_OP_BN_FWD_TRAIN_RES:
    case FLCE_OP_BN_FWD_EVAL:
    case FLCE_OP_BN_BWD:
        snprintf(buf, cap, "%s(N=%d,C=%d,HW=%d%s)", upper(c->op, nm), a[0], a[1], a[2],
                 a[3] == 2 ? ",+r,relu" : a[3] ? ",relu" : "");
        break;
    case FLCE_OP_AVGPOOL_FWD:
    case FLCE_OP_AVGPOOL_BWD: snprintf(buf, cap, "%s(N=%d,C=%d,HW=%d)", upper(c->op, nm), a[0], a[1], a[2]); break;
    case FLCE_OP_RELU_FWD:
    case FLCE_OP_RELU_BWD:
    case FLCE_OP_ADD_RELU_BWD:
    case FLCE_OP_ADD: snprintf(buf, cap, "%s(n=%d%s)", upper(c->op, nm), a[0], a[1] ? ",relu" : ""); break;
    case FLCE_OP_LINEAR_FWD:
    case FLCE_OP_LINEAR_BWD: snprintf(buf, cap, "%s(N=%d,I=%d,O=%d)", upper(c->op, nm), a[0], a[1], a[2]); break;
    case FLCE_OP_SOFTMAX_CE: snprintf(buf, cap, "%s(N=%d,C=%d)", upper(c->op, nm), a[0], a[1]); break;
    case FLCE_OP_SUPCON: snprintf(buf, cap, "%s(N=%d,D=%d,classes=%d)", upper(c->op, nm), a[0], a[1], a[2]); break;
    case FLCE_OP_SGD:
        if (a[4] > 1) snprintf(buf, cap, "%s(n=%d,momentum=%d,wd=%d,first=%d,tensors=%d)", upper(c->op, nm), a[0], a[1], a[2], a[3], a[4]);
        else snprintf(buf, cap, "%s(n=%d,momentum=%d,wd=%d,first=%d)", upper(c->op, nm), a[0], a[1], a[2], a[3]);
        break;
    case FLCE_OP_WEIGHTED_SUM: snprintf(buf, cap, "%s(n=%d,K=%d)", upper(c->op, nm), a[0], a[1]); break;
    case FLCE_OP_COUNT: break; /* not an op (an op added to the list without a case here does not build: -Wswitch) */
    }
    return buf;
}

#define SENTINEL 64u         /* words after every buffer */
#define SENTINEL_BITS 0x7fc0deadu

/* One buffer on each backend, holding the same n values (or sentinels only for outputs). */
typedef struct {
    flce_buf *r, *b;
    size_t n;
    int out;
    const char *name;
} pair;

typedef struct {
    pair p[16];
    int np;
    flce_backend *ref, *be;
    uint32_t stream;
    int fail;
    int nan_as_one; /* NaN payloads are not part of the contract: every NaN compares as one */
} ctx;

static pair *mk(ctx *c, const char *name, size_t n, int kind, float scale, int out) {
    /* kind 0: normal * scale; 1: uniform labels below (int)scale (int32); 2: positive (var-like);
     * 3: normal * scale with every 23rd value inf, -inf or NaN in turn; 4: a ReLU's output,
     * max(normal * scale, 0) (half of it exact zeros, which a ReLU mask must tell from > 0) */
    static pair spare; /* past the table's room: the case fails instead of writing out of bounds */
    if (c->np == (int)(sizeof c->p / sizeof c->p[0])) {
        c->fail = 1;
        return &spare;
    }
    pair *p = &c->p[c->np++];
    p->n = n;
    p->out = out;
    p->name = name;
    size_t tot = n + SENTINEL;
    uint32_t *v = malloc(tot * 4);
    if (!v) {
        c->fail = 1;
        return p;
    }
    flce_rng r;
    flce_rng_init(&r, 1, FLCE_RNG_BENCH, c->stream, (uint32_t)c->np);
    for (size_t i = 0; i < n; i++) {
        float f;
        int32_t l;
        if (kind == 1) {
            l = (int32_t)flce_rng_below(&r, (uint32_t)scale);
            memcpy(&v[i], &l, 4);
            continue;
        }
        f = kind == 2 ? (float)(0.5 + flce_rng_uniform(&r)) : (float)(flce_rng_normal(&r) * scale);
        if (kind == 4 && !(f > 0.0f)) f = 0.0f;
        if (kind == 3 && i % 23 == 22) f = (i / 23) % 3 == 0 ? INFINITY : (i / 23) % 3 == 1 ? -INFINITY : NAN;
        memcpy(&v[i], &f, 4);
    }
    for (size_t i = n; i < tot; i++) v[i] = SENTINEL_BITS;
    p->r = c->ref->buf_alloc(c->ref, tot * 4);
    p->b = c->be->buf_alloc(c->be, tot * 4);
    if (!p->r || !p->b) c->fail = 1;
    else {
        c->ref->buf_write(c->ref, p->r, 0, v, tot * 4);
        c->be->buf_write(c->be, p->b, 0, v, tot * 4);
    }
    free(v);
    return p;
}

static double ulps(float a, float b) {
    if (isnan(a) || isnan(b)) return INFINITY;
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    if (ia < 0) ia = (int32_t)0x80000000 - ia;
    if (ib < 0) ib = (int32_t)0x80000000 - ib;
    return fabs((double)ia - (double)ib);
}

void flce_opcheck_diff(const float *x, const float *y, size_t n, flce_opcheck_result *r) {
    uint64_t dx = flce_digest(x, n * 4), dy = flce_digest(y, n * 4);
    r->digest_ref = dx;
    r->digest_be = dy;
    if (dx == dy) return;
    r->ok = 0;
    size_t k = 0;
    while (k < n && !memcmp(&x[k], &y[k], 4)) k++;
    r->first_diff = k;
    if (k < n) {
        r->v_ref = x[k];
        r->v_be = y[k];
        r->ulp = ulps(x[k], y[k]);
    }
    double se = 0, ss = 0;
    for (size_t m = 0; m < n; m++) {
        double d = (double)x[m] - y[m];
        se += d * d;
        ss += (double)x[m] * x[m];
    }
    r->nmse = ss > 0 ? se / ss : se;
}

static void compare(ctx *c, flce_opcheck_result *r) {
    for (int i = 0; i < c->np && r->ok; i++) {
        pair *p = &c->p[i];
        if (!p->out) continue;
        size_t tot = p->n + SENTINEL;
        float *x = malloc(tot * 4), *y = malloc(tot * 4);
        if (!x || !y) {
            free(x), free(y);
            c->fail = 1;
            return;
        }
        c->ref->buf_read(c->ref, p->r, 0, x, tot * 4);
        c->be->buf_read(c->be, p->b, 0, y, tot * 4);
        for (size_t k = p->n; k < tot; k++) {
            uint32_t w;
            memcpy(&w, &y[k], 4);
            if (w != SENTINEL_BITS) r->sentinel_broken = 1;
        }
        int broken = r->sentinel_broken;
        for (size_t k = 0; k < p->n && c->nan_as_one; k++) {
            if (x[k] != x[k]) x[k] = NAN;
            if (y[k] != y[k]) y[k] = NAN;
        }
        flce_opcheck_diff(x, y, p->n, r);
        if (broken) r->ok = 0, r->sentinel_broken = 1;
        if (!r->ok) snprintf(r->output, sizeof r->output, "%s", p->name);
        free(x), free(y);
    }
}

/* One case per group of ops: the inputs on both backends from the same stream, the op on each. */
#define S(p) (k ? (p)->b : (p)->r)
static void run_conv(ctx *c, const op_case *oc, flce_backend **bk) {
    const int *a = oc->a;
        flce_conv_shape s;
        flce_conv_shape_init(&s, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
        size_t nx = (size_t)s.N * s.C * s.H * s.W, nw = (size_t)s.K * s.C * s.R * s.R, ny = (size_t)s.N * s.K * s.OH * s.OW;
        int f = oc->op == FLCE_OP_CONV2D_FWD, d = oc->op == FLCE_OP_CONV2D_BWD_DATA;
        int kind = a[8] ? 3 : 0;
        pair *x = mk(c, "x", nx, kind, 1, d), *w = mk(c, "w", nw, kind, 0.3f, oc->op == FLCE_OP_CONV2D_BWD_WEIGHT);
        pair *y = mk(c, "y", ny, kind, 1, f);
        if (c->fail) return;
        for (int k = 0; k < 2; k++) {
            flce_buf *X = k ? x->b : x->r, *Wb = k ? w->b : w->r, *Y = k ? y->b : y->r;
            if (f) bk[k]->conv2d_fwd(bk[k], &s, X, Wb, Y);
            else if (d) bk[k]->conv2d_bwd_data(bk[k], &s, Y, Wb, X);
            else bk[k]->conv2d_bwd_weight(bk[k], &s, X, Y, Wb);
            bk[k]->sync(bk[k]);
        }
}

/* The convolution's inputs as run_conv draws them, then BatchNorm's parameters as run_bn's; r
 * (modes 2 and 3) normal; t is scratch (not compared). */
static void run_conv_bn(ctx *c, const op_case *oc, flce_backend **bk) {
    const int *a = oc->a;
    flce_conv_shape s;
    flce_conv_shape_init(&s, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
    size_t nx = (size_t)s.N * s.C * s.H * s.W, nw = (size_t)s.K * s.C * s.R * s.R, ny = (size_t)s.N * s.K * s.OH * s.OW;
    int kind = a[8] ? 3 : 0, mode = a[9], res = mode >= 2, relu = mode == 1 || mode == 2;
    pair *x = mk(c, "x", nx, kind, 1, 0), *w = mk(c, "w", nw, kind, 0.3f, 0), *y = mk(c, "y", ny, 0, 1, 1);
    pair *t = mk(c, "t", ny, 0, 1, 0), *r = mk(c, "r", res ? ny : 1, 0, 1, 0);
    pair *g = mk(c, "gamma", (size_t)s.K, 0, 1, 0), *b = mk(c, "beta", (size_t)s.K, 0, 1, 0);
    pair *rm = mk(c, "running_mean", (size_t)s.K, 0, 1, 0), *rv = mk(c, "running_var", (size_t)s.K, 2, 1, 0);
    if (c->fail) return;
    for (int k = 0; k < 2; k++) {
        bk[k]->conv2d_fwd_bn_eval(bk[k], &s, S(x), S(w), 1e-5f, S(g), S(b), S(rm), S(rv), res ? S(r) : NULL, relu, S(t),
                                  S(y));
        bk[k]->sync(bk[k]);
    }
}

static void run_bn(ctx *c, const op_case *oc, flce_backend **bk) {
    const int *a = oc->a;
        int N = a[0], C = a[1], HW = a[2];
        size_t n = (size_t)N * C * HW;
        int tr = oc->op == FLCE_OP_BN_FWD_TRAIN || oc->op == FLCE_OP_BN_FWD_TRAIN_RES, ev = oc->op == FLCE_OP_BN_FWD_EVAL, bw = !tr && !ev, relu = a[3];
        pair *x = mk(c, "x", n, 0, 2, 0), *g = mk(c, "gamma", (size_t)C, 0, 1, 0), *b = mk(c, "beta", (size_t)C, 0, 1, 0);
        pair *y = mk(c, tr || ev ? "y" : "dx", n, 0, 1, 1), *dy = mk(c, "dy", bw ? n : 1, 0, 1, 0);
        pair *yr = mk(c, "relu_y", bw && relu ? n : 1, 4, 1, 0), *mean = mk(c, "mean", (size_t)C, 0, 1, tr);
        pair *is = mk(c, "invstd", (size_t)C, 2, 1, tr), *rm = mk(c, "running_mean", (size_t)C, 0, 1, tr);
        pair *rv = mk(c, "running_var", (size_t)C, 2, 1, tr), *dg = mk(c, "dgamma", (size_t)C, 0, 1, bw);
        pair *db = mk(c, "dbeta", (size_t)C, 0, 1, bw), *res = mk(c, "r", tr && relu == 2 ? n : 1, 0, 1, 0);
        if (c->fail) return;
        for (int k = 0; k < 2; k++) {
            if (tr && relu == 2)
                bk[k]->bn_fwd_train_res(bk[k], N, C, HW, 1e-5f, 0.1f, S(x), S(g), S(b), S(res), S(y), S(mean), S(is), S(rm), S(rv));
            else if (tr) bk[k]->bn_fwd_train(bk[k], N, C, HW, 1e-5f, 0.1f, relu, S(x), S(g), S(b), S(y), S(mean), S(is), S(rm), S(rv));
            else if (ev) bk[k]->bn_fwd_eval(bk[k], N, C, HW, 1e-5f, relu, S(x), S(g), S(b), S(rm), S(rv), S(y));
            else bk[k]->bn_bwd(bk[k], N, C, HW, relu ? S(yr) : NULL, S(dy), S(x), S(mean), S(g), S(is), S(y), S(dg), S(db));
            bk[k]->sync(bk[k]);
        }
}

static void run_eltwise(ctx *c, const op_case *oc, flce_backend **bk) {
    const int *a = oc->a;
        size_t n = (size_t)a[0];
        pair *x = mk(c, "a", n, oc->op == FLCE_OP_RELU_BWD ? 4 : 0, 1, 0), *d = mk(c, "b", n, 0, 1, 0);
        pair *y = mk(c, "y", n, 0, 1, 1), *yr = mk(c, "relu_y", oc->op == FLCE_OP_ADD_RELU_BWD ? n : 1, 4, 1, 0);
        if (c->fail) return;
        for (int k = 0; k < 2; k++) {
            if (oc->op == FLCE_OP_RELU_FWD) bk[k]->relu_fwd(bk[k], n, S(x), S(y));
            else if (oc->op == FLCE_OP_RELU_BWD) bk[k]->relu_bwd(bk[k], n, S(x), S(d), S(y));
            else if (oc->op == FLCE_OP_ADD_RELU_BWD) bk[k]->add_relu_bwd(bk[k], n, S(x), S(d), S(yr), S(y));
            else bk[k]->add(bk[k], n, a[1], S(x), S(d), S(y));
            bk[k]->sync(bk[k]);
        }
}

static void run_pool(ctx *c, const op_case *oc, flce_backend **bk) {
    const int *a = oc->a;
        int N = a[0], C = a[1], HW = a[2], f = oc->op == FLCE_OP_AVGPOOL_FWD;
        pair *x = mk(c, f ? "x" : "dx", (size_t)N * C * HW, 0, 1, !f), *z = mk(c, f ? "z" : "dz", (size_t)N * C, 0, 1, f);
        if (c->fail) return;
        for (int k = 0; k < 2; k++) {
            if (f) bk[k]->avgpool_fwd(bk[k], N, C, HW, S(x), S(z));
            else bk[k]->avgpool_bwd(bk[k], N, C, HW, S(z), S(x));
            bk[k]->sync(bk[k]);
        }
}

static void run_linear(ctx *c, const op_case *oc, flce_backend **bk) {
    const int *a = oc->a;
        int N = a[0], I = a[1], O = a[2], f = oc->op == FLCE_OP_LINEAR_FWD;
        pair *x = mk(c, "x", (size_t)N * I, 0, 1, 0), *w = mk(c, "w", (size_t)O * I, 0, 0.3f, 0);
        pair *b = mk(c, "b", (size_t)O, 0, 1, 0), *y = mk(c, f ? "y" : "dy", (size_t)N * O, 0, 1, f);
        pair *dx = mk(c, "dx", (size_t)N * I, 0, 1, !f), *dw = mk(c, "dw", (size_t)O * I, 0, 1, !f);
        pair *db = mk(c, "db", (size_t)O, 0, 1, !f);
        if (c->fail) return;
        for (int k = 0; k < 2; k++) {
            if (f) bk[k]->linear_fwd(bk[k], N, I, O, S(x), S(w), S(b), S(y));
            else bk[k]->linear_bwd(bk[k], N, I, O, S(x), S(w), S(y), S(dx), S(dw), S(db));
            bk[k]->sync(bk[k]);
        }
}

static void run_softmax_ce(ctx *c, const op_case *oc, flce_backend **bk) {
    const int *a = oc->a;
        int N = a[0], C = a[1];
        pair *l = mk(c, "logits", (size_t)N * C, 0, 3, 0), *y = mk(c, "labels", (size_t)N, 1, (float)C, 0);
        pair *loss = mk(c, "loss", 1, 0, 1, 1), *dl = mk(c, "dlogits", (size_t)N * C, 0, 1, 1);
        pair *pr = mk(c, "pred", (size_t)N, 1, (float)C, 1);
        if (c->fail) return;
        for (int k = 0; k < 2; k++) {
            bk[k]->softmax_ce(bk[k], N, C, S(l), S(y), S(loss), S(dl), S(pr));
            bk[k]->sync(bk[k]);
        }
}

static void run_supcon(ctx *c, const op_case *oc, flce_backend **bk) {
    const int *a = oc->a;
        int N = a[0], D = a[1];
        pair *z = mk(c, "z", (size_t)N * D, 0, 1, 0), *y = mk(c, "labels", (size_t)N, 1, (float)a[2], 0);
        pair *loss = mk(c, "loss", 1, 0, 1, 1), *dz = mk(c, "dz", (size_t)N * D, 0, 1, 1);
        if (c->fail) return;
        for (int k = 0; k < 2; k++) {
            bk[k]->supcon(bk[k], N, D, 0.5f, 0.7f, S(z), S(y), S(loss), S(dz));
            bk[k]->sync(bk[k]);
        }
}

/* SGD of one tensor, or (a[4] = T > 1) of T tensors of different lengths one after the other and
 * then the last again: a backend that sends consecutive updates out together (Vulkan, four a
 * dispatch) must give each tensor its own length and let the repeated update see the first. */
static void run_sgd(ctx *c, const op_case *oc, flce_backend **bk) {
    const int *a = oc->a;
        int T = a[4] > 1 ? (a[4] < 5 ? a[4] : 5) : 1;
        size_t len[5] = {(size_t)a[0], (size_t)a[0] / 2 + 1, 1, 257, 3};
        pair *w[5], *g[5], *m[5];
        for (int t = 0; t < T; t++) {
            w[t] = mk(c, "w", len[t], 0, 1, 1), g[t] = mk(c, "g", len[t], 0, 1, 0);
            m[t] = mk(c, "momentum", len[t], 0, 1, a[1]);
        }
        if (c->fail) return;
        for (int k = 0; k < 2; k++) {
            for (int u = 0; u < T + (T > 1); u++) {
                int t = u < T ? u : T - 1;
                bk[k]->sgd(bk[k], len[t], 0.01f, a[1] ? 0.9f : 0.0f, a[2] ? 5e-4f : 0.0f, a[3], S(w[t]), S(g[t]),
                           a[1] ? S(m[t]) : NULL);
            }
            bk[k]->sync(bk[k]);
        }
}

static void run_wsum(ctx *c, const op_case *oc, flce_backend **bk) {
    const int *a = oc->a;
        size_t n = (size_t)a[0];
        int K = a[1];
        pair *xs[10];
        float wts[10];
        for (int k = 0; k < K; k++) {
            xs[k] = mk(c, "x", n, 0, 1, 0);
            wts[k] = 1.0f / (float)(k + 3);
        }
        pair *y = mk(c, "y", n, 0, 1, 1);
        if (c->fail) return;
        for (int k = 0; k < 2; k++) {
            const flce_buf *bs[10];
            for (int j = 0; j < K; j++) bs[j] = S(xs[j]);
            bk[k]->weighted_sum(bk[k], n, K, wts, bs, S(y));
            bk[k]->sync(bk[k]);
        }
}
#undef S

flce_status flce_opcheck_run(int i, flce_backend *ref, flce_backend *be, flce_opcheck_result *r, flce_err *e) {
    if (i < 0 || i >= flce_opcheck_count()) return flce_fail(e, FLCE_ERR_ARG, "opcheck: no case %d", i);
    memset(r, 0, sizeof *r);
    r->ok = 1;
    flce_opcheck_name(i, r->name, sizeof r->name);
    const op_case *oc = &CASES[i];
    ctx c = {.ref = ref, .be = be, .stream = (uint32_t)i, .nan_as_one = CASES[i].a[8]};
    flce_backend *bk[2] = {ref, be};
    switch (oc->op) {
    case FLCE_OP_CONV2D_FWD:
    case FLCE_OP_CONV2D_BWD_DATA:
    case FLCE_OP_CONV2D_BWD_WEIGHT:
        run_conv(&c, oc, bk);
        break;
    case FLCE_OP_CONV2D_FWD_BN_EVAL:
        run_conv_bn(&c, oc, bk);
        break;
    case FLCE_OP_BN_FWD_TRAIN:
    case FLCE_OP_BN_FWD_TRAIN_RES:
    case FLCE_OP_BN_FWD_EVAL:
    case FLCE_OP_BN_BWD:
        run_bn(&c, oc, bk);
        break;
    case FLCE_OP_RELU_FWD:
    case FLCE_OP_RELU_BWD:
    case FLCE_OP_ADD:
    case FLCE_OP_ADD_RELU_BWD:
        run_eltwise(&c, oc, bk);
        break;
    case FLCE_OP_AVGPOOL_FWD:
    case FLCE_OP_AVGPOOL_BWD:
        run_pool(&c, oc, bk);
        break;
    case FLCE_OP_LINEAR_FWD:
    case FLCE_OP_LINEAR_BWD:
        run_linear(&c, oc, bk);
        break;
    case FLCE_OP_SOFTMAX_CE:
        run_softmax_ce(&c, oc, bk);
        break;
    case FLCE_OP_SUPCON:
        run_supcon(&c, oc, bk);
        break;
    case FLCE_OP_SGD:
        run_sgd(&c, oc, bk);
        break;
    case FLCE_OP_WEIGHTED_SUM:
        run_wsum(&c, oc, bk);
        break;
    case FLCE_OP_COUNT: break;
    }
    flce_status st = FLCE_OK;
    if (c.fail) st = flce_fail(e, FLCE_ERR_NOMEM, "%s: cannot allocate buffers", r->name);
    else compare(&c, r);
    for (int k = 0; k < c.np; k++) {
        if (c.p[k].r) ref->buf_free(ref, c.p[k].r);
        if (c.p[k].b) be->buf_free(be, c.p[k].b);
    }
    return st;
}
