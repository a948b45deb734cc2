/* test_model.c: ResNet20: the paper's parameter counts; the whole model's gradient against
 * a central finite difference along a random direction; the reference and CPU backends
 * through full training steps with the contrastive loss, digest for digest; safetensors
 * checkpoints (round trip and strict loading); training lowers the loss. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "safetensors.h"
#include "testutil.h"
#include "ref_backend.h"
#include "cpu.h"

static void fill(float *x, size_t n, uint32_t stream) {
    flce_rng r;
    flce_rng_init(&r, 5, FLCE_RNG_TEST, stream, 0);
    for (size_t i = 0; i < n; i++) x[i] = (float)flce_rng_normal(&r);
}

Test(model, parameter_counts_of_the_paper) {
    flce_model m;
    flce_backend *ref = flce_backend_reference();
    cr_assert_eq(flce_model_create(&m, ref, 3, 32, 32, 10, 1, NULL), FLCE_OK);
    cr_assert_eq(flce_model_count_trainable(&m), 272474);
    /* running statistics: 2 x (16 + 6 x 16 + 7 x 32 + 7 x 64) = 2 x 784 */
    cr_assert_eq(flce_model_count_all(&m), 272474 + 1568);
    flce_model_free(&m);
    cr_assert_eq(flce_model_create(&m, ref, 3, 32, 32, 100, 1, NULL), FLCE_OK);
    cr_assert_eq(flce_model_count_trainable(&m), 278324);
    flce_model_free(&m);
    cr_assert_eq(flce_model_create(&m, ref, 1, 28, 28, 10, 1, NULL), FLCE_OK);
    cr_assert_eq(flce_model_count_trainable(&m), 272474 - 2 * 16 * 9); /* conv1 sees 1 channel */
    cr_assert_eq(m.blk[8].b2.HW, 49);                                   /* 28 -> 14 -> 7 */
    flce_model_free(&m);
}

/* L(w) of one training-mode forward on a fixed batch */
static double loss_at(flce_model *m, const float *w, int n, const float *x, const int32_t *y) {
    flce_model_set_state(m, w);
    flce_losses l;
    flce_model_forward_backward(m, n, x, y, 1.0f, 0.5f, &l, NULL);
    return l.loss;
}

Test(model, gradient_matches_a_directional_finite_difference, .timeout = FLCE_HANG_GUARD) {
    enum { N = 6 };
    flce_model m;
    cr_assert_eq(flce_model_create(&m, flce_backend_reference(), 3, 8, 8, 5, N, NULL), FLCE_OK);
    flce_model_init(&m, 3);
    size_t S = flce_model_state_size(&m);
    float *w = malloc(S * 4), *wp = malloc(S * 4), *v = malloc(S * 4), x[N * 3 * 64];
    int32_t y[N] = {0, 1, 0, 2, 1, 4};
    fill(x, sizeof x / 4, 1);
    flce_model_get_state(&m, w);
    fill(v, S, 2);
    /* running statistics are not trainable: no direction there; |v| = 1 */
    size_t o = 0;
    double vn = 0;
    for (int i = 0; i < m.nparams; i++) {
        if (!m.p[i].trainable) memset(v + o, 0, m.p[i].n * 4);
        for (size_t j = 0; j < m.p[i].n; j++) vn += (double)v[o + j] * v[o + j];
        o += m.p[i].n;
    }
    for (size_t j = 0; j < S; j++) v[j] = (float)(v[j] / sqrt(vn));
    loss_at(&m, w, N, x, y);
    double gv = 0;
    o = 0;
    for (int i = 0; i < m.nparams; i++) {
        if (m.p[i].trainable) {
            float *g = malloc(m.p[i].n * 4);
            m.be->buf_read(m.be, m.p[i].g, 0, g, m.p[i].n * 4);
            for (size_t j = 0; j < m.p[i].n; j++) gv += (double)g[j] * v[o + j];
            free(g);
        }
        o += m.p[i].n;
    }
    double h = 1e-3, f[2];
    for (int sgn = 0; sgn < 2; sgn++) {
        for (size_t j = 0; j < S; j++) wp[j] = w[j] + (float)((sgn ? -h : h) * v[j]);
        f[sgn] = loss_at(&m, wp, N, x, y);
    }
    double fd = (f[0] - f[1]) / (2 * h);
    printf("directional derivative: analytic %.6g, finite difference %.6g\n", gv, fd);
    cr_assert(fabs(fd - gv) < 2e-2 * fabs(gv) + 1e-3, "analytic %g vs finite difference %g", gv, fd);
    free(w), free(wp), free(v);
    flce_model_free(&m);
}

/* Train `steps` SGD steps with L_CE + L_CL on both backends; compare after each. */
static void compare_backends(int C, int H, int classes, int N, int steps) {
    flce_backend *ref = flce_backend_reference(), *cpu = flce_backend_cpu(2);
    flce_model a, b;
    cr_assert_eq(flce_model_create(&a, ref, C, H, H, classes, N, NULL), FLCE_OK);
    cr_assert_eq(flce_model_create(&b, cpu, C, H, H, classes, N, NULL), FLCE_OK);
    flce_model_init(&a, 9);
    flce_model_init(&b, 9);
    float *x = malloc(sizeof(float) * (size_t)N * C * H * H), *la = malloc(sizeof(float) * (size_t)N * classes),
          *lb = malloc(sizeof(float) * (size_t)N * classes), za[64 * 64], zb[64 * 64];
    int32_t *y = malloc(sizeof(int32_t) * (size_t)N);
    for (int s = 0; s < steps; s++) {
        fill(x, (size_t)N * C * H * H, 10 + (uint32_t)s);
        for (int i = 0; i < N; i++) y[i] = (i + s) % 2; /* repeated labels: L_CL has positives */
        flce_losses l1, l2;
        cr_assert_eq(flce_model_forward_backward(&a, N, x, y, 1.0f, 0.5f, &l1, NULL), FLCE_OK);
        cr_assert_eq(flce_model_forward_backward(&b, N, x, y, 1.0f, 0.5f, &l2, NULL), FLCE_OK);
        cr_assert(memcmp(&l1, &l2, sizeof l1) == 0, "step %d loss %.9g vs %.9g", s, l1.loss, l2.loss);
        cr_assert(l1.loss_cl > 0, "the contrastive term is active");
        flce_model_read_logits(&a, la), flce_model_read_logits(&b, lb);
        flce_model_read_features(&a, za), flce_model_read_features(&b, zb);
        cr_assert_eq(flce_digest(la, sizeof(float) * (size_t)N * classes), flce_digest(lb, sizeof(float) * (size_t)N * classes));
        cr_assert_eq(flce_digest(za, sizeof(float) * (size_t)N * 64), flce_digest(zb, sizeof(float) * (size_t)N * 64));
        cr_assert_eq(flce_model_digest(&a, 1), flce_model_digest(&b, 1), "gradients differ at step %d", s);
        flce_model_sgd(&a, 0.01f, 0.9f, 5e-4f, s == 0);
        flce_model_sgd(&b, 0.01f, 0.9f, 5e-4f, s == 0);
        cr_assert_eq(flce_model_digest(&a, 0), flce_model_digest(&b, 0), "parameters and BN statistics differ after step %d", s);
    }
    free(x), free(la), free(lb), free(y);
    flce_model_free(&a);
    flce_model_free(&b);
    cpu->destroy(cpu);
}

Test(model, cpu_equals_reference_over_three_training_steps, .timeout = FLCE_HANG_GUARD) { compare_backends(3, 16, 10, 6, 3); }
Test(model, cpu_equals_reference_on_3x32x32, .timeout = FLCE_HANG_GUARD) { compare_backends(3, 32, 10, 3, 1); }
Test(model, cpu_equals_reference_on_1x28x28_with_100_classes, .timeout = FLCE_HANG_GUARD) { compare_backends(1, 28, 100, 3, 1); }

Test(model, checkpoint_round_trip_and_strict_loading) {
    char dir[64], p[128];
    tu_tmpdir(dir, sizeof dir);
    snprintf(p, sizeof p, "%s/m.safetensors", dir);
    flce_backend *ref = flce_backend_reference();
    flce_model a, b;
    flce_err e = {{0}};
    cr_assert_eq(flce_model_create(&a, ref, 3, 8, 8, 10, 2, NULL), FLCE_OK);
    cr_assert_eq(flce_model_create(&b, ref, 3, 8, 8, 10, 2, NULL), FLCE_OK);
    flce_model_init(&a, 1);
    float x[2 * 3 * 64];
    int32_t y[2] = {1, 2};
    fill(x, sizeof x / 4, 3);
    flce_model_forward_backward(&a, 2, x, y, 0, 0.5f, NULL, NULL); /* moves the running statistics */
    cr_assert_eq(flce_model_save(&a, p, &e), FLCE_OK, "%s", e.msg);
    cr_assert_eq(flce_model_load(&b, p, &e), FLCE_OK, "%s", e.msg);
    cr_assert_eq(flce_model_digest(&a, 0), flce_model_digest(&b, 0));
    cr_assert_eq(b.bn1.tracked, 1);
    int in_c, classes;
    cr_assert_eq(flce_checkpoint_probe(p, &in_c, &classes, &e), FLCE_OK);
    cr_assert(in_c == 3 && classes == 10);
    /* the file holds PyTorch's names, with num_batches_tracked as int64 scalars */
    flce_st_file f;
    cr_assert_eq(flce_st_read(p, &f, &e), FLCE_OK);
    cr_assert(flce_st_find(&f, "layer2.0.shortcut.0.weight") && flce_st_find(&f, "layer3.2.bn2.running_var"));
    const flce_st_entry *t = flce_st_find(&f, "layer1.0.bn1.num_batches_tracked");
    cr_assert(t && t->dtype == FLCE_ST_I64 && t->ndim == 0);
    cr_assert_eq(f.n, a.nparams + 21); /* 21 BatchNorms: 1 + 9 x 2 + 2 shortcuts */
    flce_st_free(&f);
    /* a model of another shape rejects it, naming the tensor */
    flce_model c;
    cr_assert_eq(flce_model_create(&c, ref, 3, 8, 8, 100, 2, NULL), FLCE_OK);
    cr_assert_eq(flce_model_load(&c, p, &e), FLCE_ERR_FORMAT);
    cr_assert(strstr(e.msg, "linear.weight"), "%s", e.msg);
    flce_model_free(&c);
    /* a missing tensor and an unknown one */
    float one = 1;
    flce_st_tensor few[1] = {{"conv1.weight", FLCE_ST_F32, 1, {1}, &one}};
    cr_assert_eq(flce_st_write(p, few, 1, NULL, 0, &e), FLCE_OK);
    cr_assert_eq(flce_model_load(&b, p, &e), FLCE_ERR_FORMAT);
    cr_assert(strstr(e.msg, "conv1.weight"), "%s", e.msg);
    /* a truncated file */
    cr_assert_eq(flce_model_save(&a, p, &e), FLCE_OK);
    truncate(p, 5000);
    cr_assert_neq(flce_model_load(&b, p, &e), FLCE_OK);
    cr_assert(strstr(e.msg, p), "%s", e.msg);
    flce_model_free(&a);
    flce_model_free(&b);
    tu_rm_rf(dir);
}

Test(model, sgd_lowers_the_loss_on_a_fixed_batch, .timeout = FLCE_HANG_GUARD) {
    enum { N = 8 };
    flce_backend *cpu = flce_backend_cpu(2);
    flce_model m;
    cr_assert_eq(flce_model_create(&m, cpu, 1, 12, 12, 4, N, NULL), FLCE_OK);
    flce_model_init(&m, 2);
    float x[N * 144];
    int32_t y[N];
    fill(x, sizeof x / 4, 4);
    for (int i = 0; i < N; i++) y[i] = i % 4;
    flce_losses first, last;
    for (int s = 0; s < 30; s++) {
        flce_model_forward_backward(&m, N, x, y, 1.0f, 0.5f, s ? &last : &first, NULL);
        flce_model_sgd(&m, 0.05f, 0, 0, s == 0);
    }
    printf("loss on a fixed batch: %.4f -> %.4f\n", first.loss, last.loss);
    cr_assert(last.loss < 0.5f * first.loss, "%g -> %g", first.loss, last.loss);
    flce_model_free(&m);
    cpu->destroy(cpu);
}

/* A safetensors file from a header text and data bytes, written as they are. */
static void raw_st(const char *path, const char *hdr, uint64_t hl, const void *data, size_t dl) {
    FILE *f = fopen(path, "wb");
    unsigned char l8[8];
    for (int i = 0; i < 8; i++) l8[i] = (unsigned char)(hl >> (8 * i));
    fwrite(l8, 1, 8, f);
    fwrite(hdr, 1, strlen(hdr), f);
    fwrite(data, 1, dl, f);
    fclose(f);
}

static void expect_st_error(const char *path, const char *needle) {
    flce_st_file f;
    flce_err e = {{0}};
    cr_assert_eq(flce_st_read(path, &f, &e), FLCE_ERR_FORMAT, "%s was read", path);
    cr_assert(strstr(e.msg, needle), "'%s' lacks '%s'", e.msg, needle);
}

/* issue 20, item 6: the data section must be covered by the tensors exactly, shapes whose size
 * wraps are refused, and duplicate names are found among many entries */
Test(safetensors, coverage_wrapping_and_duplicates) {
    char dir[64], p[128];
    tu_tmpdir(dir, sizeof dir);
    snprintf(p, sizeof p, "%s/t.safetensors", dir);
    float d[4] = {1, 2, 3, 4};
    /* two tensors, with padding spaces after the header object */
    const char *h = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                    "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}    ";
    raw_st(p, h, strlen(h), d, 16);
    flce_st_file f;
    flce_err e = {{0}};
    cr_assert_eq(flce_st_read(p, &f, &e), FLCE_OK, "%s", e.msg);
    cr_assert_eq(memcmp((char *)f.data + flce_st_find(&f, "b")->begin, d + 2, 8), 0);
    flce_st_free(&f);
    /* the header length one short: the last pad byte becomes data, every tensor one byte off
     * (was read: weights shifted by a byte) */
    raw_st(p, h, strlen(h) - 1, d, 16);
    expect_st_error(p, "belong to no tensor");
    /* a gap between the tensors, and bytes after the last */
    const char *gap = "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                      "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}";
    raw_st(p, gap, strlen(gap), d, 12);
    expect_st_error(p, "4 bytes of the data section before tensor 'b'");
    const char *tail = "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
    raw_st(p, tail, strlen(tail), d, 16);
    expect_st_error(p, "the last 12 bytes");
    /* 2^50 x 2^50 x 16 elements: the product wraps to 0 in 64 bits, which matched [0, 0) */
    const char *wrap = "{\"a\":{\"dtype\":\"F32\",\"shape\":[1125899906842624,1125899906842624,16],\"data_offsets\":[0,0]}}";
    raw_st(p, wrap, strlen(wrap), d, 0);
    expect_st_error(p, "does not fit");
    /* 80,000 empty tensors, the last a duplicate of the first */
    size_t cap = 80000 * 64 + 64, n = 0;
    char *big = malloc(cap);
    n += (size_t)snprintf(big + n, cap - n, "{");
    for (int i = 0; i < 80000; i++)
        n += (size_t)snprintf(big + n, cap - n, "%s\"t%d\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]}", i ? "," : "",
                              i == 79999 ? 0 : i);
    snprintf(big + n, cap - n, "}");
    raw_st(p, big, strlen(big), d, 0);
    expect_st_error(p, "tensor 't0' twice");
    free(big);
    /* an entry holds exactly dtype, shape, data_offsets, each once, sizes whole and >= 0 */
    const char *bad[] = {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"x\":1}}",
                         "{\"a\":{\"dtype\":\"F32\",\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
                         "{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}",
                         "{\"a\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,4]}}",
                         "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4,8]}}",
                         "{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}"};
    for (int i = 0; i < 6; i++) {
        raw_st(p, bad[i], strlen(bad[i]), d, 4);
        expect_st_error(p, "malformed entry of tensor 'a'");
    }
    const char *md = "{\"__metadata__\":{\"k\":1},\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
    raw_st(p, md, strlen(md), d, 4);
    expect_st_error(p, "malformed __metadata__");
    /* the writer escapes what it writes: a metadata value with a quote and a backslash */
    const char *meta[2] = {"note", "say \"hi\" \\ bye"};
    flce_st_tensor one = {"w\"x", FLCE_ST_F32, 1, {2, 0, 0, 0}, d};
    cr_assert_eq(flce_st_write(p, &one, 1, meta, 1, &e), FLCE_OK, "%s", e.msg);
    cr_assert_eq(flce_st_read(p, &f, &e), FLCE_OK, "%s", e.msg);
    cr_assert_not_null(flce_st_find(&f, "w\"x"));
    flce_st_free(&f);
    tu_rm_rf(dir);
}
