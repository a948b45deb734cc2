/* test_ops.c: every training op. (1) The CPU backend against the reference, bit for bit
 * (xxh3-64 of the outputs), over a table of shapes with odd and edge sizes; on a mismatch
 * the first differing index and both values are printed. (2) Gradients against central
 * finite differences of L = sum(y * r) computed in double from the float32 forward. (3)
 * Small cases by hand. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "flce_eq.h"
#include "hostbuf.h"
#include "ops.h"

static flce_backend *cpu;
static void setup(void) { cpu = flce_backend_cpu(2); }
static void teardown(void) { cpu->destroy(cpu); }

static void fill(float *x, size_t n, uint32_t stream, float scale) {
    flce_rng r;
    flce_rng_init(&r, 77, FLCE_RNG_TEST, stream, 0);
    for (size_t i = 0; i < n; i++) x[i] = (float)(flce_rng_normal(&r) * scale);
}

static flce_buf *mk(flce_backend *be, const float *src, size_t n) {
    flce_buf *b = be->buf_alloc(be, n * sizeof(float));
    if (src) be->buf_write(be, b, 0, src, n * sizeof(float));
    return b;
}

static void same_bits(const char *what, flce_backend *a, flce_buf *ba, flce_backend *b, flce_buf *bb, size_t n) {
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    a->buf_read(a, ba, 0, x, n * sizeof *x);
    b->buf_read(b, bb, 0, y, n * sizeof *y);
    uint64_t dx = flce_digest(x, n * sizeof *x), dy = flce_digest(y, n * sizeof *y);
    if (dx != dy) {
        size_t i = 0;
        while (i < n && !memcmp(&x[i], &y[i], 4)) i++;
        cr_assert(0, "%s: %s and %s differ first at %zu: %.9g vs %.9g", what, a->name, b->name, i, x[i], y[i]);
    }
    free(x);
    free(y);
}

static const int CONV_CASES[][8] = {
    /* N, C, H, W, K, R, stride, pad */
    {1, 1, 1, 1, 1, 3, 1, 1},    {2, 3, 5, 7, 4, 3, 1, 1},     {3, 16, 9, 9, 16, 3, 2, 1},
    {2, 5, 8, 8, 7, 1, 2, 0},    {1, 2, 6, 5, 3, 1, 1, 0},     {2, 16, 32, 32, 16, 3, 1, 1},
    {2, 32, 16, 16, 64, 3, 2, 1}, {3, 3, 33, 31, 17, 3, 1, 1}, {1, 64, 8, 8, 64, 3, 1, 1},
    {5, 1, 28, 28, 16, 3, 1, 1}, {2, 32, 7, 7, 64, 1, 2, 0},
};

Test(ops, conv_cpu_equals_reference_bit_for_bit, .init = setup, .fini = teardown, .timeout = 120) {
    flce_backend *ref = flce_backend_reference();
    for (size_t c = 0; c < sizeof CONV_CASES / sizeof CONV_CASES[0]; c++) {
        const int *v = CONV_CASES[c];
        flce_conv_shape s;
        flce_conv_shape_init(&s, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
        size_t nx = (size_t)s.N * s.C * s.H * s.W, nw = (size_t)s.K * s.C * s.R * s.R, ny = (size_t)s.N * s.K * s.OH * s.OW;
        float *x = malloc(nx * 4), *w = malloc(nw * 4), *dy = malloc(ny * 4);
        fill(x, nx, (uint32_t)c, 1), fill(w, nw, 100 + (uint32_t)c, 0.3f), fill(dy, ny, 200 + (uint32_t)c, 1);
        flce_backend *be[2] = {ref, cpu};
        flce_buf *bx[2], *bw[2], *bdy[2], *by[2], *bdx[2], *bdw[2];
        for (int i = 0; i < 2; i++) {
            bx[i] = mk(be[i], x, nx), bw[i] = mk(be[i], w, nw), bdy[i] = mk(be[i], dy, ny);
            by[i] = mk(be[i], NULL, ny), bdx[i] = mk(be[i], NULL, nx), bdw[i] = mk(be[i], NULL, nw);
            be[i]->conv2d_fwd(be[i], &s, bx[i], bw[i], by[i]);
            be[i]->conv2d_bwd_data(be[i], &s, bdy[i], bw[i], bdx[i]);
            be[i]->conv2d_bwd_weight(be[i], &s, bx[i], bdy[i], bdw[i]);
        }
        char name[160];
        snprintf(name, sizeof name, "CONV(N=%d,C=%d,H=%d,W=%d,K=%d,R=%d,s=%d,p=%d)", v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
        same_bits(name, ref, by[0], cpu, by[1], ny);
        same_bits(name, ref, bdx[0], cpu, bdx[1], nx);
        same_bits(name, ref, bdw[0], cpu, bdw[1], nw);
        for (int i = 0; i < 2; i++) {
            be[i]->buf_free(be[i], bx[i]), be[i]->buf_free(be[i], bw[i]), be[i]->buf_free(be[i], bdy[i]);
            be[i]->buf_free(be[i], by[i]), be[i]->buf_free(be[i], bdx[i]), be[i]->buf_free(be[i], bdw[i]);
        }
        free(x), free(w), free(dy);
    }
}

static double dotd(const float *a, const float *b, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)a[i] * b[i];
    return s;
}

/* L = sum(conv(x, w) * r): dL/dx = bwd_data(r), dL/dw = bwd_weight(x, r) */
Test(ops, conv_gradients_match_finite_differences) {
    flce_conv_shape s;
    flce_conv_shape_init(&s, 2, 3, 7, 6, 4, 3, 2, 1);
    size_t nx = (size_t)s.N * s.C * s.H * s.W, nw = (size_t)s.K * s.C * 9, ny = (size_t)s.N * s.K * s.OH * s.OW;
    float *x = malloc(nx * 4), *w = malloc(nw * 4), *r = malloc(ny * 4), *y = malloc(ny * 4), *dx = malloc(nx * 4),
          *dw = malloc(nw * 4);
    fill(x, nx, 1, 1), fill(w, nw, 2, 1), fill(r, ny, 3, 1);
    ref_conv2d_bwd_data(&s, r, w, dx);
    ref_conv2d_bwd_weight(&s, x, r, dw);
    const float h = 1.0f / 64; /* a power of two: x +- h is exact for |x| < 2^18 h */
    for (size_t i = 0; i < nx; i += 7) {
        float s0 = x[i];
        x[i] = s0 + h;
        ref_conv2d_fwd(&s, x, w, y);
        double lp = dotd(y, r, ny);
        x[i] = s0 - h;
        ref_conv2d_fwd(&s, x, w, y);
        double lm = dotd(y, r, ny);
        x[i] = s0;
        double fd = (lp - lm) / (2 * h);
        cr_assert(fabs(fd - dx[i]) < 1e-4 * (1 + fabs(fd)), "dx[%zu]: %g vs fd %g", i, dx[i], fd);
    }
    for (size_t i = 0; i < nw; i += 5) {
        float s0 = w[i];
        w[i] = s0 + h;
        ref_conv2d_fwd(&s, x, w, y);
        double lp = dotd(y, r, ny);
        w[i] = s0 - h;
        ref_conv2d_fwd(&s, x, w, y);
        double lm = dotd(y, r, ny);
        w[i] = s0;
        double fd = (lp - lm) / (2 * h);
        cr_assert(fabs(fd - dw[i]) < 1e-4 * (1 + fabs(fd)), "dw[%zu]: %g vs fd %g", i, dw[i], fd);
    }
    free(x), free(w), free(r), free(y), free(dx), free(dw);
}

/* BatchNorm training: L = sum(bn(x) * r) through the batch statistics */
Test(ops, batchnorm_gradients_match_finite_differences) {
    enum { N = 3, C = 2, HW = 5, M = N * C * HW };
    float x[M], r[M], y[M], xh[M], dx[M], g[C] = {1.5f, -0.7f}, b[C] = {0.2f, 0.1f}, is[C], rm[C], rv[C], dg[C], db[C];
    fill(x, M, 4, 2), fill(r, M, 5, 1);
    ref_bn_fwd_train(N, C, HW, 1e-5f, 0.1f, x, g, b, y, xh, is, rm, rv);
    ref_bn_bwd(N, C, HW, r, xh, g, is, dx, dg, db);
    for (int i = 0; i < M; i++) {
        double f[2];
        for (int sgn = 0; sgn < 2; sgn++) {
            float s0 = x[i];
            x[i] = s0 + (sgn ? -1 : 1) * (1.0f / 256);
            ref_bn_fwd_train(N, C, HW, 1e-5f, 0.1f, x, g, b, y, xh, is, rm, rv);
            f[sgn] = dotd(y, r, M);
            x[i] = s0;
        }
        double fd = (f[0] - f[1]) / (2.0 / 256);
        cr_assert(fabs(fd - dx[i]) < 2e-3 * (1 + fabs(fd)), "dx[%d]: %g vs fd %g", i, dx[i], fd);
    }
    /* dgamma = sum r xhat, dbeta = sum r, by the definition */
    ref_bn_fwd_train(N, C, HW, 1e-5f, 0.1f, x, g, b, y, xh, is, rm, rv);
    for (int c = 0; c < C; c++) {
        double sg = 0, sb = 0;
        for (int n = 0; n < N; n++)
            for (int i = 0; i < HW; i++) sg += (double)r[(n * C + c) * HW + i] * xh[(n * C + c) * HW + i], sb += r[(n * C + c) * HW + i];
        cr_assert(fabs(sg - dg[c]) < 1e-5 && fabs(sb - db[c]) < 1e-5);
    }
}

Test(ops, batchnorm_by_hand) {
    /* one channel, values 1, 2, 3, 6: mean 3, biased var (4 + 1 + 0 + 9)/4 = 3.5, unbiased 14/3;
     * running stats from (0, 1) with momentum 0.1: mean 0.3, var 0.9 + 0.1 * 14/3 */
    float x[4] = {1, 2, 3, 6}, g[1] = {2}, b[1] = {1}, y[4], xh[4], is[1], rm[1] = {0}, rv[1] = {1};
    ref_bn_fwd_train(1, 1, 4, 0.0f, 0.1f, x, g, b, y, xh, is, rm, rv);
    cr_assert(fabs(is[0] - 1 / sqrt(3.5)) < 1e-7);
    cr_assert(fabs(y[3] - (2 * 3 / sqrt(3.5) + 1)) < 1e-6);
    cr_assert(fabs(rm[0] - 0.3) < 1e-7 && fabs(rv[0] - (0.9 + 0.1 * 14.0 / 3)) < 1e-6, "%g %g", rm[0], rv[0]);
    float ye[4];
    ref_bn_fwd_eval(1, 1, 4, 0.0f, x, g, b, rm, rv, ye); /* (x - 0.3) / sqrt(rv) * 2 + 1 */
    cr_assert(fabs(ye[0] - ((1 - 0.3) / sqrt(rv[0]) * 2 + 1)) < 1e-6);
}

Test(ops, linear_pool_relu_add_by_hand_and_gradients) {
    /* y = W x + b with W = [[1,2],[3,4],[5,6]], x = (1,-1), b = (0.5,0,-1) -> (-0.5, -1, -2) */
    float x[2] = {1, -1}, w[6] = {1, 2, 3, 4, 5, 6}, b[3] = {0.5f, 0, -1}, y[3];
    ref_linear_fwd(1, 2, 3, x, w, b, y);
    cr_assert(y[0] == -0.5f && y[1] == -1.0f && y[2] == -2.0f);
    /* dy = (1, 0, 2): dx = W^T dy = (11, 14), dW = dy x^T, db = dy */
    float dy[3] = {1, 0, 2}, dx[2], dw[6], db[3];
    ref_linear_bwd(1, 2, 3, x, w, dy, dx, dw, db);
    cr_assert(dx[0] == 11 && dx[1] == 14 && dw[4] == 2 && dw[5] == -2 && db[2] == 2);
    /* pooling: mean of 4 values; gradient spread evenly */
    float p[8] = {1, 2, 3, 6, 0, 0, 0, 4}, z[2], dp[8], dz[2] = {4, 8};
    ref_avgpool_fwd(1, 2, 4, p, z);
    cr_assert(z[0] == 3 && z[1] == 1);
    ref_avgpool_bwd(1, 2, 4, dz, dp);
    cr_assert(dp[0] == 1 && dp[7] == 2);
    float a[3] = {-1, 0, 2}, ra[3], da[3], one[3] = {5, 5, 5}, s[3];
    ref_relu_fwd(3, a, ra);
    cr_assert(ra[0] == 0 && ra[1] == 0 && ra[2] == 2);
    ref_relu_bwd(3, ra, one, da);
    cr_assert(da[0] == 0 && da[1] == 0 && da[2] == 5);
    ref_add(3, a, one, s);
    cr_assert(s[0] == 4 && s[2] == 7);
}

Test(ops, softmax_cross_entropy_by_hand_and_gradient) {
    /* logits (0, ln 3) with label 1: p = (1/4, 3/4), loss = ln(4/3); gradient (p - onehot) */
    float l[2] = {0, (float)log(3.0)}, loss, dl[2];
    int32_t y[1] = {1}, pred[1];
    ref_softmax_ce(1, 2, l, y, &loss, dl, pred);
    cr_assert(fabs(loss - log(4.0 / 3)) < 1e-6 && pred[0] == 1);
    cr_assert(fabs(dl[0] - 0.25) < 1e-6 && fabs(dl[1] + 0.25) < 1e-6);
    enum { N = 4, C = 5 };
    float lg[N * C], d[N * C], dd[N * C];
    int32_t lab[N] = {0, 3, 4, 3}, pr[N];
    fill(lg, N * C, 6, 2);
    ref_softmax_ce(N, C, lg, lab, &loss, d, pr);
    for (int i = 0; i < N * C; i++) {
        float s0 = lg[i], lp, lm;
        lg[i] = s0 + 1.0f / 512;
        ref_softmax_ce(N, C, lg, lab, &lp, dd, pr);
        lg[i] = s0 - 1.0f / 512;
        ref_softmax_ce(N, C, lg, lab, &lm, dd, pr);
        lg[i] = s0;
        double fd = ((double)lp - lm) * 256;
        cr_assert(fabs(fd - d[i]) < 2e-4, "dlogit[%d] %g vs fd %g", i, d[i], fd);
    }
}

Test(ops, supcon_float32_follows_the_float64_definition) {
    enum { N = 12, D = 16 };
    float z[N * D], dz[N * D], loss;
    double zd[N * D], g[N * D];
    int32_t y[N];
    int yi[N];
    for (int i = 0; i < N; i++) y[i] = yi[i] = i % 4;
    y[11] = yi[11] = 9; /* an anchor without positives */
    fill(z, N * D, 7, 1);
    for (int i = 0; i < N * D; i++) zd[i] = z[i];
    ref_supcon(N, D, 0.5f, 2.0f, z, y, &loss, dz);
    double want = flce_supcon_loss(zd, yi, N, D, 0.5, g);
    cr_assert(fabs(loss - want) < 1e-5 * (1 + want), "%g vs %g", loss, want);
    for (int i = 0; i < N * D; i++) cr_assert(fabs(dz[i] - 2 * g[i]) < 1e-5, "dz[%d] %g vs %g", i, dz[i], 2 * g[i]);
    float zero[N * D] = {0};
    ref_supcon(N, D, 0.5f, 1.0f, zero, y, &loss, dz); /* zero features: finite loss, zero gradient */
    cr_assert(isfinite(loss));
    for (int i = 0; i < N * D; i++) cr_assert(dz[i] == 0);
}

Test(ops, sgd_and_weighted_sum_by_hand) {
    /* w = 1, g = 2, lr 0.5: 0; with wd 0.5: g' = 2.5 -> -0.25; momentum 0.9, second step
     * m = 0.9 * 2 + 2 = 3.8 -> w = 1 - 0.5 * 3.8 = -0.9 */
    float w = 1, g = 2, m = 0;
    ref_sgd(1, 0.5f, 0, 0, 1, &w, &g, NULL);
    cr_assert(w == 0);
    w = 1;
    ref_sgd(1, 0.5f, 0, 0.5f, 1, &w, &g, NULL);
    cr_assert(w == -0.25f);
    w = 1;
    ref_sgd(1, 0.5f, 0.9f, 0, 1, &w, &g, &m);
    cr_assert(m == 2 && w == 0);
    w = 1;
    ref_sgd(1, 0.5f, 0.9f, 0, 0, &w, &g, &m);
    cr_assert(fabsf(m - 3.8f) < 1e-6f && fabsf(w + 0.9f) < 1e-6f);
    float a[2] = {0.25f, 0.75f}, x0[2] = {4, 8}, x1[2] = {8, 0}, y[2];
    const float *xs[2] = {x0, x1};
    ref_weighted_sum(2, 2, a, xs, y);
    cr_assert(y[0] == 7 && y[1] == 2);
}

Test(ops, striped_sum_order) {
    /* 1e8 + 1 + ... : the S8 order adds lane by lane, so 8 ones after 1e8 in lane 0 and the
     * rest spread: compare with the order written out by hand */
    float x[17];
    for (int i = 0; i < 17; i++) x[i] = 1;
    x[0] = 1e8f;
    float l0 = (1e8f + 1.0f) + 1.0f; /* j = 0, 8, 16 */
    float want = ((l0 + 2.0f) + (2.0f + 2.0f)) + ((2.0f + 2.0f) + (2.0f + 2.0f));
    cr_assert(ref_sum8(x, 17) == want);
}
