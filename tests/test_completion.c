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
    cr_assert_eq(flce_completion_record(p, &cc, "M V Q CMC", C, &res, NULL, &e), FLCE_OK, "%s", e.msg);
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

/* Two records with the same members in another order are the same settings (a later build
 * writes config.json's members in another order: flce report groups such runs and --resume
 * accepts them); an array's order, a value or a member more are not. */
Test(json, equal_objects_in_any_member_order) {
    const char *base = "{\"a\":1,\"b\":[1,{\"x\":2,\"y\":\"z\"}],\"c\":null}";
    const char *same[] = {"{\"c\":null,\"b\":[1,{\"y\":\"z\",\"x\":2}],\"a\":1}", "{\"b\":[1,{\"x\":2.0,\"y\":\"z\"}],\"a\":1e0,\"c\":null}"};
    const char *other[] = {"{\"a\":1,\"b\":[{\"x\":2,\"y\":\"z\"},1],\"c\":null}", "{\"a\":1,\"b\":[1,{\"x\":2,\"y\":\"z\"}]}",
                           "{\"a\":1,\"b\":[1,{\"x\":2,\"y\":\"z\"}],\"c\":null,\"d\":0}", "{\"a\":1,\"b\":[1,{\"x\":3,\"y\":\"z\"}],\"c\":null}",
                           "{\"a\":1,\"b\":[1,{\"x\":2,\"w\":\"z\"}],\"c\":null}"};
    cJSON *a = cJSON_Parse(base);
    cr_assert_not_null(a);
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        cJSON *b = cJSON_Parse(same[i]);
        cr_assert(flce_json_equal(a, b) && flce_json_equal(b, a), "%s should equal %s", same[i], base);
        cJSON_Delete(b);
    }
    for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
        cJSON *b = cJSON_Parse(other[i]);
        cr_assert(!flce_json_equal(a, b) && !flce_json_equal(b, a), "%s should differ from %s", other[i], base);
        cJSON_Delete(b);
    }
    cJSON_Delete(a);
}

/* ---- the completion made faster without changing a bit (issue 29) ----------------------- */
/* The grid of flce_complete's cross-validation is, cell by cell, the public flce_cv_error (five
 * fits from the seeded start per candidate, one running sum of the held-out errors): the folds
 * computed apart, over threads, change nothing. */
Test(completion_speed, grid_is_cold_cross_validation_bit_for_bit) {
    enum { T = 30, N = 20 };
    double X[T * N], Xin[T * N], Xh[T * N];
    uint8_t obs[T * N];
    rank2(T, N, X, obs, 0.5, 12);
    for (int i = 0; i < T * N; i++) Xin[i] = obs[i] ? X[i] : 0;
    flce_completion_cfg c;
    flce_completion_cfg_default(&c);
    c.threads = 2;
    flce_completion_info info;
    cr_assert_eq(flce_complete(Xin, obs, T, N, &c, 3, Xh, &info, NULL), FLCE_OK);
    for (int a = 0; a < FLCE_CV_NRANKS; a++)
        for (int b = 0; b < FLCE_CV_NMUS; b++) {
            double err;
            cr_assert_eq(flce_cv_error(Xin, obs, T, N, &c, 3, FLCE_CV_RANKS[a], FLCE_CV_MUS[b], &err, NULL), FLCE_OK);
            cr_assert_eq(err, info.cv_grid[a][b], "rank %d mu %g: grid %.17g, cold cross-validation %.17g", FLCE_CV_RANKS[a],
                         FLCE_CV_MUS[b], info.cv_grid[a][b], err);
        }
}

/* The sweeps visit only the observed entries and solve four systems at a time: checked against
 * a plain dense ALS written out here (every row's normal equations over all T x n entries,
 * skipping unobserved ones, solved one at a time by Gaussian elimination): a fixed-rank fit of
 * rank 1 without balancing is not what flce_complete runs, so the check is of the fit's
 * objective: flce_complete's, at convergence, is no higher than the dense solver's after as many
 * sweeps, and both fit the observed entries to 1e-6. */
static double dense_als_rank1(const double *X, const uint8_t *obs, int T, int n, double mu, int sweeps, double *u, double *v) {
    for (int t = 0; t < T; t++) u[t] = 0.5;
    for (int k = 0; k < n; k++) v[k] = 0.5;
    for (int it = 0; it < sweeps; it++) {
        for (int t = 0; t < T; t++) {
            double a = 0.5 * mu, b = 0;
            for (int k = 0; k < n; k++)
                if (obs[t * n + k]) a += v[k] * v[k], b += X[t * n + k] * v[k];
            u[t] = b / a;
        }
        for (int k = 0; k < n; k++) {
            double a = 0.5 * mu, b = 0;
            for (int t = 0; t < T; t++)
                if (obs[t * n + k]) a += u[t] * u[t], b += X[t * n + k] * u[t];
            v[k] = b / a;
        }
    }
    double e = 0, reg = 0;
    for (int t = 0; t < T; t++)
        for (int k = 0; k < n; k++)
            if (obs[t * n + k]) e += (X[t * n + k] - u[t] * v[k]) * (X[t * n + k] - u[t] * v[k]);
    for (int t = 0; t < T; t++) reg += u[t] * u[t];
    for (int k = 0; k < n; k++) reg += v[k] * v[k];
    return e + 0.5 * mu * reg;
}

Test(completion_speed, sparse_sweeps_fit_as_a_dense_solver) {
    enum { T = 17, N = 11 }; /* odd sizes: the last block of four systems is partial */
    double X[T * N], Xh[T * N], u[T], v[N];
    uint8_t obs[T * N];
    for (int t = 0; t < T; t++)
        for (int k = 0; k < N; k++) X[t * N + k] = (0.5 + 0.05 * t) * (0.3 + 0.1 * k), obs[t * N + k] = (t * 5 + k * 3) % 4 != 0;
    flce_completion_cfg c;
    flce_completion_cfg_default(&c);
    c.rank_auto = c.mu_auto = 0, c.rank = 1, c.mu = 1e-4;
    flce_completion_info info;
    cr_assert_eq(flce_complete(X, obs, T, N, &c, 0, Xh, &info, NULL), FLCE_OK);
    double dense = dense_als_rank1(X, obs, T, N, 1e-4, 2000, u, v);
    cr_assert(info.objective <= dense * (1 + 1e-9), "flce_complete's objective %.17g above a dense solver's %.17g", info.objective, dense);
    for (int t = 0; t < T; t++)
        for (int k = 0; k < N; k++)
            if (!obs[t * N + k]) {
                NEAR(Xh[t * N + k], X[t * N + k], 1e-3); /* a rank-1 matrix: the hidden entries recovered */
                NEAR(Xh[t * N + k], u[t] * v[k], 1e-3);
            }
}

/* The same bytes for 1, 2, 3 and 5 threads: classes in flce_eval_trace, folds in flce_complete. */
Test(completion_speed, threads_give_the_same_bytes) {
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
    flce_trace tr = {T, N, C, 0, NULL, sel, NULL, NULL, Q, NULL, NULL};
    flce_ablation ab = {0};
    flce_eval_result res[3];
    int th[3] = {1, 2, 5};
    for (int i = 0; i < 3; i++) {
        flce_completion_cfg c;
        flce_completion_cfg_default(&c);
        c.threads = th[i];
        cr_assert_eq(flce_eval_trace(&tr, &ab, &c, &res[i], NULL), FLCE_OK);
    }
    for (int i = 1; i < 3; i++) {
        cr_assert_eq(memcmp(res[0].X, res[i].X, sizeof(double) * T * N * C), 0, "%d threads changed X", th[i]);
        cr_assert_eq(memcmp(res[0].CE, res[i].CE, sizeof(double) * N), 0, "%d threads changed CE", th[i]);
        cr_assert_eq(memcmp(res[0].cv_grid, res[i].cv_grid, sizeof(double) * C * FLCE_CV_NRANKS * FLCE_CV_NMUS), 0);
    }
    for (int i = 0; i < 3; i++) flce_eval_result_free(&res[i]);
    double Xc[T * N], X1[T * N], X2[T * N];
    for (int i = 0; i < T * N; i++) Xc[i] = sel[i] ? Q[i * C] : 0;
    flce_completion_cfg c;
    flce_completion_cfg_default(&c);
    c.threads = 1;
    flce_completion_info in1, in2;
    cr_assert_eq(flce_complete(Xc, sel, T, N, &c, 0, X1, &in1, NULL), FLCE_OK);
    c.threads = 3;
    cr_assert_eq(flce_complete(Xc, sel, T, N, &c, 0, X2, &in2, NULL), FLCE_OK);
    cr_assert_eq(memcmp(X1, X2, sizeof X1), 0, "folds over 3 threads changed the class's completion");
    /* a version this build does not know is refused, not computed differently */
    c.version = FLCE_COMPLETION_VERSION + 1;
    flce_err e;
    cr_assert_eq(flce_complete(Xc, sel, T, N, &c, 0, X2, &in2, &e), FLCE_ERR_ARG);
    cr_assert(strstr(e.msg, "version 2"), "%s", e.msg);
}

/* Today's completion against the code of 84a31a9 (bench/completion_before.c, dense sweeps, one
 * system and one thread at a time): the same bytes, auto and fixed, on matrices observed as
 * FLCE's Q is (a few clients a round), odd sizes included. */
#include "completion_before.h"
Test(completion_speed, same_bits_as_the_code_before) {
    int sizes[3][3] = {{30, 20, 5}, {13, 7, 3}, {41, 9, 4}}; /* T, n, selected a round */
    for (int z = 0; z < 3; z++) {
        int T = sizes[z][0], n = sizes[z][1], K = sizes[z][2];
        double X[41 * 20], Xa[41 * 20], Xb[41 * 20];
        uint8_t obs[41 * 20] = {0};
        flce_rng r;
        flce_rng_init(&r, 21 + z, FLCE_RNG_TEST, 14, 0);
        int s[20];
        for (int t = 0; t < T; t++) {
            flce_rng_sample(&r, n, K, s);
            for (int i = 0; i < K; i++) obs[t * n + s[i]] = 1;
        }
        for (int i = 0; i < T * n; i++) X[i] = obs[i] ? (1 + flce_rng_uniform(&r)) / K : 0;
        for (int mode = 0; mode < 3; mode++) {
            flce_completion_cfg c;
            flce_completion_cfg_default(&c);
            c.threads = 2;
            if (mode == 1) c.rank_auto = c.mu_auto = 0, c.rank = 0, c.mu = 1e-2; /* the rule's rank */
            if (mode == 2) c.rank_auto = 0, c.rank = 2;                          /* mu auto only */
            flce_completion_info ia, ib;
            cr_assert_eq(flce_complete(X, obs, T, n, &c, (uint32_t)z, Xa, &ia, NULL), FLCE_OK);
            cr_assert_eq(flce_complete_before(X, obs, T, n, &c, (uint32_t)z, Xb, &ib, NULL), FLCE_OK);
            cr_assert_eq(memcmp(Xa, Xb, sizeof(double) * (size_t)T * n), 0, "T %d n %d mode %d: other bits", T, n, mode);
            cr_assert_eq(memcmp(ia.cv_grid, ib.cv_grid, sizeof ia.cv_grid), 0, "T %d n %d mode %d: other grid", T, n, mode);
            cr_assert(ia.rank == ib.rank && ia.mu == ib.mu && ia.iters == ib.iters, "T %d n %d mode %d", T, n, mode);
        }
    }
}
