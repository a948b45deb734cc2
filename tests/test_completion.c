/* test_completion.c: matrix completion and Shapley values by their properties:
 * completion keeps observed entries and recovers a synthetic rank-2 matrix with 30% of
 * its entries missing; Shapley values satisfy efficiency, symmetry and the null player,
 * and Monte-Carlo agrees with the exact values on a 6-player game. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "flce_eq.h"

#define NEAR(a, b, tol) cr_assert(fabs((a) - (b)) <= (tol), "%s = %.17g, expected %.17g", #a, (double)(a), (double)(b))

/* X = U V with U [T x 2], V [2 x n] uniform in (0.5, 1.5): a positive rank-2 matrix. */
static void rank2(int T, int n, double *X, uint8_t *obs, double missing_rate, uint64_t seed) {
    flce_rng r;
    flce_rng_init(&r, seed, FLCE_RNG_TEST, 9, 0);
    double U[200], V[200];
    for (int i = 0; i < 2 * T; i++) U[i] = 0.5 + flce_rng_uniform(&r);
    for (int i = 0; i < 2 * n; i++) V[i] = 0.5 + flce_rng_uniform(&r);
    for (int t = 0; t < T; t++)
        for (int k = 0; k < n; k++) {
            X[t * n + k] = U[t * 2] * V[k] + U[t * 2 + 1] * V[n + k];
            obs[t * n + k] = flce_rng_uniform(&r) >= missing_rate;
        }
}

Test(completion, recovers_rank2_with_30_percent_missing) {
    enum { T = 40, N = 25 };
    double X[T * N], Xin[T * N], Xh[T * N];
    uint8_t obs[T * N];
    rank2(T, N, X, obs, 0.3, 1);
    for (int i = 0; i < T * N; i++) Xin[i] = obs[i] ? X[i] : 0; /* missing entries hidden */
    flce_completion_cfg c;
    flce_completion_cfg_default(&c);
    c.rank = 2;
    flce_completion_info info;
    cr_assert_eq(flce_complete(Xin, obs, T, N, &c, 0, Xh, &info, NULL), FLCE_OK);
    double se = 0, ss = 0;
    int missing = 0;
    for (int i = 0; i < T * N; i++) {
        if (obs[i]) {
            cr_assert_eq(Xh[i], Xin[i], "observed entry %d changed", i); /* bit for bit */
            continue;
        }
        missing++;
        se += (Xh[i] - X[i]) * (Xh[i] - X[i]);
        ss += X[i] * X[i];
    }
    double rel = sqrt(se / ss);
    cr_assert(missing > 250 && missing < 350, "missing %d", missing);
    /* documented bound (docs/decisions.md): relative RMS error on missing entries < 1e-3
     * with mu = 1e-2 (the ridge term biases the fit by about mu / |v|^2) */
    cr_assert(rel < 1e-3, "relative RMS error %g after %d iterations", rel, info.iters);
    cr_assert(info.iters < 50, "ALS took %d iterations (balanced ALS converges in tens)", info.iters);
    /* gradient descent reaches the same objective, more slowly */
    flce_completion_info gi;
    c.gradient = 1;
    c.max_iter = 20000;
    c.lr = 0.01;
    double Xg[T * N];
    cr_assert_eq(flce_complete(Xin, obs, T, N, &c, 0, Xg, &gi, NULL), FLCE_OK);
    cr_assert(gi.objective < info.objective * 1.01 + 1e-9, "gd %g vs als %g", gi.objective, info.objective);
}

Test(completion, default_rank_and_degenerate_masks) {
    /* obs = 100 of T = 10, n = 20: floor(100 / 60) = 1; 1000 obs: floor(1000/60) = 16 -> 4; 10 obs -> 1 */
    cr_assert_eq(flce_completion_rank(100, 10, 20), 1);
    cr_assert_eq(flce_completion_rank(1000, 10, 20), 4);
    cr_assert_eq(flce_completion_rank(10, 10, 20), 1);
    cr_assert_eq(flce_completion_rank(10000, 1000, 50), 4); /* the paper's scale */
    double X[6] = {0}, Xh[6];
    uint8_t none[6] = {0}, row[6] = {1, 1, 1, 0, 0, 0};
    flce_completion_cfg c;
    flce_completion_cfg_default(&c);
    flce_completion_info info;
    cr_assert_eq(flce_complete(X, none, 2, 3, &c, 0, Xh, &info, NULL), FLCE_OK);
    for (int i = 0; i < 6; i++) cr_assert_eq(Xh[i], 0.0);
    double Y[6] = {0.2, 0.3, 0.5, 0, 0, 0};
    cr_assert_eq(flce_complete(Y, row, 2, 3, &c, 0, Xh, &info, NULL), FLCE_OK);
    for (int i = 0; i < 6; i++) cr_assert(isfinite(Xh[i]) && Xh[i] >= 0);
    cr_assert(Xh[0] == 0.2 && Xh[2] == 0.5);
}

/* v(S) = sum_{i in S} w_i + 6 [0 in S and 1 in S]: phi_0 = phi_1 = w + 3, others w_i */
static double game(uint32_t s, void *ctx) {
    const double *w = ctx;
    double v = 0;
    for (int i = 0; i < 6; i++)
        if (s >> i & 1) v += w[i];
    if ((s & 3) == 3) v += 6;
    return v;
}

static double only_player0(uint32_t s, void *ctx) {
    (void)ctx;
    return s & 1 ? 1.0 : 0.0;
}

/* a non-additive game: v(S) = (sum_{i in S} w_i)^2 / 10 */
static double square_game(uint32_t s, void *ctx) {
    const double *w = ctx;
    double v = 0;
    for (int i = 0; i < 6; i++)
        if (s >> i & 1) v += w[i];
    return v * v / 10;
}

Test(shapley, exact_by_hand_and_axioms) {
    double w[6] = {1, 1, 2, 0, 3, 0.5}, phi[6];
    cr_assert_eq(flce_shapley_exact(6, game, w, phi, NULL), FLCE_OK);
    NEAR(phi[0], 4, 1e-12);
    NEAR(phi[1], 4, 1e-12); /* symmetry */
    NEAR(phi[2], 2, 1e-12);
    NEAR(phi[3], 0, 1e-12); /* null player */
    NEAR(phi[4], 3, 1e-12);
    double s = 0;
    for (int i = 0; i < 6; i++) s += phi[i];
    NEAR(s, game(63, w) - game(0, w), 1e-12); /* efficiency */
}

Test(shapley, monte_carlo_agrees_with_exact_on_six_players) {
    double w[6] = {1, 2, 3, 4, 5, 6}, ex[6], mc[6];
    cr_assert_eq(flce_shapley_exact(6, square_game, w, ex, NULL), FLCE_OK);
    /* by symmetry of the square game phi_i = w_i (sum w) / 10 = 2.1 w_i */
    for (int i = 0; i < 6; i++) NEAR(ex[i], 2.1 * w[i], 1e-12);
    int64_t calls_full, calls_trunc;
    cr_assert_eq(flce_shapley_mc(6, square_game, w, 4000, 0, 1, 0, mc, &calls_full, NULL), FLCE_OK);
    double s = 0;
    for (int i = 0; i < 6; i++) {
        /* marginals lie in [0, 2*21*6/10]: sd of a mean of 4000 < 25.2/2/sqrt(4000) = 0.2 */
        NEAR(mc[i], ex[i], 0.6);
        s += mc[i];
    }
    NEAR(s, square_game(63, w) - square_game(0, w), 1e-9); /* every permutation is efficient */
    cr_assert_eq(calls_full, 2 + 4000 * 5); /* no truncation: n - 1 calls per permutation */
    /* truncation: in v(S) = [0 in S] nothing changes after player 0 joins, so the rest of
     * each permutation is skipped, and the values stay exact: phi = (1, 0, ..., 0) */
    cr_assert_eq(flce_shapley_mc(6, only_player0, NULL, 500, 1e-9, 1, 0, mc, &calls_trunc, NULL), FLCE_OK);
    NEAR(mc[0], 1, 0);
    for (int i = 1; i < 6; i++) NEAR(mc[i], 0, 0);
    cr_assert(calls_trunc < 2 + 500 * 4, "%lld calls", (long long)calls_trunc);
}

/* ---- the choices the paper leaves open (issue 21) ----------------------------------- */
/* folds: every observed entry in exactly one of K folds, the folds' sizes differ by at most
 * one, unobserved entries in none, the same folds from the same seed, other folds from another */
Test(completion_cv, folds_partition_the_observed_entries) {
    enum { T = 12, N = 9, K = 5 };
    uint8_t obs[T * N];
    for (int i = 0; i < T * N; i++) obs[i] = (i * 7) % 3 != 0;
    int f1[T * N], f2[T * N], f3[T * N], size[K] = {0}, m = 0;
    flce_cv_folds(obs, T, N, K, 42, 3, f1);
    flce_cv_folds(obs, T, N, K, 42, 3, f2);
    flce_cv_folds(obs, T, N, K, 43, 3, f3);
    int differ = 0;
    for (int i = 0; i < T * N; i++) {
        if (!obs[i]) {
            cr_assert_eq(f1[i], -1, "unobserved entry %d in fold %d", i, f1[i]);
            continue;
        }
        m++;
        cr_assert(f1[i] >= 0 && f1[i] < K);
        size[f1[i]]++;
        cr_assert_eq(f1[i], f2[i], "same seed, other folds");
        differ |= f1[i] != f3[i];
    }
    for (int k = 0; k < K; k++) cr_assert(size[k] == m / K || size[k] == m / K + 1, "fold %d holds %d of %d", k, size[k], m);
    cr_assert(differ, "another seed gave the same folds");
}

/* held-out error: an exactly rank-2 matrix is predicted almost exactly at rank 2 and poorly
 * at rank 1 (its second component, about a third of its size, is then missing) */
Test(completion_cv, heldout_error_tells_the_rank) {
    enum { T = 40, N = 25 };
    double X[T * N], Xin[T * N];
    uint8_t obs[T * N];
    rank2(T, N, X, obs, 0.3, 2);
    for (int i = 0; i < T * N; i++) Xin[i] = obs[i] ? X[i] : 0;
    flce_completion_cfg c;
    flce_completion_cfg_default(&c);
    double e1, e2, ms = 0;
    int m = 0;
    for (int i = 0; i < T * N; i++)
        if (obs[i]) ms += X[i] * X[i], m++;
    ms /= m;
    cr_assert_eq(flce_cv_error(Xin, obs, T, N, &c, 0, 1, 1e-2, &e1, NULL), FLCE_OK);
    cr_assert_eq(flce_cv_error(Xin, obs, T, N, &c, 0, 2, 1e-2, &e2, NULL), FLCE_OK);
    cr_assert(e2 < 1e-6 * ms, "rank 2: held-out MSE %g of a mean square %g", e2, ms);
    cr_assert(e1 > 100 * e2, "rank 1 (%g) should predict far worse than rank 2 (%g)", e1, e2);
}

/* --rank auto picks the rank the matrix has: 1 for a rank-1 matrix, 2 for rank 2, and the
 * result equals completing with that rank directly (same start, same bits) */
Test(completion_cv, auto_picks_the_true_rank) {
    enum { T = 40, N = 25 };
    double X[T * N], Xin[T * N], Xa[T * N], Xf[T * N];
    uint8_t obs[T * N];
    flce_completion_cfg c;
    flce_completion_cfg_default(&c);
    flce_completion_info ia, ifx;
    for (int want = 1; want <= 2; want++) {
        rank2(T, N, X, obs, 0.3, 5);
        if (want == 1) { /* a rank-1 matrix: the outer product of a row and a column of the rank-2 one */
            double row[N], col[T];
            for (int k = 0; k < N; k++) row[k] = X[k];
            for (int t = 0; t < T; t++) col[t] = X[t * N] / X[0];
            for (int t = 0; t < T; t++)
                for (int k = 0; k < N; k++) X[t * N + k] = col[t] * row[k];
        }
        for (int i = 0; i < T * N; i++) Xin[i] = obs[i] ? X[i] : 0;
        c.rank_auto = 1, c.mu_auto = 0, c.rank = 0;
        cr_assert_eq(flce_complete(Xin, obs, T, N, &c, 4, Xa, &ia, NULL), FLCE_OK);
        cr_assert_eq(ia.rank, want, "auto chose rank %d for a rank-%d matrix", ia.rank, want);
        cr_assert(!isnan(ia.cv_error) && ia.cv_error == ia.cv_grid[want - 1][0], "the chosen error is not the grid's");
        c.rank_auto = 0, c.rank = want;
        cr_assert_eq(flce_complete(Xin, obs, T, N, &c, 4, Xf, &ifx, NULL), FLCE_OK);
        cr_assert_eq(memcmp(Xa, Xf, sizeof Xa), 0, "auto's completion differs from rank %d's", want);
    }
}

/* the literal reading: all entries, the unselected as zeros; an exactly rank-1 matrix with no
 * entry missing is fitted by gradient descent everywhere (observed entries replaced by U V,
 * close to themselves), and a matrix whose unselected entries are zero is fitted to those zeros */
Test(completion_cv, literal_fits_all_entries) {
    enum { T = 6, N = 5 };
    double X[T * N], Xh[T * N];
    for (int t = 0; t < T; t++)
        for (int k = 0; k < N; k++) X[t * N + k] = (0.5 + 0.1 * t) * (0.4 + 0.2 * k); /* rank 1, entries 0.2 .. 1.5 */
    flce_completion_cfg c;
    flce_completion_cfg_default(&c);
    c.rank = 1, c.max_iter = 4000, c.lr = 0.02;
    flce_completion_info info;
    cr_assert_eq(flce_complete_literal(X, T, N, &c, 0, Xh, &info, NULL), FLCE_OK);
    for (int i = 0; i < T * N; i++) NEAR(Xh[i], X[i], 1e-6);
    cr_assert_eq(info.iters, 4000, "a fixed number of steps");
    /* a block of zeros (unselected) pulls the fit there towards 0: below the masked completion's */
    uint8_t obs[T * N];
    double Xm[T * N];
    for (int i = 0; i < T * N; i++) obs[i] = i % 4 != 0;
    c.literal = 1;
    cr_assert_eq(flce_complete(X, obs, T, N, &c, 0, Xh, &info, NULL), FLCE_OK);
    c.literal = 0;
    cr_assert_eq(flce_complete(X, obs, T, N, &c, 0, Xm, &info, NULL), FLCE_OK);
    double lit = 0, mask = 0;
    for (int i = 0; i < T * N; i++)
        if (!obs[i]) lit += Xh[i], mask += Xm[i];
    cr_assert(lit < 0.9 * mask, "literal's unselected entries (%g) should sit below the masked completion's (%g)", lit, mask);
    for (int i = 0; i < T * N; i++)
        if (!obs[i]) NEAR(Xm[i], X[i], 1e-2); /* the masked completion recovers them */
}

/* the completion record holds every class's grid, however long the numbers (a record of 10
 * classes with a full grid overflowed its buffer and corrupted the heap) */
#include "trace_io.h"
#include "json.h"
#include "testutil.h"
Test(completion_cv, record_of_a_full_grid) {
    enum { C = 12 };
    flce_eval_result res = {0};
    int rank[C];
    double mu[C], cv[C], grid[C * FLCE_CV_NRANKS * FLCE_CV_NMUS];
    for (int c = 0; c < C; c++) rank[c] = 8, mu[c] = 0.10000000000000001, cv[c] = 1.2345678901234567e-300;
    for (int i = 0; i < C * FLCE_CV_NRANKS * FLCE_CV_NMUS; i++) grid[i] = -1.2345678901234567e-300;
    res.rank = rank, res.mu = mu, res.cv_error = cv, res.cv_grid = grid;
    flce_completion_cfg cc;
    flce_completion_cfg_default(&cc);
    cc.rank_auto = cc.mu_auto = 1, cc.seed = 9007199254740992ull; /* 2^53: the largest seed a record holds exactly */
    char dir[64], p[128];
    tu_tmpdir(dir, sizeof dir);
    snprintf(p, sizeof p, "%s/completion.json", dir);
    flce_err e;
    cr_assert_eq(flce_completion_record(p, &cc, "M V Q CMC", C, &res, &e), FLCE_OK, "%s", e.msg);
    /* the whole record reads back: every class with its choice and its full grid, numbers exact */
    flce_status st;
    cJSON *o = flce_json_read(p, 1 << 20, &st, &e);
    cr_assert_not_null(o, "%s", e.msg);
    cr_assert_eq(flce_json_num(o, "seed"), 9007199254740992.0);
    cr_assert_str_eq(flce_json_str(o, "ablate"), "M V Q CMC");
    const cJSON *cl = cJSON_GetObjectItemCaseSensitive(o, "classes");
    cr_assert_eq(cJSON_GetArraySize(cl), C);
    for (const cJSON *k = cl->child; k; k = k->next) {
        cr_assert_eq(flce_json_num(k, "rank"), 8);
        cr_assert_eq(flce_json_num(k, "mu"), 0.10000000000000001);
        cr_assert_eq(flce_json_num(k, "heldout_mse"), 1.2345678901234567e-300);
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(k, "grid");
        cr_assert_eq(cJSON_GetArraySize(g), FLCE_CV_NRANKS * FLCE_CV_NMUS);
        for (const cJSON *x = g->child; x; x = x->next) cr_assert_eq(flce_json_num(x, "heldout_mse"), -1.2345678901234567e-300);
    }
    cJSON_Delete(o);
    flce_completion_file cf;
    cr_assert_eq(flce_completion_read(p, &cf, &e), FLCE_OK, "%s", e.msg);
    cr_assert(cf.has_seed && cf.seed == 9007199254740992ull);
    cr_assert_str_eq(cf.rank, "auto");
    cr_assert_str_eq(cf.mu, "auto");
    cr_assert_str_eq(cf.ablate, "M V Q CMC");
    tu_rm_rf(dir);
}

/* ---- completion versions (issue 29) ----------------------------------------------------- */
/* An exactly rank-2 positive matrix, 40 x 25 with 30% of its entries hidden: version 2's auto
 * (warm-started paths) chooses rank 2 and recovers the hidden entries to a relative RMS error
 * below 1e-3. Version 1's cold fits at rank 2 and small mu stall far from the fit (held-out
 * error 0.034 at mu 1e-3 where version 2's path reaches 6e-9), so it chose rank 4: the defect
 * that the warm starts remove (docs/decisions.md, completion version 2). */
Test(completion_v2, recovers_rank2_where_cold_fits_stall) {
    enum { T = 40, N = 25 };
    double X[T * N], Xin[T * N], Xh[T * N];
    uint8_t obs[T * N];
    rank2(T, N, X, obs, 0.3, 11);
    for (int i = 0; i < T * N; i++) Xin[i] = obs[i] ? X[i] : 0;
    flce_completion_info info[3];
    for (int v = 1; v <= 2; v++) {
        flce_completion_cfg c;
        flce_completion_cfg_default(&c);
        c.version = v, c.threads = 1;
        cr_assert_eq(flce_complete(Xin, obs, T, N, &c, 0, Xh, &info[v], NULL), FLCE_OK);
        if (v == 1) continue;
        cr_assert_eq(info[v].rank, 2, "version %d chose rank %d for a rank-2 matrix", v, info[v].rank);
        double se = 0, ss = 0;
        for (int i = 0; i < T * N; i++) {
            if (obs[i]) {
                cr_assert_eq(Xh[i], Xin[i]);
                continue;
            }
            se += (Xh[i] - X[i]) * (Xh[i] - X[i]), ss += X[i] * X[i];
        }
        cr_assert(sqrt(se / ss) < 1e-3, "relative RMS error %g on the hidden entries (rank %d, mu %g)", sqrt(se / ss), info[v].rank,
                  info[v].mu);
    }
    cr_assert(info[1].cv_grid[1][0] > 1000 * info[2].cv_grid[1][0], "rank 2, mu 1e-3: version 1 %g, version 2 %g",
              info[1].cv_grid[1][0], info[2].cv_grid[1][0]);
}

/* Version 1's grid is, cell by cell, the public flce_cv_error (five cold fits per candidate):
 * an independent computation of what the old code did. Version 2's grid differs from it, but
 * its held-out errors on an exactly rank-2 matrix tell the rank as clearly. */
Test(completion_v2, version1_grid_is_cold_cross_validation) {
    enum { T = 30, N = 20 };
    double X[T * N], Xin[T * N], Xh[T * N];
    uint8_t obs[T * N];
    rank2(T, N, X, obs, 0.5, 12);
    for (int i = 0; i < T * N; i++) Xin[i] = obs[i] ? X[i] : 0;
    flce_completion_cfg c;
    flce_completion_cfg_default(&c);
    c.version = 1, c.threads = 2;
    flce_completion_info i1, i2;
    cr_assert_eq(flce_complete(Xin, obs, T, N, &c, 3, Xh, &i1, NULL), FLCE_OK);
    for (int a = 0; a < FLCE_CV_NRANKS; a++)
        for (int b = 0; b < FLCE_CV_NMUS; b++) {
            double err;
            cr_assert_eq(flce_cv_error(Xin, obs, T, N, &c, 3, FLCE_CV_RANKS[a], FLCE_CV_MUS[b], &err, NULL), FLCE_OK);
            cr_assert_eq(err, i1.cv_grid[a][b], "rank %d mu %g: grid %.17g, cold cross-validation %.17g", FLCE_CV_RANKS[a],
                         FLCE_CV_MUS[b], i1.cv_grid[a][b], err);
        }
    c.version = 2;
    cr_assert_eq(flce_complete(Xin, obs, T, N, &c, 3, Xh, &i2, NULL), FLCE_OK);
    for (int b = 0; b < FLCE_CV_NMUS; b++) /* rank 1 misses the second component at every mu */
        cr_assert(i2.cv_grid[0][b] > 100 * i2.cv_grid[1][0], "rank 1 mu %g: %g against rank 2's %g at mu 1e-3", FLCE_CV_MUS[b],
                  i2.cv_grid[0][b], i2.cv_grid[1][0]);
    cr_assert_eq(i2.rank, 2);
}

/* The same bytes for 1, 2 and 5 threads (folds in flce_complete, classes in flce_eval_trace),
 * for both versions; and version 2 differs from version 1 (the versions are not the same code). */
Test(completion_v2, threads_give_the_same_bytes) {
    enum { T = 25, N = 12, C = 6 };
    static double Q[T * N * C];
    static uint8_t sel[T * N];
    flce_rng r;
    flce_rng_init(&r, 7, FLCE_RNG_TEST, 13, 0);
    for (int t = 0; t < T; t++)
        for (int k = 0; k < N; k++) {
            sel[t * N + k] = flce_rng_uniform(&r) < 0.35;
            for (int c = 0; c < C; c++)
                Q[(t * N + k) * C + c] = sel[t * N + k] ? (0.5 + t % 3) * (0.5 + k % 4) * 0.05 * (1 + 0.3 * flce_rng_uniform(&r)) : NAN;
        }
    flce_trace tr = {T, N, C, 0, NULL, sel, NULL, NULL, Q};
    flce_ablation ab = {0};
    for (int v = 1; v <= 2; v++) {
        flce_eval_result res[3];
        int th[3] = {1, 2, 5};
        for (int i = 0; i < 3; i++) {
            flce_completion_cfg c;
            flce_completion_cfg_default(&c);
            c.version = v, c.threads = th[i];
            cr_assert_eq(flce_eval_trace(&tr, &ab, &c, &res[i], NULL), FLCE_OK);
        }
        for (int i = 1; i < 3; i++) {
            cr_assert_eq(memcmp(res[0].X, res[i].X, sizeof(double) * T * N * C), 0, "version %d: %d threads changed X", v, th[i]);
            cr_assert_eq(memcmp(res[0].CE, res[i].CE, sizeof(double) * N), 0, "version %d: %d threads changed CE", v, th[i]);
            cr_assert_eq(memcmp(res[0].cv_grid, res[i].cv_grid, sizeof(double) * C * FLCE_CV_NRANKS * FLCE_CV_NMUS), 0);
        }
        for (int i = 0; i < 3; i++) flce_eval_result_free(&res[i]);
        /* also one class's folds over threads (flce_complete on its own) */
        double Xc[T * N], X1[T * N], X2[T * N];
        for (int i = 0; i < T * N; i++) Xc[i] = sel[i] ? Q[i * C] : 0;
        flce_completion_cfg c;
        flce_completion_cfg_default(&c);
        c.version = v, c.threads = 1;
        flce_completion_info in1, in2;
        cr_assert_eq(flce_complete(Xc, sel, T, N, &c, 0, X1, &in1, NULL), FLCE_OK);
        c.threads = 3;
        cr_assert_eq(flce_complete(Xc, sel, T, N, &c, 0, X2, &in2, NULL), FLCE_OK);
        cr_assert_eq(memcmp(X1, X2, sizeof X1), 0, "version %d: folds over 3 threads changed the class's completion", v);
    }
    flce_completion_cfg c1, c2;
    flce_completion_cfg_default(&c1), flce_completion_cfg_default(&c2);
    c1.version = 1;
    flce_eval_result a, b;
    cr_assert_eq(flce_eval_trace(&tr, &ab, &c1, &a, NULL), FLCE_OK);
    cr_assert_eq(flce_eval_trace(&tr, &ab, &c2, &b, NULL), FLCE_OK);
    cr_assert_neq(memcmp(a.cv_grid, b.cv_grid, sizeof(double) * C * FLCE_CV_NRANKS * FLCE_CV_NMUS), 0, "versions 1 and 2 gave one grid");
    flce_eval_result_free(&a), flce_eval_result_free(&b);
    cr_assert_eq(c2.version, FLCE_COMPLETION_VERSION);
    c2.version = 3;
    flce_err e;
    cr_assert_eq(flce_eval_trace(&tr, &ab, &c2, &b, &e), FLCE_ERR_ARG);
    cr_assert(strstr(e.msg, "version 3"), "%s", e.msg);
}
