/* test_baselines.c: each baseline's defining rule on a tiny problem worked out by hand
 * (docs/baselines.md), the working in the comments. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "baselines.h"
#include "model.h"
#include "ref_backend.h"

#define NEAR(a, b, tol) cr_assert(fabs((double)(a) - (double)(b)) <= (tol), "%s = %.12g, expected %.12g", #a, (double)(a), (double)(b))

Test(fedprox, proximal_gradient_by_hand) {
    /* g + mu (w - w_global): (1, 2) + 0.5 ((3, 5) - (1, 1)) = (2, 4) */
    float g[2] = {1, 2}, w[2] = {3, 5}, ref[2] = {1, 1};
    flce_prox_grad(2, g, w, ref, 0.5f);
    cr_assert(g[0] == 2 && g[1] == 4);
}

Test(ditto, lambda_zero_is_purely_local_training) {
    /* the personal model's step adds lambda (v - w) to its gradient; with lambda = 0 three
     * Ditto steps and three plain SGD steps from the same start give the same model */
    flce_backend *be = flce_backend_reference();
    flce_model a, b;
    cr_assert_eq(flce_model_create(&a, be, 1, 8, 8, 3, 4, NULL), FLCE_OK);
    cr_assert_eq(flce_model_create(&b, be, 1, 8, 8, 3, 4, NULL), FLCE_OK);
    flce_model_init(&a, 1);
    flce_model_init(&b, 1);
    size_t S = flce_model_state_size(&a);
    float *global = calloc(S, 4), x[4 * 64], *w = malloc(S * 4), *gr = malloc(S * 4);
    for (size_t i = 0; i < S; i++) global[i] = (float)i * 1e-4f; /* far from the personal model */
    int32_t y[4] = {0, 1, 2, 1};
    for (int i = 0; i < 4 * 64; i++) x[i] = (float)((i * 37) % 11) - 5;
    for (int s = 0; s < 3; s++) {
        flce_model_forward_backward(&a, 4, x, y, 0, 0.5f, NULL, NULL);
        flce_model_sgd(&a, 0.05f, 0, 0, s == 0);
        flce_model_forward_backward(&b, 4, x, y, 0, 0.5f, NULL, NULL);
        size_t o = 0;
        for (int i = 0; i < b.nparams; i++) { /* Ditto's personal step with lambda = 0 */
            flce_param *p = &b.p[i];
            if (p->trainable) {
                be->buf_read(be, p->w, 0, w, p->n * 4);
                be->buf_read(be, p->g, 0, gr, p->n * 4);
                flce_prox_grad(p->n, gr, w, global + o, 0.0f);
                be->buf_write(be, p->g, 0, gr, p->n * 4);
            }
            o += p->n;
        }
        flce_model_sgd(&b, 0.05f, 0, 0, s == 0);
        cr_assert_eq(flce_model_digest(&a, 0), flce_model_digest(&b, 0), "step %d", s);
    }
    free(global), free(w), free(gr);
    flce_model_free(&a);
    flce_model_free(&b);
}

Test(moon, loss_on_hand_picked_features) {
    /* z = (1,0), z_g = (1,0), z_prev = (0,1), tau = 0.5: a = 2, b = 0,
     * l = -log(e^2 / (e^2 + 1)) = log(1 + e^-2) = 0.1269280110; mu = 1, one sample */
    float z[2] = {1, 0}, zg[2] = {1, 0}, zp[2] = {0, 1}, dz[2];
    double l = flce_moon_loss(1, 2, z, zg, zp, 1.0, 0.5, dz);
    NEAR(l, log(1 + exp(-2.0)), 1e-12);
    /* z on the previous model's side: a = 0, b = 2: l = log(1 + e^2) = 2.1269280110 */
    l = flce_moon_loss(1, 2, zp, zg, zp, 1.0, 0.5, dz);
    NEAR(l, log(1 + exp(2.0)), 1e-12);
    /* the gradient against central differences of a non-trivial case, mu = 2 */
    float a[6] = {0.3f, -1.2f, 0.5f, 2.0f, 0.1f, -0.4f}, g3[6] = {1, 0.2f, -0.3f, 0.4f, 0.4f, 1},
          p3[6] = {-0.5f, 0.7f, 0.2f, 0.1f, -1, 0.3f}, d3[6], tmp[6];
    flce_moon_loss(2, 3, a, g3, p3, 2.0, 0.5, d3);
    for (int i = 0; i < 6; i++) {
        float s0 = a[i];
        a[i] = s0 + 1e-3f;
        double lp = flce_moon_loss(2, 3, a, g3, p3, 2.0, 0.5, tmp);
        a[i] = s0 - 1e-3f;
        double lm = flce_moon_loss(2, 3, a, g3, p3, 2.0, 0.5, tmp);
        a[i] = s0;
        NEAR(d3[i], (lp - lm) / ((double)(s0 + 1e-3f) - (double)(s0 - 1e-3f)), 1e-4);
    }
}

Test(fedfv, projection_removes_conflicts_and_keeps_the_high_loss_update) {
    /* K = 3 in 3-D, losses 0.1, 0.2, 0.9: ceil(0.1 x 3) = 1 client (the third, highest loss)
     * keeps its update. g0 = (1, 0, 0), g1 = (-1, 1, 0), g2 = (0, -1, 1).
     * g0 against g1 (<g1,g0> = -1): g0 - (-1/2) g1 = (0.5, 0.5, 0); against g2 (<g2,g0'> = -0.5):
     * g0' + (0.5/2) g2 = (0.5, 0.25, 0.25).
     * g1 against g0 (<g0,g1> = -1): (0, 1, 0); against g2 (<g2,(0,1,0)> = -1): (0, 0.5, 0.5). */
    float orig[9] = {1, 0, 0, -1, 1, 0, 0, -1, 1}, g[9];
    double loss[3] = {0.1, 0.2, 0.9};
    flce_fedfv_project(3, 3, orig, loss, 0.1, g);
    float want[9] = {0.5f, 0.25f, 0.25f, 0, 0.5f, 0.5f, 0, -1, 1};
    for (int i = 0; i < 9; i++) NEAR(g[i], want[i], 1e-7);
    /* no negative inner product left among the updates after projection:
     * <g0', g1'> = 0.25, <g0', g2> = 0, <g1', g2> = 0 (the originals had -1, 0, -1) */
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++) {
            double d = 0;
            for (int q = 0; q < 3; q++) d += (double)g[i * 3 + q] * g[j * 3 + q];
            cr_assert(d >= -1e-7, "<g%d', g%d'> = %g", i, j, d);
        }
    cr_assert_eq(memcmp(g + 6, orig + 6, 12), 0, "the high-loss update is kept bit for bit");
}

Test(cgsv, reputation_update_by_hand) {
    /* w = 0, w_1 = (1, 0), w_2 = (0, 1), r = (0.5, 0.5), Gamma = 0.15:
     * g_k = 0.15 u_k / (1 + 1e-7); g = (0.075, 0.075) / (1 + 1e-7); phi_k = cos = 1/sqrt2;
     * r_k = 0.95 x 0.5 + 0.05 / sqrt2 = 0.5103553391; w' = w + g */
    float w[2] = {0, 0}, st[4] = {1, 0, 0, 1}, ng[2];
    double r[2] = {0.5, 0.5}, wt[2] = {0.5, 0.5};
    flce_cgsv_round(2, 2, w, st, 0.15, 0.95, wt, r, ng);
    NEAR(r[0], 0.475 + 0.05 / sqrt(2), 1e-9);
    NEAR(r[1], 0.475 + 0.05 / sqrt(2), 1e-9);
    NEAR(ng[0], 0.075 / (1 + 1e-7), 1e-8);
    /* the step has length Gamma whatever the updates' lengths: u = (30, 40) and (0, 0.001), weights
     * (1, 0): g = 0.15 (0.6, 0.8) */
    float st3[4] = {30, 40, 0, 0.001f};
    double r3[2] = {0, 0}, wt3[2] = {1, 0};
    flce_cgsv_round(2, 2, w, st3, 0.15, 0.95, wt3, r3, ng);
    NEAR(ng[0], 0.09, 1e-7);
    NEAR(ng[1], 0.12, 1e-7);
    NEAR(r3[0], 0.05, 1e-9); /* from 0: (1 - alpha) cos = 0.05 */
    NEAR(r3[1], 0.05 * 0.8, 1e-7); /* cos((0, 1), (0.6, 0.8)) = 0.8 */
    /* a client opposed to the aggregate: phi < 0 pulls its reputation down, never below 1e-3 */
    float st2[4] = {1, 0, -0.1f, 0};
    double r2[2] = {0.999, 0.001};
    wt[0] = 0.999, wt[1] = 0.001;
    flce_cgsv_round(2, 2, w, st2, 0.15, 0.95, wt, r2, ng);
    NEAR(r2[1], 1e-3, 0); /* 0.95 x 0.001 - 0.05 = negative -> clamped */
    NEAR(r2[0], 0.95 * 0.999 + 0.05, 1e-9);
}

Test(qfedavg, delta_and_h_on_two_clients) {
    /* S = 1, lr = 0.125 (L = 8), q = 1, w = 1, w_1 = 0.5, w_2 = 0.75, F = (2, 1):
     * dw = (4, 2); D = F dw = (8, 2); h = (1 x 16 + 8 x 2, 1 x 4 + 8 x 1) = (32, 12);
     * w' = 1 - 10/44; contributions F / sum h = (2/44, 1/44) */
    float w[1] = {1}, st[2] = {0.5f, 0.75f}, ng[1];
    double F[2] = {2, 1}, h[2], c[2];
    flce_qfedavg_round(2, 1, w, st, F, 0.125, 1.0, ng, h, c);
    NEAR(h[0], 32, 0);
    NEAR(h[1], 12, 0);
    NEAR(ng[0], 1 - 10.0 / 44, 1e-7);
    NEAR(c[0], 2.0 / 44, 1e-16);
    NEAR(c[1], 1.0 / 44, 1e-16);
}

Test(fedfa, weights_from_accuracies_and_frequencies) {
    /* acc = (0.5, 0.25): shares (2/3, 1/3): ACC = (-log2(0.666667667), -log2(0.333334333))
     * = (0.5849603, 1.5849582) -> normalised (0.2695771, 0.7304229);
     * f = (1, 3): shares (1/4, 3/4): FR = (-log2(0.75001), -log2(0.25001)) = (0.4150182, 1.9999423)
     * -> (0.1718530, 0.8281470); pi = (0.2207151, 0.7792849) with beta = 0.5 */
    double acc[2] = {0.5, 0.25}, f[2] = {1, 3}, pi[2];
    flce_fedfa_weights(2, acc, f, 0.5, pi);
    NEAR(pi[0], 0.2207151, 1e-7);
    NEAR(pi[1], 0.7792849, 1e-7);
    NEAR(pi[0] + pi[1], 1, 1e-15);
    /* beta = 0: accuracy only; the less accurate client gets the larger weight */
    flce_fedfa_weights(2, acc, f, 0.0, pi);
    cr_assert(pi[1] > pi[0]);
}
