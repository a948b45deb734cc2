/* test_ops.c: every training op. (1) The CPU backend against the reference, bit for bit
 * (xxh3-64 of the outputs), over a table of shapes with odd and edge sizes; on a mismatch
 * the first differing index and both values are printed. (2) Gradients against central
 * finite differences of L = sum(y * r) computed in double from the float32 forward. (3)
 * Small cases by hand. */
#include <criterion/criterion.h>
#include "testutil.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "flce_eq.h"
#include "hostbuf.h"
#include "opcheck.h"
#include "ops.h"
#include "cpu.h"
#include "model.h"
#include "ref_backend.h"

static flce_backend *cpu;
static void setup(void) { cpu = flce_backend_cpu(2); }
static void teardown(void) { cpu->destroy(cpu); }

static void fill(float *x, size_t n, uint32_t stream, float scale) { /* seeded normal values */
    flce_rng r;
    flce_rng_init(&r, 77, FLCE_RNG_TEST, stream, 0);
    for (size_t i = 0; i < n; i++) x[i] = (float)(flce_rng_normal(&r) * scale);
}

/* Every case of the cross-check table (check/opcheck.c): CPU equals reference, bit for bit,
 * and writes nothing past the end of its outputs. */
Test(ops, every_op_cpu_equals_reference_bit_for_bit, .init = setup, .fini = teardown, .timeout = FLCE_HANG_GUARD) {
    flce_backend *ref = flce_backend_reference();
    int n = flce_opcheck_count(), bad = 0;
    cr_assert(n >= 60, "%d cases", n);
    for (int i = 0; i < n; i++) {
        flce_opcheck_result r;
        flce_err e = {{0}};
        cr_assert_eq(flce_opcheck_run(i, ref, cpu, &r, &e), FLCE_OK, "%s", e.msg);
        if (!r.ok) {
            bad++;
            printf("MISMATCH %s output %s: first at %zu: %.9g vs %.9g (%g ulp), NMSE %g%s\n", r.name, r.output, r.first_diff,
                   r.v_ref, r.v_be, r.ulp, r.nmse, r.sentinel_broken ? ", sentinel overwritten" : "");
        }
    }
    cr_assert_eq(bad, 0, "%d of %d cases differ", bad, n);
}

/* The harness itself must see a difference: the reference against a backend whose
 * convolution adds in another order. */
static void conv_reversed(flce_backend *be, const flce_conv_shape *s, const flce_buf *x, const flce_buf *w, flce_buf *y) {
    (void)be;
    flce_conv_shape t = *s;
    ref_conv2d_fwd(&t, HB_CF(x), HB_CF(w), HB_F(y));
    HB_F(y)[0] = nextafterf(HB_F(y)[0], INFINITY); /* one ulp off */
}

Test(ops, the_cross_check_catches_one_ulp) {
    flce_backend *ref = flce_backend_reference(), bad = *ref;
    bad.name = "broken";
    bad.conv2d_fwd = conv_reversed;
    flce_opcheck_result r;
    int found = 0;
    for (int i = 0; i < flce_opcheck_count() && !found; i++) {
        char nm[160];
        if (strncmp(flce_opcheck_name(i, nm, sizeof nm), "CONV2D_FWD(", 11)) continue;
        cr_assert_eq(flce_opcheck_run(i, ref, &bad, &r, NULL), FLCE_OK);
        cr_assert(!r.ok && r.first_diff == 0 && r.ulp == 1, "%s: ok %d first %zu ulp %g", r.name, r.ok, r.first_diff, r.ulp);
        found = 1;
    }
    cr_assert(found);
}

/* The op list is the one source: every backend has every op, a missing one is named, and the
 * cross-check table has a case for each op of the list. */
Test(ops, every_backend_has_every_op_of_the_list, .init = setup, .fini = teardown) {
    flce_backend *ref = flce_backend_reference();
    flce_backend *fz = flce_backend_ftz(flce_backend_cpu(1));
    cr_assert_null(flce_backend_missing_op(ref));
    cr_assert_null(flce_backend_missing_op(cpu));
    cr_assert_null(flce_backend_missing_op(fz));
    cr_assert_eq(FLCE_OP_COUNT, 20);
    cr_assert_str_eq(flce_op_name(FLCE_OP_CONV2D_FWD), "conv2d_fwd");
    cr_assert_str_eq(flce_op_name(FLCE_OP_WEIGHTED_SUM), "weighted_sum");
    flce_backend lacking = *ref;
    lacking.supcon = NULL;
    cr_assert_str_eq(flce_backend_missing_op(&lacking), "supcon");
    flce_model m;
    flce_err e = {{0}};
    cr_assert_eq(flce_model_create(&m, &lacking, 1, 8, 8, 3, 2, &e), FLCE_ERR_ARG);
    cr_assert_str_eq(e.msg, "backend 'reference' lacks the op supcon: it cannot train");
    cr_assert_null(flce_opcheck_missing(), "no case for %s", flce_opcheck_missing());
    fz->destroy(fz);
}

/* A failing op records its failure once (the first), the model's calls return it with its
 * message, and the ftz wrapper passes its inner backend's failure on. */
static int fails_seen;
static void failing_pool(flce_backend *be, int N, int C, int HW, const flce_buf *x, flce_buf *z) {
    fails_seen++;
    flce_backend_fail(be, FLCE_ERR_IO, "avgpool: the device went away (call %d)", fails_seen);
}

Test(ops, a_failing_op_is_a_status_not_an_exit) {
    flce_backend *ref = flce_backend_reference(), bad = *ref;
    bad.avgpool_fwd = failing_pool;
    bad.status = FLCE_OK;
    flce_backend_fail(&bad, FLCE_OK, "unused"); /* FLCE_OK is not a success to record: it counts as a failure */
    cr_assert_neq(flce_backend_status(&bad, NULL), FLCE_OK);
    bad.status = FLCE_OK; /* start clean */
    flce_model m;
    flce_err e = {{0}};
    cr_assert_eq(flce_model_create(&m, &bad, 1, 8, 8, 3, 2, &e), FLCE_OK, "%s", e.msg);
    flce_model_init(&m, 1);
    float x[2 * 64] = {0};
    int32_t y[2] = {0, 1};
    flce_losses l;
    fails_seen = 0;
    cr_assert_eq(flce_model_forward_backward(&m, 2, x, y, 0, 0.5f, &l, &e), FLCE_ERR_IO);
    cr_assert_str_eq(e.msg, "avgpool: the device went away (call 1)");
    /* later failures do not replace the first */
    flce_backend_fail(&bad, FLCE_ERR_NOMEM, "second");
    flce_err e2 = {{0}};
    cr_assert_eq(flce_backend_status(&bad, &e2), FLCE_ERR_IO);
    cr_assert_str_eq(e2.msg, "avgpool: the device went away (call 1)");
    float logits[2 * 3];
    cr_assert_eq(flce_model_eval(&m, 2, x, logits, NULL, &e), FLCE_ERR_IO);
    flce_model_free(&m);
    /* through the ftz wrapper */
    flce_backend *inner = malloc(sizeof *inner);
    *inner = *ref;
    inner->avgpool_fwd = failing_pool, inner->status = FLCE_OK, inner->destroy = (void (*)(flce_backend *))free;
    flce_backend *w = flce_backend_ftz(inner);
    cr_assert_eq(flce_model_create(&m, w, 1, 8, 8, 3, 2, &e), FLCE_OK);
    cr_assert_eq(flce_model_eval(&m, 2, x, logits, NULL, &e), FLCE_ERR_IO);
    cr_assert(strstr(e.msg, "the device went away") != NULL, "%s", e.msg);
    flce_model_free(&m);
    w->destroy(w);
}

/* One convolution op (CONV_FWD: x, w -> y; CONV_DX: dy, w -> dx; CONV_DW: x, dy -> dw) on the
 * reference and the CPU backend from the same host inputs a (na floats) and b (nb); each
 * backend's output (nout floats) lands in out[0] and out[1]. */
enum { CONV_FWD, CONV_DX, CONV_DW };
static void conv_both(int op, const flce_conv_shape *s, const float *a, size_t na, const float *b, size_t nb,
                      float *out[2], size_t nout) {
    flce_backend *be[2] = {flce_backend_reference(), cpu};
    for (int k = 0; k < 2; k++) {
        flce_buf *A = be[k]->buf_alloc(be[k], na * 4), *B = be[k]->buf_alloc(be[k], nb * 4), *O = be[k]->buf_alloc(be[k], nout * 4);
        be[k]->buf_write(be[k], A, 0, a, na * 4);
        be[k]->buf_write(be[k], B, 0, b, nb * 4);
        if (op == CONV_FWD) be[k]->conv2d_fwd(be[k], s, A, B, O);
        else if (op == CONV_DX) be[k]->conv2d_bwd_data(be[k], s, A, B, O);
        else be[k]->conv2d_bwd_weight(be[k], s, A, B, O);
        be[k]->sync(be[k]);
        memcpy(out[k], HB_CF(O), nout * 4);
        be[k]->buf_free(be[k], A), be[k]->buf_free(be[k], B), be[k]->buf_free(be[k], O);
    }
}

/* The same bits, every NaN counted as one. */
static void assert_same_bits(const float *r, const float *c, size_t n, const char *what) {
    for (size_t i = 0; i < n; i++) {
        int same = memcmp(&r[i], &c[i], 4) == 0 || (isnan(r[i]) && isnan(c[i]));
        cr_assert(same, "%s: [%zu] %g (reference) vs %g (cpu)", what, i, r[i], c[i]);
    }
}

/* The CPU weight gradient may leave out the terms that read the zero padding, which add
 * 0 dy = +0 only while dy is finite. One infinite dy at a corner: every weight of a tap that
 * reaches that output pixel only through the padding must come out NaN (0 inf), as in the
 * reference, and the CPU backend must give the reference's bits; both the sample-split (16
 * and 64 output channels, 2 samples) and the row-split (64 channels, 32 samples) paths. */
static void wgrad_with_inf(int N, int C, int H, int K) {
    flce_conv_shape s;
    flce_conv_shape_init(&s, N, C, H, H, K, 3, 1, 1);
    size_t nx = (size_t)N * C * H * H, ny = (size_t)N * K * H * H, nw = (size_t)K * C * 9;
    float *x = malloc(nx * 4), *dy = malloc(ny * 4), *dw[2] = {malloc(nw * 4), malloc(nw * 4)};
    fill(x, nx, 11, 1), fill(dy, ny, 12, 1);
    dy[0] = INFINITY; /* sample 0, channel 0, output pixel (0, 0) */
    conv_both(CONV_DW, &s, x, nx, dy, ny, dw, nw);
    for (int c = 0; c < C; c++)
        for (int tap = 0; tap < 9; tap++) {
            float v = dw[0][(size_t)c * 9 + tap]; /* k = 0 */
            if (tap / 3 == 0 || tap % 3 == 0) cr_assert(isnan(v), "c %d tap %d: %g, not NaN", c, tap, v);
            else cr_assert(isinf(v), "c %d tap %d: %g, not inf", c, tap, v);
        }
    char what[64];
    snprintf(what, sizeof what, "dw, N %d C %d K %d", N, C, K);
    assert_same_bits(dw[0], dw[1], nw, what);
    free(x), free(dy), free(dw[0]), free(dw[1]);
}

/* The same for the forward pass of small images with 64 channels (8x8, 7x7; stride 1 and 2),
 * which may leave out the terms that read the padding: one infinite weight (k 0, c 0, tap
 * (0, 0)) makes output channel 0 NaN where that tap reads the padding (0 inf), inf elsewhere. */
static void fwd_with_inf(int H, int stride) {
    flce_conv_shape s;
    flce_conv_shape_init(&s, 2, 64, H, H, 64, 3, stride, 1);
    size_t nx = (size_t)s.N * s.C * H * H, P = (size_t)s.OH * s.OW, ny = (size_t)s.N * s.K * P, nw = (size_t)s.K * s.C * 9;
    float *x = malloc(nx * 4), *w = malloc(nw * 4), *y[2] = {malloc(ny * 4), malloc(ny * 4)};
    fill(x, nx, 13, 1), fill(w, nw, 14, 0.1f);
    w[0] = INFINITY;
    conv_both(CONV_FWD, &s, x, nx, w, nw, y, ny);
    for (size_t p = 0; p < P; p++) { /* sample 0, channel 0 */
        int pad = p / (size_t)s.OW == 0 || p % (size_t)s.OW == 0;
        cr_assert(pad ? isnan(y[0][p]) : isinf(y[0][p]), "H %d stride %d: y[%zu] = %g", H, stride, p, y[0][p]);
    }
    char what[64];
    snprintf(what, sizeof what, "y, H %d stride %d", H, stride);
    assert_same_bits(y[0], y[1], ny, what);
    free(x), free(w), free(y[0]), free(y[1]);
}

/* ... and the input gradient, whose direct kernels add a +0 for every tap that falls outside
 * and so must not run with a weight that is not finite: with w (k 0, c 0, tap (0, 0)) infinite,
 * channel 0 of dx is inf where that tap has an output pixel (stride 1: all but the last row and
 * column; stride 2: odd rows and columns but the last) and finite elsewhere, where the
 * reference adds no term. */
static void dx_with_inf(int C, int H, int stride) {
    flce_conv_shape s;
    flce_conv_shape_init(&s, 2, C, H, H, 64, 3, stride, 1);
    size_t nx = (size_t)s.N * s.C * H * H, ny = (size_t)s.N * s.K * s.OH * s.OW, nw = (size_t)s.K * s.C * 9;
    float *dy = malloc(ny * 4), *w = malloc(nw * 4), *dx[2] = {malloc(nx * 4), malloc(nx * 4)};
    fill(dy, ny, 15, 1), fill(w, nw, 16, 0.1f);
    w[0] = INFINITY;
    conv_both(CONV_DX, &s, dy, ny, w, nw, dx, nx);
    for (int p = 0; p < H * H; p++) { /* sample 0, channel 0: does tap (0, 0) reach an output pixel? */
        int iy = p / H + 1, ix = p % H + 1;
        int term = iy % stride == 0 && iy / stride < s.OH && ix % stride == 0 && ix / stride < s.OW;
        cr_assert(term ? isinf(dx[0][p]) : isfinite(dx[0][p]), "C %d H %d stride %d: dx[%d] = %g", C, H, stride, p, dx[0][p]);
    }
    char what[64];
    snprintf(what, sizeof what, "dx, C %d H %d stride %d", C, H, stride);
    assert_same_bits(dx[0], dx[1], nx, what);
    free(dy), free(w), free(dx[0]), free(dx[1]);
}

Test(ops, cpu_input_gradient_with_an_infinite_weight, .init = setup, .fini = teardown) {
    dx_with_inf(64, 8, 1);
    dx_with_inf(64, 7, 1);
    dx_with_inf(64, 16, 1);
    dx_with_inf(16, 16, 2);
    dx_with_inf(32, 14, 2);
}

Test(ops, cpu_small_image_forward_keeps_the_padding_terms_of_an_infinite_weight, .init = setup, .fini = teardown) {
    fwd_with_inf(8, 1);
    fwd_with_inf(7, 1);
    fwd_with_inf(14, 2);
}

Test(ops, cpu_weight_gradient_keeps_the_padding_terms_of_an_infinite_dy, .init = setup, .fini = teardown) {
    wgrad_with_inf(2, 16, 8, 16);
    wgrad_with_inf(2, 64, 4, 64);
    wgrad_with_inf(32, 64, 4, 64);
}

/* The flush-to-zero mode (docs/bit-exact.md, rule 4): a partial sum whose exact value is a
 * negative subnormal becomes -0, and a zero term added or left out then decides a zero's sign.
 * Worked out by hand (K = 16, C = 16, 8x8, 3x3 pad 1, one sample):
 *  - weight gradient, dw[k 0][c 0][tap (0, 0)] = sum over the 64 outputs p of dy[0][p] x at
 *    (oy - 1, ox - 1): x(0, 0) = -2e-38 (output 9), x(0, 1) = 1.5e-38 (output 10), both dy 1,
 *    make the sum -0.5e-38, flushed to -0; every other x is 0 and every other dy -1 (products
 *    -0, which keep -0) but output 16 (oy 2, ox 0: its tap reads the padding), dy +1: the
 *    reference adds +0 there and ends at +0, a path leaving that term out at -0;
 *  - input gradient, dx[c 0] at (0, 0): its taps inside are (0, 0), (0, 1), (1, 0), (1, 1) (then
 *    (1, 2) and row 2 read outside); w[k 0][c 0] at tap (1, 0) = -2e-38 with dy[0](0, 1) = 1 and at
 *    (1, 1) = 1.5e-38 with dy[0](0, 0) = 1, every other w and dy 0: the last tap inside leaves -0,
 *    which the reference keeps; a path adding the outside taps' +0 ends at +0.
 * The CPU backend in ftz mode must give the reference's bits, zeros' signs included (a weight
 * whose samples' sums are all -0 included: the reference adds them to +0). */
static void ftz_conv(int op, flce_conv_shape *s, const float *a, size_t na, const float *b, size_t nb, float *out[2],
                     size_t nout) {
    flce_backend *be[2] = {flce_backend_ftz(flce_backend_reference()), flce_backend_ftz(flce_backend_cpu(2))};
    for (int k = 0; k < 2; k++) {
        flce_buf *A = be[k]->buf_alloc(be[k], na * 4), *B = be[k]->buf_alloc(be[k], nb * 4), *O = be[k]->buf_alloc(be[k], nout * 4);
        be[k]->buf_write(be[k], A, 0, a, na * 4);
        be[k]->buf_write(be[k], B, 0, b, nb * 4);
        if (op == CONV_DX) be[k]->conv2d_bwd_data(be[k], s, A, B, O);
        else be[k]->conv2d_bwd_weight(be[k], s, A, B, O);
        be[k]->sync(be[k]);
        be[k]->buf_read(be[k], O, 0, out[k], nout * 4);
        be[k]->buf_free(be[k], A), be[k]->buf_free(be[k], B), be[k]->buf_free(be[k], O);
        be[k]->destroy(be[k]);
    }
}
Test(ops, cpu_ftz_zero_signs_of_flushed_sums_equal_reference, .init = setup, .fini = teardown) {
    flce_conv_shape s;
    flce_conv_shape_init(&s, 1, 16, 8, 8, 16, 3, 1, 1);
    size_t nx = 16 * 64, ny = 16 * 64, nw = 16 * 16 * 9;
    float *x = calloc(nx, 4), *dy = calloc(ny, 4), *w = calloc(nw, 4), *o[2] = {malloc(nw * 4), malloc(nw * 4)};
    x[0] = -2e-38f, x[1] = 1.5e-38f; /* channel 0, (0, 0) and (0, 1) */
    for (int p = 0; p < 64; p++) dy[p] = p == 9 || p == 10 || p == 16 ? 1.0f : -1.0f; /* output channel 0 */
    ftz_conv(CONV_DW, &s, x, nx, dy, ny, o, nw);
    cr_assert(o[0][0] == 0.0f && !signbit(o[0][0]), "reference dw[0][0][0]: %g, worked out +0", o[0][0]);
    assert_same_bits(o[0], o[1], nw, "dw in ftz mode");
    /* the same with dy -1 at output 16 too: the sum stays -0, and the reference's acc = 0 + t
     * makes the weight +0; then two such samples (-0 each: +0 + -0 + -0 = +0), through the
     * sample-split and pairs paths */
    dy[16] = -1.0f;
    ftz_conv(CONV_DW, &s, x, nx, dy, ny, o, nw);
    cr_assert(o[0][0] == 0.0f && !signbit(o[0][0]), "reference dw[0][0][0], a -0 sum: %g, worked out +0", o[0][0]);
    assert_same_bits(o[0], o[1], nw, "dw in ftz mode, a sum of -0");
    {
        flce_conv_shape s2;
        flce_conv_shape_init(&s2, 2, 16, 8, 8, 16, 3, 1, 1);
        float *x2 = malloc(2 * nx * 4), *dy2 = malloc(2 * ny * 4);
        memcpy(x2, x, nx * 4), memcpy(x2 + nx, x, nx * 4), memcpy(dy2, dy, ny * 4), memcpy(dy2 + ny, dy, ny * 4);
        ftz_conv(CONV_DW, &s2, x2, 2 * nx, dy2, 2 * ny, o, nw);
        cr_assert(o[0][0] == 0.0f && !signbit(o[0][0]), "reference dw[0][0][0], two -0 sums: %g, worked out +0", o[0][0]);
        assert_same_bits(o[0], o[1], nw, "dw in ftz mode, two samples' sums of -0");
        free(x2), free(dy2);
    }
    memset(dy, 0, ny * 4);
    w[3] = -2e-38f, w[4] = 1.5e-38f; /* k 0, c 0, taps (1, 0) and (1, 1) */
    dy[1] = 1.0f, dy[0] = 1.0f;      /* k 0, (0, 1) and (0, 0) */
    float *d[2] = {malloc(nx * 4), malloc(nx * 4)};
    ftz_conv(CONV_DX, &s, dy, ny, w, nw, d, nx);
    cr_assert(d[0][0] == 0.0f && signbit(d[0][0]), "reference dx[0][0][0]: %g, worked out -0", d[0][0]);
    assert_same_bits(d[0], d[1], nx, "dx in ftz mode");
    free(x), free(dy), free(w), free(o[0]), free(o[1]), free(d[0]), free(d[1]);
}

/* The sample-split weight gradient on two threads: the parts take samples from the two ends of
 * the batch, meeting wherever the moment's core speeds put the boundary (part 0's samples summed
 * in order, part 1's kept one by one and added after). Whatever the boundary, the bits must be
 * the reference's: batches of 1 to 7 (odd ones end on a single sample), each shape's path (16
 * output channels by input position, pairs of samples at stride 2, the padded rows for one input
 * channel, 32 channels one sample at a time), 12 calls each so that the boundary varies. */
Test(ops, cpu_weight_gradient_split_at_any_boundary_equals_reference, .init = setup, .fini = teardown) {
    static const int shp[][4] = {{16, 8, 16, 1}, {8, 8, 16, 2}, {1, 8, 16, 1}, {32, 6, 32, 1}}; /* C H K stride */
    for (int t = 0; t < 4; t++)
        for (int N = 1; N <= 7; N++) {
            flce_conv_shape s;
            flce_conv_shape_init(&s, N, shp[t][0], shp[t][1], shp[t][1], shp[t][2], 3, shp[t][3], 1);
            size_t nx = (size_t)N * s.C * s.H * s.W, ny = (size_t)N * s.K * s.OH * s.OW, nw = (size_t)s.K * s.C * 9;
            float *x = malloc(nx * 4), *dy = malloc(ny * 4), *dw[2] = {malloc(nw * 4), malloc(nw * 4)};
            fill(x, nx, 21, 1), fill(dy, ny, 22, 1);
            for (int call = 0; call < 12; call++) {
                conv_both(CONV_DW, &s, x, nx, dy, ny, dw, nw);
                char what[80];
                snprintf(what, sizeof what, "dw, N %d C %d K %d stride %d, call %d", N, s.C, s.K, s.stride, call);
                assert_same_bits(dw[0], dw[1], nw, what);
            }
            free(x), free(dy), free(dw[0]), free(dw[1]);
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

/* BatchNorm training, without and with the fused ReLU: L = sum(y * r) through the batch
 * statistics, y = bn(x) or relu(bn(x)); dL/dx from ref_bn_bwd (which recomputes xhat) against
 * central differences; dgamma and dbeta against their definitions in float64. */
static void bn_gradients(int relu) {
    enum { N = 3, C = 2, HW = 5, M = N * C * HW };
    float x[M], r[M], y[M], dx[M], g[C] = {1.5f, -0.7f}, b[C] = {0.2f, 0.1f}, mean[C], is[C], rm[C], rv[C], dg[C], db[C];
    fill(x, M, 4, 2), fill(r, M, 5, 1);
    ref_bn_fwd_train(N, C, HW, 1e-5f, 0.1f, relu, x, g, b, y, mean, is, rm, rv);
    ref_bn_bwd(N, C, HW, relu ? y : NULL, r, x, mean, g, is, dx, dg, db);
    int checked = 0;
    for (int i = 0; i < M; i++) {
        int c = i / HW % C, kink = 0; /* a ReLU input near 0 in this channel may flip under the step */
        if (relu) {
            float pre[M], m2[C], i2[C], rm2[C], rv2[C];
            ref_bn_fwd_train(N, C, HW, 1e-5f, 0.1f, 0, x, g, b, pre, m2, i2, rm2, rv2);
            for (int n = 0; n < N; n++)
                for (int q = 0; q < HW; q++)
                    if (fabsf(pre[(n * C + c) * HW + q]) < 0.05f) kink = 1;
        }
        if (kink) continue;
        double f[2];
        for (int sgn = 0; sgn < 2; sgn++) {
            float s0 = x[i];
            x[i] = s0 + (sgn ? -1 : 1) * (1.0f / 256);
            ref_bn_fwd_train(N, C, HW, 1e-5f, 0.1f, relu, x, g, b, y, mean, is, rm, rv);
            f[sgn] = dotd(y, r, M);
            x[i] = s0;
        }
        double fd = (f[0] - f[1]) / (2.0 / 256);
        cr_assert(fabs(fd - dx[i]) < 2e-3 * (1 + fabs(fd)), "relu %d dx[%d]: %g vs fd %g", relu, i, dx[i], fd);
        checked++;
    }
    cr_assert(checked >= M / 3, "relu %d: only %d of %d inputs away from a ReLU kink", relu, checked, M);
    /* dbeta = sum d, dgamma = sum d xhat, d = r masked by the ReLU, xhat from float64 statistics */
    for (int c = 0; c < C; c++) {
        double mu = 0, var = 0, sg = 0, sb = 0;
        for (int n = 0; n < N; n++)
            for (int i = 0; i < HW; i++) mu += x[(n * C + c) * HW + i];
        mu /= N * HW;
        for (int n = 0; n < N; n++)
            for (int i = 0; i < HW; i++) var += (x[(n * C + c) * HW + i] - mu) * (x[(n * C + c) * HW + i] - mu);
        var /= N * HW;
        for (int n = 0; n < N; n++)
            for (int i = 0; i < HW; i++) {
                int e = (n * C + c) * HW + i;
                double xh = (x[e] - mu) / sqrt(var + 1e-5), pre = xh * g[c] + b[c];
                double d = relu && !(pre > 0) ? 0 : r[e];
                sg += d * xh, sb += d;
            }
        cr_assert(fabs(sg - dg[c]) < 1e-5 && fabs(sb - db[c]) < 1e-5, "relu %d channel %d: %g %g vs %g %g", relu, c, dg[c],
                  db[c], sg, sb);
    }
}

Test(ops, batchnorm_gradients_match_finite_differences) { bn_gradients(0); }
Test(ops, batchnorm_relu_gradients_match_finite_differences) { bn_gradients(1); }

Test(ops, batchnorm_by_hand) {
    /* one channel, values 1, 2, 3, 6: mean 3, biased var (4 + 1 + 0 + 9)/4 = 3.5, unbiased 14/3;
     * running stats from (0, 1) with momentum 0.1: mean 0.3, var 0.9 + 0.1 * 14/3 */
    float x[4] = {1, 2, 3, 6}, g[1] = {2}, b[1] = {1}, y[4], mean[1], is[1], rm[1] = {0}, rv[1] = {1};
    ref_bn_fwd_train(1, 1, 4, 0.0f, 0.1f, 0, x, g, b, y, mean, is, rm, rv);
    cr_assert(mean[0] == 3.0f);
    cr_assert(fabs(is[0] - 1 / sqrt(3.5)) < 1e-7);
    cr_assert(fabs(y[3] - (2 * 3 / sqrt(3.5) + 1)) < 1e-6);
    cr_assert(fabs(rm[0] - 0.3) < 1e-7 && fabs(rv[0] - (0.9 + 0.1 * 14.0 / 3)) < 1e-6, "%g %g", rm[0], rv[0]);
    /* with the ReLU fused: y = 2 (x - 3) / sqrt(3.5) + 1: x = 1 gives -1.14 -> 0, x = 3 gives 1 */
    float yr[4], rm2[1] = {0}, rv2[1] = {1};
    ref_bn_fwd_train(1, 1, 4, 0.0f, 0.1f, 1, x, g, b, yr, mean, is, rm2, rv2);
    cr_assert(yr[0] == 0.0f && yr[1] == 0.0f && yr[2] == 1.0f && yr[3] == y[3], "%g %g %g %g", yr[0], yr[1], yr[2], yr[3]);
    float ye[4];
    ref_bn_fwd_eval(1, 1, 4, 0.0f, 0, x, g, b, rm, rv, ye); /* (x - 0.3) / sqrt(rv) * 2 + 1 */
    cr_assert(fabs(ye[0] - ((1 - 0.3) / sqrt(rv[0]) * 2 + 1)) < 1e-6);
    /* with the ReLU fused: running mean 3, variance 3.5: x = 1 gives 2 (1 - 3) / sqrt(3.5) + 1 < 0 -> 0 */
    float rm3[1] = {3}, rv3[1] = {3.5f}, ye3[4], ye0[4];
    ref_bn_fwd_eval(1, 1, 4, 0.0f, 1, x, g, b, rm3, rv3, ye3);
    ref_bn_fwd_eval(1, 1, 4, 0.0f, 0, x, g, b, rm3, rv3, ye0);
    cr_assert(ye0[0] < 0 && ye3[0] == 0.0f && ye3[2] == 1.0f && ye3[2] == ye0[2] && ye3[3] == ye0[3], "%g %g %g", ye3[0], ye3[2], ye3[3]);
}

Test(ops, conv_batchnorm_eval_by_hand) {
    /* a 1x1 convolution of the two pixels x = (1, 3) into two channels with weights 2 and -1:
     * (2, 6) and (-1, -3); BatchNorm with running means (2, 0), variances 4 (invstd 1/2),
     * gamma (1, 2), beta (0, 1): channel 0 (0, 2), channel 1 ((-1/2) 2 + 1, (-3/2) 2 + 1) = (0, -2) */
    flce_conv_shape s;
    flce_conv_shape_init(&s, 1, 1, 1, 2, 2, 1, 1, 0);
    float x[2] = {1, 3}, w[2] = {2, -1}, g[2] = {1, 2}, b[2] = {0, 1}, rm[2] = {2, 0}, rv[2] = {4, 4};
    float r[4] = {1, -1, 0.5f, 0.5f}, y[4];
    const float plain[4] = {0, 2, 0, -2}, relu[4] = {0, 2, 0, 0}, res[4] = {1, 1, 0.5f, -1.5f}, res_relu[4] = {1, 1, 0.5f, 0};
    const float *want[4] = {plain, relu, res, res_relu};
    for (int mode = 0; mode < 4; mode++) { /* bit 0: the ReLU, bit 1: the residual */
        ref_conv2d_fwd_bn_eval(&s, x, w, 0.0f, g, b, rm, rv, mode & 2 ? r : NULL, mode & 1, y);
        for (int i = 0; i < 4; i++)
            cr_assert(fabs(y[i] - want[mode][i]) < 1e-6, "mode %d: y[%d] = %g, by hand %g", mode, i, y[i], want[mode][i]);
    }
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
    ref_add(3, 0, a, one, s);
    cr_assert(s[0] == 4 && s[2] == 7);
    float m[3] = {-6, -5, 1}, sr[3];
    ref_add(3, 1, m, one, sr); /* -1 -> 0, 0 -> 0 (+0), 6 */
    cr_assert(sr[0] == 0 && sr[1] == 0 && !signbit(sr[1]) && sr[2] == 6);
    ref_add(3, 0, m, one, s);
    cr_assert(s[0] == -1 && s[1] == 0 && s[2] == 6);
}

/* The two fused ops by hand, on both backends: add_relu_bwd (dx = y > 0 ? a + b : 0) and
 * bn_fwd_train_res (y = max(bn(x) + r, 0)), with x = (1, 2, 3, 4): mean 2.5, var 1.25, so
 * xhat = (-3, -1, 1, 3) / (2 sqrt(1.25)) = (-1.3416, -0.4472, 0.4472, 1.3416). */
static flce_buf *upload(flce_backend *be, const float *v, size_t n) {
    flce_buf *b = be->buf_alloc(be, n * 4);
    be->buf_write(be, b, 0, v, n * 4);
    return b;
}

Test(ops, fused_ops_by_hand, .init = setup, .fini = teardown) {
    flce_backend *bk[2] = {flce_backend_reference(), cpu};
    for (int k = 0; k < 2; k++) {
        flce_backend *be = bk[k];
        float a[3] = {1, 2, -3}, b[3] = {0.5f, -4, 1}, yr[3] = {1, 0, 2}, dx[3];
        flce_buf *A = upload(be, a, 3), *B = upload(be, b, 3), *Y = upload(be, yr, 3);
        be->add_relu_bwd(be, 3, A, B, Y, B); /* in place on b */
        be->sync(be);
        be->buf_read(be, B, 0, dx, sizeof dx);
        cr_assert(dx[0] == 1.5f && dx[1] == 0 && dx[2] == -2, "%s: %g %g %g", be->name, dx[0], dx[1], dx[2]);
        be->buf_free(be, A), be->buf_free(be, B), be->buf_free(be, Y);

        float x[4] = {1, 2, 3, 4}, g = 1, beta = 0, r[4] = {1, 0, -1, 0.5f}, zero = 0, one = 1, y[4], mean, is, rm, rv;
        flce_buf *X = upload(be, x, 4), *G = upload(be, &g, 1), *Bt = upload(be, &beta, 1), *R = upload(be, r, 4);
        flce_buf *Yb = upload(be, x, 4), *Mn = upload(be, &zero, 1), *Is = upload(be, &zero, 1);
        flce_buf *Rm = upload(be, &zero, 1), *Rv = upload(be, &one, 1);
        be->bn_fwd_train_res(be, 1, 1, 4, 0.0f, 0.1f, X, G, Bt, R, Yb, Mn, Is, Rm, Rv);
        be->sync(be);
        be->buf_read(be, Yb, 0, y, sizeof y);
        be->buf_read(be, Mn, 0, &mean, 4), be->buf_read(be, Is, 0, &is, 4);
        be->buf_read(be, Rm, 0, &rm, 4), be->buf_read(be, Rv, 0, &rv, 4);
        double want[4] = {0, 0, 0, 3 / (2 * sqrt(1.25)) + 0.5}; /* -0.342, -0.447, -0.553 clamp to 0 */
        for (int i = 0; i < 4; i++) cr_assert(fabs(y[i] - want[i]) < 1e-5, "%s: y[%d] %g vs %g", be->name, i, y[i], want[i]);
        cr_assert(mean == 2.5f && fabs(is - 1 / sqrt(1.25)) < 1e-6, "%s: mean %g invstd %g", be->name, mean, is);
        /* running statistics as bn_fwd_train's: 0.9 * 0 + 0.1 * 2.5, 0.9 * 1 + 0.1 * (1.25 * 4 / 3) */
        cr_assert(fabs(rm - 0.25) < 1e-6 && fabs(rv - (0.9 + 0.1 * 5.0 / 3)) < 1e-6, "%s: %g %g", be->name, rm, rv);
        flce_buf *all[] = {X, G, Bt, R, Yb, Mn, Is, Rm, Rv};
        for (int i = 0; i < 9; i++) be->buf_free(be, all[i]);
    }
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

Test(ops, clipped_momentum_weight_decay_two_steps_by_hand) {
    /* The released code's optimiser (clip_grad_norm_ at 1, then SGD lr 0.5, momentum 0.9, weight
     * decay 0.1), two parameters a = (1, -2) and b = (3), two steps.
     * Step 1: g = (3, 4 | 0), norm 5 > 1: c = 1 / (5 + 1e-6), g = (0.6, 0.8 | 0) (to 1e-7);
     *   g' = g + 0.1 w = (0.7, 0.6 | 0.3) = m; w = w - 0.5 m = (0.65, -2.3 | 2.85).
     * Step 2: g = (0.5, 0 | 0), norm 0.5 <= 1: unchanged; g' = (0.5 + 0.065, -0.23 | 0.285);
     *   m = 0.9 m + g' = (1.195, 0.31 | 0.555); w = (0.65 - 0.5975, -2.3 - 0.155 | 2.85 - 0.2775)
     *   = (0.0525, -2.455 | 2.5725). */
    float a[2] = {1, -2}, b[1] = {3}, ga[2] = {3, 4}, gb[1] = {0}, ma[2], mb[1];
    float *g[2] = {ga, gb};
    size_t n[2] = {2, 1};
    cr_assert(fabs(ref_clip_grad_norm(2, g, n, 1.0) - 5) < 1e-12);
    cr_assert(fabsf(ga[0] - 0.6f) < 1e-6f && fabsf(ga[1] - 0.8f) < 1e-6f && gb[0] == 0);
    ref_sgd(2, 0.5f, 0.9f, 0.1f, 1, a, ga, ma);
    ref_sgd(1, 0.5f, 0.9f, 0.1f, 1, b, gb, mb);
    cr_assert(fabsf(a[0] - 0.65f) < 1e-6f && fabsf(a[1] + 2.3f) < 1e-6f && fabsf(b[0] - 2.85f) < 1e-6f, "%g %g %g", a[0], a[1], b[0]);
    ga[0] = 0.5f, ga[1] = 0, gb[0] = 0;
    cr_assert(fabs(ref_clip_grad_norm(2, g, n, 1.0) - 0.5) < 1e-12);
    cr_assert(ga[0] == 0.5f && ga[1] == 0, "a norm under the limit leaves the gradients as they are");
    ref_sgd(2, 0.5f, 0.9f, 0.1f, 0, a, ga, ma);
    ref_sgd(1, 0.5f, 0.9f, 0.1f, 0, b, gb, mb);
    cr_assert(fabsf(ma[0] - 1.195f) < 1e-6f && fabsf(ma[1] - 0.31f) < 1e-6f && fabsf(mb[0] - 0.555f) < 1e-6f);
    cr_assert(fabsf(a[0] - 0.0525f) < 1e-6f && fabsf(a[1] + 2.455f) < 1e-6f && fabsf(b[0] - 2.5725f) < 1e-6f, "%g %g %g", a[0], a[1], b[0]);
}

Test(ops, compensated_striped_sum) {
    /* x = 1e8, sixteen ones, -1e8 (j = 0..17): lane 0 gets 1e8, 1, 1 (s = 1e8, c = 2), lane 1
     * gets 1, 1, -1e8 (s = -1e8, c = 2: TwoSum keeps what the rounding dropped), lanes 2..7
     * two ones each. The total adds 1e8 - 1e8 + 6 x 2 + 2 + 2 = 16 exactly; a plain running
     * float32 sum loses every 1 next to 1e8 and gives 0. */
    float x[18];
    for (int i = 0; i < 18; i++) x[i] = 1;
    x[0] = 1e8f;
    x[17] = -1e8f;
    float naive = 0;
    for (int i = 0; i < 18; i++) naive = naive + x[i];
    cr_assert(naive == 0.0f, "naive %g", naive);
    cr_assert(ref_sum8(x, 18) == 16.0f, "K8 sum %g", ref_sum8(x, 18));
}

/* ---- the flush-to-zero mode of the contract (docs/bit-exact.md) ----------------------- */
/* Values around the subnormal range: subnormal inputs, and inputs whose sums and products
 * land below the smallest normal (1.1754944e-38) or round onto it. */
static void fill_tiny(float *x, size_t n, uint32_t stream) {
    flce_rng r;
    flce_rng_init(&r, 78, FLCE_RNG_TEST, stream, 0);
    for (size_t i = 0; i < n; i++) {
        double u = flce_rng_uniform(&r), s = flce_rng_uniform(&r) < 0.5 ? -1 : 1;
        x[i] = (float)(s * (u < 0.5 ? u * 2e-38 : u * 3e-38)); /* half of them subnormal */
    }
}

static int count_subnormal(const float *x, size_t n) {
    int c = 0;
    for (size_t i = 0; i < n; i++) c += x[i] != 0 && fabsf(x[i]) < 1.17549435e-38f;
    return c;
}

/* ftz: subnormal inputs read as 0 and subnormal results written as 0, on the caller's thread
 * and on the pool's workers (the add is split between the two threads); the CPU backend in ftz
 * equals the reference in ftz bit for bit, and both differ from preserve. */
Test(ops, ftz_mode_flushes_on_every_thread) {
    enum { N = 1 << 16 };
    static float a[N], b[N], yp[N], yf[N], yc[N], yr[N], dx[N];
    fill_tiny(a, N, 1), fill_tiny(b, N, 2);
    flce_backend *refp = flce_backend_reference(), *reff = flce_backend_ftz(flce_backend_reference());
    flce_backend *cpuf = flce_backend_ftz(flce_backend_cpu(2));
    cr_assert(reff && cpuf && reff->ftz && cpuf->ftz && !refp->ftz);
    flce_backend *bes[3] = {refp, reff, cpuf};
    float *outs[3] = {yp, yf, yc};
    for (int k = 0; k < 3; k++) {
        flce_backend *be = bes[k];
        flce_buf *A = be->buf_alloc(be, sizeof a), *B = be->buf_alloc(be, sizeof b), *Y = be->buf_alloc(be, sizeof a);
        be->buf_write(be, A, 0, a, sizeof a), be->buf_write(be, B, 0, b, sizeof b);
        be->add(be, N, 0, A, B, Y);
        be->buf_read(be, Y, 0, outs[k], sizeof a);
        be->buf_free(be, A), be->buf_free(be, B), be->buf_free(be, Y);
    }
    cr_assert(count_subnormal(yp, N) > N / 8, "preserve: only %d subnormal sums", count_subnormal(yp, N));
    cr_assert_eq(count_subnormal(yf, N), 0, "reference ftz left subnormal results");
    cr_assert_eq(count_subnormal(yc, N), 0, "cpu ftz left subnormal results (a worker thread not in ftz?)");
    cr_assert_eq(memcmp(yf, yc, sizeof yf), 0, "cpu ftz differs from reference ftz");
    /* by hand: subnormal + 0 is 0 in ftz (the input reads as 0), keeping the sign of the sum of
     * zeros; a normal + a subnormal is the normal unchanged */
    for (int i = 0; i < N; i++) {
        int sa = a[i] != 0 && fabsf(a[i]) < 1.17549435e-38f, sb = b[i] != 0 && fabsf(b[i]) < 1.17549435e-38f;
        if (sa && sb) cr_assert(yf[i] == 0, "%d: %g + %g = %g in ftz", i, a[i], b[i], yf[i]);
        if (sa && !sb) cr_assert(yf[i] == b[i] || fabsf(b[i] + 0.0f) < 1.17549435e-38f, "%d: subnormal a not read as 0", i);
    }
    /* the worker threads are back in their own mode afterwards: preserve again */
    flce_backend *cpup = flce_backend_cpu(2);
    flce_buf *A = cpup->buf_alloc(cpup, sizeof a), *B = cpup->buf_alloc(cpup, sizeof b), *Y = cpup->buf_alloc(cpup, sizeof a);
    cpup->buf_write(cpup, A, 0, a, sizeof a), cpup->buf_write(cpup, B, 0, b, sizeof b);
    cpup->add(cpup, N, 0, A, B, Y);
    cpup->buf_read(cpup, Y, 0, yr, sizeof a);
    cr_assert_eq(memcmp(yr, yp, sizeof yp), 0, "the cpu backend in preserve after ftz differs from the reference");
    /* a convolution's gradient and BatchNorm in ftz: cpu equals reference over every op of the
     * table, with tiny inputs everywhere */
    cpup->buf_free(cpup, A), cpup->buf_free(cpup, B), cpup->buf_free(cpup, Y);
    cpup->destroy(cpup);
    int n = flce_opcheck_count(), bad = 0;
    for (int i = 0; i < n; i++) {
        flce_opcheck_result r;
        flce_err e = {{0}};
        cr_assert_eq(flce_opcheck_run(i, reff, cpuf, &r, &e), FLCE_OK, "%s", e.msg);
        bad += !r.ok;
        if (!r.ok) printf("ftz MISMATCH %s output %s\n", r.name, r.output);
    }
    cr_assert_eq(bad, 0, "%d of %d cases differ in ftz", bad, n);
    (void)dx;
    reff->destroy(reff), cpuf->destroy(cpuf);
}

/* BatchNorm's chunk split (cpu_bn.c: each thread sums its range of chunks, the parts' blocks
 * merged after): training forward (+ ReLU, + residual) and backward on 1, 2, 3 and 5 threads
 * against the reference, bit for bit, at the study's three stage shapes (28x28: 196 chunks a
 * channel, cut at 98, the second part starting at a chunk that is not a multiple of 4; 14x14
 * and 7x7, whose planes are not whole vectors), at 6.5 chunks, at 539 values, and with planes of
 * 9, 4 and 1 values (a K8 vector spanning two to eight samples).
 * Half of each channel's values are pairs +v, -v of about 2^30, the other half normal, all at
 * random places: the large ones cancel in the total, which is left to the K8 states' error
 * terms, and those round differently in another merge tree. (With the cross-check's normal values, or with
 * values spread over 2^-20 .. 2^30, merging every two equal blocks, aligned or not, gave the same
 * bits: measured.) */
static void fill_cancel(float *x, int N, int C, int HW, uint32_t stream) {
    size_t M = (size_t)N * HW;
    float *v = malloc(M * 4);
    flce_rng r;
    flce_rng_init(&r, 78, FLCE_RNG_TEST, stream, 0);
    for (int c = 0; c < C; c++) {
        for (size_t i = 0; i < M; i++) /* half pairs of large values, half normal ones */
            if (i % 4 < 2) {
                float big = (float)ldexp(1 + flce_rng_uniform(&r), 30 + (int)(flce_rng_uniform(&r) * 4));
                v[i] = big;
                if (i + 1 < M) v[++i] = -big;
            } else v[i] = (float)flce_rng_normal(&r);
        for (size_t i = M - 1; i > 0; i--) { /* Fisher-Yates */
            size_t k = (size_t)(flce_rng_uniform(&r) * (double)(i + 1));
            float t = v[i];
            v[i] = v[k], v[k] = t;
        }
        for (size_t e = 0; e < M; e++) x[((e / HW) * C + c) * HW + e % HW] = v[e];
    }
    free(v);
}
static void bn_split_case(int threads, int N, int C, int HW) {
    size_t n = (size_t)N * C * HW;
    float *x = malloc(n * 4), *dy = malloc(n * 4), *res = malloc(n * 4), *out[2][4];
    float g[8], b[8], st[2][8][8];
    fill_cancel(x, N, C, HW, 1), fill_cancel(dy, N, C, HW, 2), fill(res, n, 3, 1), fill(g, 8, 4, 1), fill(b, 8, 5, 1);
    flce_backend *be[2] = {flce_backend_reference(), flce_backend_cpu(threads)};
    for (int k = 0; k < 2; k++) {
        flce_backend *e = be[k];
        flce_buf *X = upload(e, x, n), *D = upload(e, dy, n), *R = upload(e, res, n), *G = upload(e, g, C), *B = upload(e, b, C);
        flce_buf *Y[4], *S[8];
        for (int i = 0; i < 4; i++) Y[i] = upload(e, x, n);
        for (int i = 0; i < 8; i++) S[i] = upload(e, b, C);
        e->bn_fwd_train(e, N, C, HW, 1e-5f, 0.1f, 0, X, G, B, Y[0], S[0], S[1], S[2], S[3]);
        e->bn_fwd_train(e, N, C, HW, 1e-5f, 0.1f, 1, X, G, B, Y[1], S[0], S[1], S[2], S[3]);
        e->bn_fwd_train_res(e, N, C, HW, 1e-5f, 0.1f, X, G, B, R, Y[2], S[0], S[1], S[2], S[3]);
        e->bn_bwd(e, N, C, HW, Y[1], D, X, S[0], G, S[1], Y[3], S[4], S[5]);
        e->sync(e);
        for (int i = 0; i < 4; i++) {
            out[k][i] = malloc(n * 4);
            memcpy(out[k][i], HB_CF(Y[i]), n * 4);
        }
        for (int i = 0; i < 6; i++) memcpy(st[k][i], HB_CF(S[i]), (size_t)C * 4);
        for (int i = 0; i < 4; i++) e->buf_free(e, Y[i]);
        for (int i = 0; i < 8; i++) e->buf_free(e, S[i]);
        e->buf_free(e, X), e->buf_free(e, D), e->buf_free(e, R), e->buf_free(e, G), e->buf_free(e, B);
    }
    char what[96];
    static const char *nm[4] = {"y", "relu(y)", "relu(y + r)", "dx"}, *sn[6] = {"mean", "invstd", "running mean", "running var", "dgamma", "dbeta"};
    for (int i = 0; i < 4; i++) {
        snprintf(what, sizeof what, "%d threads, %dx%dx%d: %s", threads, N, C, HW, nm[i]);
        assert_same_bits(out[0][i], out[1][i], n, what);
        free(out[0][i]), free(out[1][i]);
    }
    for (int i = 0; i < 6; i++) {
        snprintf(what, sizeof what, "%d threads, %dx%dx%d: %s", threads, N, C, HW, sn[i]);
        assert_same_bits(st[0][i], st[1][i], (size_t)C, what);
    }
    be[0]->destroy(be[0]), be[1]->destroy(be[1]);
    free(x), free(dy), free(res);
}
Test(ops, batchnorm_chunk_split_equals_reference, .timeout = FLCE_HANG_GUARD) {
    for (int t = 1; t <= 5; t += t == 3 ? 2 : 1) {
        bn_split_case(t, 64, 2, 784);
        bn_split_case(t, 13, 3, 128);
        bn_split_case(t, 64, 2, 196); /* planes that are not whole vectors: a vector carried across two samples */
        bn_split_case(t, 64, 3, 49);
        bn_split_case(t, 11, 3, 49); /* 539 values: 2 chunks and 27, the last 3 lane by lane */
        bn_split_case(t, 100, 3, 9); /* 3x3 planes: 900 values */
        bn_split_case(t, 300, 3, 4); /* planes under a vector: one carried across up to three samples */
        bn_split_case(t, 700, 2, 1); /* 1x1 planes: 700 values, eight samples a vector */
    }
}

/* Global average pooling split across threads (cpu_elementwise.c: ranges of planes, eight planes
 * a loop): forward and backward on 1, 2 and 3 threads against the reference, bit for bit, with
 * plane counts that leave a part a tail of under eight planes and sizes over the one-thread
 * limit (32768 values). */
Test(ops, avgpool_split_equals_reference) {
    static const int shapes[][3] = {{64, 64, 49}, {67, 33, 49}, {9, 37, 196}, {200, 64, 4}};
    for (int t = 1; t <= 3; t++)
        for (int s = 0; s < 4; s++) {
            int N = shapes[s][0], C = shapes[s][1], HW = shapes[s][2];
            size_t n = (size_t)N * C * HW, nz = (size_t)N * C;
            float *x = malloc(n * 4), *dz = malloc(nz * 4), *out[2][2];
            fill(x, n, 31, 1), fill(dz, nz, 32, 1);
            flce_backend *be[2] = {flce_backend_reference(), flce_backend_cpu(t)};
            for (int k = 0; k < 2; k++) {
                flce_buf *X = upload(be[k], x, n), *DZ = upload(be[k], dz, nz), *Z = upload(be[k], dz, nz), *DX = upload(be[k], x, n);
                be[k]->avgpool_fwd(be[k], N, C, HW, X, Z);
                be[k]->avgpool_bwd(be[k], N, C, HW, DZ, DX);
                be[k]->sync(be[k]);
                out[k][0] = malloc(nz * 4), out[k][1] = malloc(n * 4);
                memcpy(out[k][0], HB_CF(Z), nz * 4), memcpy(out[k][1], HB_CF(DX), n * 4);
                be[k]->buf_free(be[k], X), be[k]->buf_free(be[k], DZ), be[k]->buf_free(be[k], Z), be[k]->buf_free(be[k], DX);
                be[k]->destroy(be[k]);
            }
            char what[80];
            snprintf(what, sizeof what, "%d threads, %dx%dx%d: avgpool_fwd", t, N, C, HW);
            assert_same_bits(out[0][0], out[1][0], nz, what);
            snprintf(what, sizeof what, "%d threads, %dx%dx%d: avgpool_bwd", t, N, C, HW);
            assert_same_bits(out[0][1], out[1][1], n, what);
            for (int k = 0; k < 2; k++) free(out[k][0]), free(out[k][1]);
            free(x), free(dz);
        }
}

/* ---- K8C, the chunked compensated sum (reference/ops.h, contract version 2) ------------ */
/* Worked out independently of the running stack: the chunks' K8 states in an array, combined
 * by the stride-doubling tree (stride 1, 2, 4, ...: chunk q takes chunk q + stride when q is a
 * multiple of 2 stride), then totalled; against ref_sum8c for counts that make 1, 2, 3, 12.25,
 * 19.5, 256 and 257.05 chunks; equal to K8 up to one chunk; and within an ulp of the exact sum. */
static float k8c_by_tree(const float *x, size_t n) {
    size_t Q = (n + REF_K8C_CHUNK - 1) / REF_K8C_CHUNK;
    if (Q == 0) Q = 1;
    ref_k8 *ch = calloc(Q, sizeof *ch);
    for (size_t j = 0; j < n; j++) ref_k8_add(&ch[j / REF_K8C_CHUNK], (int)(j & 7), x[j]);
    for (size_t stride = 1; stride < Q; stride *= 2)
        for (size_t q = 0; q + stride < Q; q += 2 * stride) ref_k8_comb(&ch[q], &ch[q + stride]);
    float t = ref_k8_total(&ch[0]);
    free(ch);
    return t;
}

Test(k8c, equals_the_stride_tree_and_k8_within_a_chunk) {
    size_t ns[] = {1, 7, 255, 256, 257, 300, 768, 3136, 5000, 65536, 65805, 65536 * 4 + 13};
    enum { MAXN = 65536 * 4 + 13 };
    static float x[MAXN];
    flce_rng r;
    flce_rng_init(&r, 5, FLCE_RNG_TEST, 60, 0);
    for (size_t i = 0; i < MAXN; i++) x[i] = (float)(flce_rng_normal(&r) * (1 + 1000 * (i % 97 == 0)) + 0.3);
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        size_t n = ns[k];
        float a = ref_sum8c(x, n), b = k8c_by_tree(x, n);
        cr_assert_eq(memcmp(&a, &b, 4), 0, "n %zu: running stack %.9g, stride tree %.9g", n, a, b);
        if (n <= REF_K8C_CHUNK) {
            float c = ref_sum8(x, n);
            cr_assert_eq(memcmp(&a, &c, 4), 0, "n %zu: K8C %.9g differs from K8 %.9g within one chunk", n, a, c);
        }
        double exact = 0;
        for (size_t i = 0; i < n; i++) exact += x[i];
        float ex = (float)exact;
        cr_assert(fabsf(a - ex) <= fabsf(nextafterf(ex, INFINITY) - ex), "n %zu: %.9g, exact %.9g: more than an ulp", n, a, exact);
    }
}
