/* test_values.c: the values of a full table of coalition utilities (reference/values.h) on games
 * whose values have closed forms or are worked out by hand (the working is in each test's
 * comment), the axioms the Shapley value satisfies, the partial (leave-one-out and alone) table,
 * the shares, and the refusals. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flce_eq.h"
#include "testutil.h"
#include "values.h"

#define NEAR(a, b, tol) cr_assert(fabs((a) - (b)) <= (tol), "%s = %.17g, expected %.17g", #a, (double)(a), (double)(b))

/* A table of 2^n utilities, v(S) = game(S). */
static double *table(int n, double (*game)(uint32_t s, const void *ctx), const void *ctx) {
    uint32_t full = (uint32_t)1 << n;
    double *v = malloc((size_t)full * sizeof *v);
    cr_assert(v);
    for (uint32_t s = 0; s < full; s++) v[s] = game(s, ctx);
    return v;
}

/* A random table: utilities uniform on [-1, 1), seeded. */
static double *random_table(int n, uint64_t seed) {
    uint32_t full = (uint32_t)1 << n;
    double *v = malloc((size_t)full * sizeof *v);
    cr_assert(v);
    flce_rng r;
    flce_rng_init(&r, seed, FLCE_RNG_TEST, 63, 0);
    for (uint32_t s = 0; s < full; s++) v[s] = 2 * flce_rng_uniform(&r) - 1;
    return v;
}

/* All four values of a table. */
typedef struct {
    double shapley[FLCE_VALUES_MAX_N], banzhaf[FLCE_VALUES_MAX_N], loo[FLCE_VALUES_MAX_N],
        alone[FLCE_VALUES_MAX_N];
} values4;

static void all_values(int n, const double *v, values4 *out) {
    flce_err e = {{0}};
    cr_assert_eq(flce_values_shapley(n, v, out->shapley, &e), FLCE_OK, "%s", e.msg);
    cr_assert_eq(flce_values_banzhaf(n, v, out->banzhaf, &e), FLCE_OK, "%s", e.msg);
    cr_assert_eq(flce_values_loo(n, v, out->loo, &e), FLCE_OK, "%s", e.msg);
    cr_assert_eq(flce_values_alone(n, v, out->alone, &e), FLCE_OK, "%s", e.msg);
}

/* ---- games with closed forms ---------------------------------------------------------- */

/* additive: v(S) = sum_{i in S} w_i */
static double additive(uint32_t s, const void *ctx) {
    const double *w = ctx;
    double x = 0;
    for (int i = 0; i < 32; i++)
        if (s & ((uint32_t)1 << i)) x += w[i];
    return x;
}

Test(values, additive_game) {
    /* every marginal of i is w_i, so Shapley = Banzhaf = LOO = alone = w_i (the weights are
     * dyadic, so every sum and difference is exact: Banzhaf, LOO and alone exactly; Shapley
     * up to its weights' rounding, which sum to 1) */
    double w[6] = {0.5, -1.25, 3, 2.75, 0, -0.125};
    double *v = table(6, additive, w);
    values4 x;
    all_values(6, v, &x);
    for (int i = 0; i < 6; i++) {
        NEAR(x.shapley[i], w[i], 1e-14);
        NEAR(x.banzhaf[i], w[i], 0);
        NEAR(x.loo[i], w[i], 0);
        NEAR(x.alone[i], w[i], 0);
    }
    free(v);
}

/* glove game: players 0..L-1 hold a left glove, L..L+R-1 a right one; v(S) = pairs in S */
typedef struct {
    int L, R;
} gloves;
static double glove(uint32_t s, const void *ctx) {
    const gloves *g = ctx;
    int l = 0, r = 0;
    for (int i = 0; i < g->L + g->R; i++)
        if (s & ((uint32_t)1 << i)) *(i < g->L ? &l : &r) += 1;
    return l < r ? l : r;
}

/* the values both the glove game (1 left, 2 right) and [3; 2, 1, 1] have, worked out in each test's comment */
static void expect_two_one_one(const double *v) {
    values4 x;
    all_values(3, v, &x);
    double sh[3] = {2.0 / 3, 1.0 / 6, 1.0 / 6}, bz[3] = {0.75, 0.25, 0.25}, loo[3] = {1, 0, 0};
    for (int i = 0; i < 3; i++) {
        NEAR(x.shapley[i], sh[i], 1e-15);
        NEAR(x.banzhaf[i], bz[i], 0);
        NEAR(x.loo[i], loo[i], 0);
        NEAR(x.alone[i], 0, 0);
    }
}

Test(values, glove_game_one_left_two_right) {
    /* players 0 (left), 1, 2 (right). v = 1 exactly on {0,1}, {0,2}, {0,1,2}.
     * Shapley: of the 6 orders, 0 is pivotal when it comes after at least one right glove (4
     * orders: 2/3); 1 is pivotal only in the order (0, 1, 2): 1/6; 2 likewise 1/6.
     * Banzhaf: 0's marginals over S in {}, {1}, {2}, {1,2}: 0, 1, 1, 1 -> 3/4; 1's over {}, {0},
     * {2}, {0,2}: 0, 1, 0, 0 -> 1/4; 2: 1/4.
     * LOO: v(N) = 1, v({1,2}) = 0, v({0,2}) = v({0,1}) = 1 -> (1, 0, 0). Alone: one glove is no
     * pair -> (0, 0, 0). */
    gloves g = {1, 2};
    double *v = table(3, glove, &g);
    expect_two_one_one(v);
    free(v);
}

/* weighted majority voting [q; w_1..w_n]: v(S) = 1 when sum_{i in S} w_i >= q, else 0 */
typedef struct {
    double q;
    double w[8];
} voting;
static double vote(uint32_t s, const void *ctx) {
    const voting *g = ctx;
    double sum = 0;
    for (int i = 0; i < 8; i++)
        if (s & ((uint32_t)1 << i)) sum += g->w[i];
    return sum >= g->q ? 1 : 0;
}

Test(values, weighted_voting_3_2_1_1) {
    /* [3; 2, 1, 1]: the winning coalitions are {0,1}, {0,2}, {0,1,2}: the glove game above.
     * Shapley (2/3, 1/6, 1/6), Banzhaf (3/4, 1/4, 1/4); LOO: v({1,2}) = 0 (weight 2 < 3) -> 1 for
     * player 0, v({0,2}) = v({0,1}) = 1 -> 0 for the others; alone: no one wins alone -> 0. */
    voting g = {3, {2, 1, 1}};
    double *v = table(3, vote, &g);
    expect_two_one_one(v);
    free(v);
}

Test(values, simple_majority_of_three) {
    /* [2; 1, 1, 1]: symmetric, so Shapley 1/3 each (efficiency: v(N) = 1). Banzhaf: i is pivotal
     * exactly when one of the two others is in S: 2 of the 4 S -> 1/2. LOO: two still win -> 0. */
    voting g = {2, {1, 1, 1}};
    double *v = table(3, vote, &g);
    values4 x;
    all_values(3, v, &x);
    for (int i = 0; i < 3; i++) {
        NEAR(x.shapley[i], 1.0 / 3, 1e-15);
        NEAR(x.banzhaf[i], 0.5, 0);
        NEAR(x.loo[i], 0, 0);
        NEAR(x.alone[i], 0, 0);
    }
    free(v);
}

/* airport game, cost form: v(S) = max_{i in S} c_i (v(empty) = 0), costs ascending; values are
 * cost shares (positive). Littlechild-Owen: phi_i = sum_{k <= i} (c_k - c_{k-1}) / (n - k + 1)
 * with c_0 = 0 (players counted from 1 in the formula, from 0 in the code). */
typedef struct {
    int n;
    double c[16];
} airport;
static double runway(uint32_t s, const void *ctx) {
    const airport *a = ctx;
    double m = 0;
    for (int i = 0; i < a->n; i++)
        if ((s & ((uint32_t)1 << i)) && a->c[i] > m) m = a->c[i];
    return m;
}
static void littlechild_owen(const airport *a, double *phi) {
    double acc = 0, prev = 0;
    for (int k = 0; k < a->n; k++) { /* code's k = formula's k - 1: n - k players need segment k */
        acc += (a->c[k] - prev) / (a->n - k);
        prev = a->c[k];
        phi[k] = acc;
    }
}

Test(values, airport_game_by_hand) {
    /* c = (1, 3, 6, 10). Shapley: 1/4; 1/4 + 2/3 = 11/12; 11/12 + 3/2 = 29/12; 29/12 + 4 = 77/12
     * (sum 120/12 = 10 = v(N)). Banzhaf: i's marginal over S of the others is c_i - max(S) when
     * every member of S costs less, else 0: player 1: S = {} -> 1, /8; player 2: {} 3, {1} 2 ->
     * 5/8; player 3: {} 6, {1} 5, {2} 3, {1,2} 3 -> 17/8; player 4: 10+9+7+7+4+4+4+4 = 49 -> 49/8.
     * LOO: only the largest airport changes the runway: (0, 0, 0, 10 - 6 = 4). Alone: c_i. */
    airport a = {4, {1, 3, 6, 10}};
    double *v = table(4, runway, &a);
    values4 x;
    all_values(4, v, &x);
    double sh[4] = {1.0 / 4, 11.0 / 12, 29.0 / 12, 77.0 / 12}, bz[4] = {1.0 / 8, 5.0 / 8, 17.0 / 8, 49.0 / 8};
    double loo[4] = {0, 0, 0, 4};
    for (int i = 0; i < 4; i++) {
        NEAR(x.shapley[i], sh[i], 1e-14);
        NEAR(x.banzhaf[i], bz[i], 0);
        NEAR(x.loo[i], loo[i], 0);
        NEAR(x.alone[i], a.c[i], 0);
    }
    free(v);
}

Test(values, airport_game_closed_form) {
    /* 12 players, random ascending costs (ties included): Shapley = Littlechild-Owen */
    airport a = {12, {0}};
    flce_rng r;
    flce_rng_init(&r, 7, FLCE_RNG_TEST, 63, 1);
    for (int i = 0; i < a.n; i++) a.c[i] = (i ? a.c[i - 1] : 0) + (i == 5 ? 0 : flce_rng_uniform(&r));
    double *v = table(a.n, runway, &a), phi[12], lo[12];
    flce_err e = {{0}};
    cr_assert_eq(flce_values_shapley(a.n, v, phi, &e), FLCE_OK, "%s", e.msg);
    littlechild_owen(&a, lo);
    for (int i = 0; i < a.n; i++) NEAR(phi[i], lo[i], 1e-12);
    free(v);
}

/* unanimity game u_T: v(S) = 1 when T is inside S, else 0 */
static double unanimity(uint32_t s, const void *ctx) {
    uint32_t T = *(const uint32_t *)ctx;
    return (s & T) == T ? 1 : 0;
}

Test(values, sixteen_players_unanimity) {
    /* n = 16, T = {1, 4, 7, 9, 15}: Shapley 1/|T| = 1/5 on T (symmetric, efficient), 0 off it
     * (dummies). Banzhaf: i in T is pivotal exactly when S holds T \ {i}: 2^(16-5) of the 2^15
     * S -> 1/2^4 = 1/16. LOO: 1 on T, 0 off it. Alone: 0 (|T| > 1). */
    uint32_t T = (1u << 1) | (1u << 4) | (1u << 7) | (1u << 9) | (1u << 15);
    double *v = table(16, unanimity, &T);
    values4 x;
    all_values(16, v, &x);
    for (int i = 0; i < 16; i++) {
        int in = (T >> i) & 1;
        cr_assert(isfinite(x.shapley[i]) && isfinite(x.banzhaf[i]));
        NEAR(x.shapley[i], in ? 0.2 : 0, 1e-14);
        NEAR(x.banzhaf[i], in ? 1.0 / 16 : 0, 0);
        NEAR(x.loo[i], in ? 1 : 0, 0);
        NEAR(x.alone[i], 0, 0);
    }
    free(v);
}

/* ---- the axioms, on random tables ----------------------------------------------------- */

Test(values, efficiency_random_tables) {
    /* sum_i phi_i = v(N) - v(empty), for n = 1..10 and n = 16 */
    int ns[11] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16};
    for (int k = 0; k < 11; k++) {
        int n = ns[k];
        double *v = random_table(n, 100 + n), phi[16], sum = 0;
        flce_err e = {{0}};
        cr_assert_eq(flce_values_shapley(n, v, phi, &e), FLCE_OK, "%s", e.msg);
        for (int i = 0; i < n; i++) {
            cr_assert(isfinite(phi[i]));
            sum += phi[i];
        }
        NEAR(sum, v[((uint32_t)1 << n) - 1] - v[0], 1e-11);
        free(v);
    }
}

Test(values, one_player) {
    /* n = 1: every value is v({0}) - v(empty) */
    double v[2] = {0.25, 2}, x[1];
    flce_err e = {{0}};
    cr_assert_eq(flce_values_shapley(1, v, x, &e), FLCE_OK, "%s", e.msg);
    NEAR(x[0], 1.75, 0);
    cr_assert_eq(flce_values_banzhaf(1, v, x, &e), FLCE_OK, "%s", e.msg);
    NEAR(x[0], 1.75, 0);
    cr_assert_eq(flce_values_loo(1, v, x, &e), FLCE_OK, "%s", e.msg);
    NEAR(x[0], 1.75, 0);
    cr_assert_eq(flce_values_alone(1, v, x, &e), FLCE_OK, "%s", e.msg);
    NEAR(x[0], 1.75, 0);
}

/* S with the bits of players a and b exchanged */
static uint32_t swap_players(uint32_t s, int a, int b) {
    uint32_t ba = (s >> a) & 1, bb = (s >> b) & 1;
    s &= ~((1u << a) | (1u << b));
    return s | (ba << b) | (bb << a);
}

Test(values, symmetry) {
    /* v(S) = r(S) + r(swap_{2,5}(S)) is unchanged when players 2 and 5 are exchanged, so they
     * have the same marginal to every S holding neither: equal Shapley and Banzhaf values */
    int n = 7;
    double *r = random_table(n, 5), *v = malloc(((size_t)1 << n) * sizeof *v);
    cr_assert(v);
    for (uint32_t s = 0; s < (1u << n); s++) v[s] = r[s] + r[swap_players(s, 2, 5)];
    values4 x;
    all_values(n, v, &x);
    NEAR(x.shapley[2], x.shapley[5], 1e-13);
    NEAR(x.banzhaf[2], x.banzhaf[5], 1e-13);
    NEAR(x.loo[2], x.loo[5], 0);
    NEAR(x.alone[2], x.alone[5], 0);
    free(r), free(v);
}

Test(values, dummy_player) {
    /* v(S) = r(S without player 3): player 3's every marginal is exactly 0 -> 0 for every value */
    int n = 6;
    double *r = random_table(n, 9), *v = malloc(((size_t)1 << n) * sizeof *v);
    cr_assert(v);
    for (uint32_t s = 0; s < (1u << n); s++) v[s] = r[s & ~(1u << 3)];
    values4 x;
    all_values(n, v, &x);
    NEAR(x.shapley[3], 0, 0);
    NEAR(x.banzhaf[3], 0, 0);
    NEAR(x.loo[3], 0, 0);
    NEAR(x.alone[3], 0, 0);
    free(r), free(v);
}

static double from_table(uint32_t s, void *ctx) { return ((const double *)ctx)[s]; }

Test(values, the_callback_shapley_agrees) {
    /* the same game through flce_shapley_exact (reference/shapley.c, its own weights) */
    int n = 9;
    double *v = random_table(n, 11), a[9], b[9];
    flce_err e = {{0}};
    cr_assert_eq(flce_values_shapley(n, v, a, &e), FLCE_OK, "%s", e.msg);
    cr_assert_eq(flce_shapley_exact(n, from_table, v, b, &e), FLCE_OK, "%s", e.msg);
    for (int i = 0; i < n; i++) NEAR(a[i], b[i], 1e-13);
    free(v);
}

Test(values, deterministic) {
    /* the same table twice: the same bits */
    int n = 12;
    double *v = random_table(n, 3), a[12], b[12];
    flce_err e = {{0}};
    cr_assert_eq(flce_values_shapley(n, v, a, &e), FLCE_OK);
    cr_assert_eq(flce_values_shapley(n, v, b, &e), FLCE_OK);
    cr_assert_eq(memcmp(a, b, sizeof a), 0);
    free(v);
}

/* ---- refusals ------------------------------------------------------------------------- */

Test(values, refuses_player_counts) {
    double v[4] = {0, 1, 1, 2}, x[17];
    flce_err e = {{0}};
    cr_assert_eq(flce_values_shapley(17, v, x, &e), FLCE_ERR_ARG); /* checked before the table is read */
    cr_assert(strstr(e.msg, "Shapley values: 17 players"), "%s", e.msg);
    cr_assert(strstr(e.msg, "1..16"), "%s", e.msg);
    cr_assert_eq(flce_values_banzhaf(0, v, x, &e), FLCE_ERR_ARG);
    cr_assert(strstr(e.msg, "Banzhaf values: 0 players"), "%s", e.msg);
    cr_assert_eq(flce_values_loo(-1, v, x, &e), FLCE_ERR_ARG);
    cr_assert_eq(flce_values_alone(17, v, x, &e), FLCE_ERR_ARG);
    cr_assert_eq(flce_values_shapley(2, NULL, x, &e), FLCE_ERR_ARG);
}

Test(values, refuses_a_non_finite_utility) {
    double v[16], x[4];
    for (int s = 0; s < 16; s++) v[s] = s;
    v[5] = NAN;
    flce_err e = {{0}};
    cr_assert_eq(flce_values_shapley(4, v, x, &e), FLCE_ERR_ARG);
    cr_assert(strstr(e.msg, "coalition {0,2} (mask 0x5)"), "%s", e.msg);
    cr_assert(strstr(e.msg, "not finite"), "%s", e.msg);
    /* every value refuses the whole table, not only the entries it reads */
    cr_assert_eq(flce_values_loo(4, v, x, &e), FLCE_ERR_ARG);
    cr_assert(strstr(e.msg, "leave-one-out values: coalition {0,2} (mask 0x5)"), "%s", e.msg);
    v[5] = 5;
    v[0] = -INFINITY;
    cr_assert_eq(flce_values_banzhaf(4, v, x, &e), FLCE_ERR_ARG);
    cr_assert(strstr(e.msg, "coalition {} (mask 0x0)"), "%s", e.msg);
    v[0] = 0;
    v[15] = INFINITY;
    cr_assert_eq(flce_values_alone(4, v, x, &e), FLCE_ERR_ARG);
    cr_assert(strstr(e.msg, "coalition {0,1,2,3} (mask 0xf)"), "%s", e.msg);
}

/* ---- the partial table ---------------------------------------------------------------- */

Test(partial, the_needed_coalitions) {
    /* n = 1: {} and {0}; n = 2: {}, {0}, {1}, {0,1} (N \ {0} = {1}); n >= 3: 2n + 2, distinct */
    uint32_t m[2 * FLCE_VALUES_MAX_SPARSE + 2];
    cr_assert_eq(flce_values_needed(1, m), 2);
    cr_assert(m[0] == 0 && m[1] == 1);
    cr_assert_eq(flce_values_needed(2, m), 4);
    cr_assert(m[0] == 0 && m[1] == 1 && m[2] == 2 && m[3] == 3);
    cr_assert_eq(flce_values_needed(3, m), 8); /* every coalition of 3 players */
    cr_assert_eq(flce_values_needed(4, m), 10);
    uint32_t want4[10] = {0x0, 0x1, 0x2, 0x4, 0x7, 0x8, 0xb, 0xd, 0xe, 0xf};
    cr_assert_eq(memcmp(m, want4, sizeof want4), 0);
    cr_assert_eq(flce_values_needed(32, m), 66);
    cr_assert_eq(m[65], 0xffffffffu);
    cr_assert_eq(flce_values_needed(0, m), 0);
    cr_assert_eq(flce_values_needed(33, m), 0);
}

Test(partial, equals_the_full_table) {
    /* the needed coalitions of a random table, listed in descending order: the same bits */
    for (int n = 1; n <= 8; n++) {
        double *v = random_table(n, 40 + n), loo[8], alone[8], ploo[8], palone[8];
        uint32_t need[18], masks[18];
        double vals[18];
        int k = flce_values_needed(n, need);
        for (int j = 0; j < k; j++) masks[j] = need[k - 1 - j], vals[j] = v[masks[j]];
        flce_coalitions t = {k, masks, vals};
        flce_err e = {{0}};
        cr_assert_eq(flce_values_loo(n, v, loo, &e), FLCE_OK);
        cr_assert_eq(flce_values_alone(n, v, alone, &e), FLCE_OK);
        cr_assert_eq(flce_values_loo_alone_sparse(n, &t, ploo, palone, &e), FLCE_OK, "%s", e.msg);
        cr_assert_eq(memcmp(loo, ploo, (size_t)n * sizeof *loo), 0, "n = %d", n);
        cr_assert_eq(memcmp(alone, palone, (size_t)n * sizeof *alone), 0, "n = %d", n);
        cr_assert_eq(flce_values_loo_alone_sparse(n, &t, NULL, palone, &e), FLCE_OK); /* one output */
        free(v);
    }
}

Test(partial, twenty_players_additive) {
    /* beyond a full table's 16 players: additive, dyadic weights -> LOO = alone = w_i exactly */
    int n = 20;
    double w[20], vals[42], loo[20], alone[20];
    for (int i = 0; i < n; i++) w[i] = (i % 5 - 2) * 0.25;
    uint32_t masks[42];
    int k = flce_values_needed(n, masks);
    cr_assert_eq(k, 42);
    for (int j = 0; j < k; j++) vals[j] = additive(masks[j], w);
    flce_coalitions t = {k, masks, vals};
    flce_err e = {{0}};
    cr_assert_eq(flce_values_loo_alone_sparse(n, &t, loo, alone, &e), FLCE_OK, "%s", e.msg);
    for (int i = 0; i < n; i++) {
        NEAR(loo[i], w[i], 0);
        NEAR(alone[i], w[i], 0);
    }
}

Test(partial, refuses_a_missing_coalition) {
    /* n = 5 without N \ {3} = {0,1,2,4} = 0x17: refused by name, nothing written */
    int n = 5;
    double *v = random_table(n, 77), vals[12], loo[5] = {9, 9, 9, 9, 9};
    uint32_t need[12], masks[12];
    int k = flce_values_needed(n, need), m = 0;
    cr_assert_eq(k, 12);
    for (int j = 0; j < k; j++)
        if (need[j] != 0x17) masks[m] = need[j], vals[m] = v[need[j]], m++;
    cr_assert_eq(m, 11);
    flce_coalitions t = {m, masks, vals};
    flce_err e = {{0}};
    cr_assert_eq(flce_values_loo_alone_sparse(n, &t, loo, NULL, &e), FLCE_ERR_ARG);
    cr_assert(strstr(e.msg, "coalition {0,1,2,4} (mask 0x17) is missing"), "%s", e.msg);
    for (int i = 0; i < n; i++) cr_assert_eq(loo[i], 9.0);
    flce_coalitions none = {0, NULL, NULL};
    cr_assert_eq(flce_values_loo_alone_sparse(n, &none, loo, NULL, &e), FLCE_ERR_ARG);
    cr_assert(strstr(e.msg, "(mask 0x1f) is missing"), "%s", e.msg);
    free(v);
}

Test(partial, refuses_duplicates_bad_masks_and_non_finite) {
    uint32_t masks[4] = {0, 1, 2, 3};
    double vals[4] = {0, 1, 2, 3}, x;
    flce_coalitions t = {4, masks, vals};
    flce_err e = {{0}};
    cr_assert_eq(flce_coalitions_lookup(&t, 2, 3, &x, &e), FLCE_OK, "%s", e.msg);
    NEAR(x, 3, 0);
    cr_assert_eq(flce_coalitions_lookup(&t, 2, 4, &x, &e), FLCE_ERR_ARG); /* player 2 of 2 */
    cr_assert(strstr(e.msg, "{2} (mask 0x4) has a player beyond the 2 players"), "%s", e.msg);
    cr_assert_eq(flce_coalitions_lookup(&t, 33, 0, &x, &e), FLCE_ERR_ARG);
    cr_assert(strstr(e.msg, "33 players"), "%s", e.msg);
    masks[2] = 1; /* {0} twice, {1} missing */
    cr_assert_eq(flce_coalitions_lookup(&t, 2, 1, &x, &e), FLCE_ERR_ARG);
    cr_assert(strstr(e.msg, "{0} (mask 0x1) is listed twice (entries 1 and 2)"), "%s", e.msg);
    masks[2] = 2;
    vals[1] = NAN;
    double loo[2], alone[2];
    cr_assert_eq(flce_values_loo_alone_sparse(2, &t, loo, alone, &e), FLCE_ERR_ARG);
    cr_assert(strstr(e.msg, "coalition {0} (mask 0x1): utility nan is not finite"), "%s", e.msg);
    cr_assert_eq(flce_values_loo_alone_sparse(0, &t, loo, alone, &e), FLCE_ERR_ARG);
}

/* ---- shares --------------------------------------------------------------------------- */

Test(shares, negatives_clamped) {
    /* (3, -1, 1, 0): clamped (3, 0, 1, 0), sum 4 -> (3/4, 0, 1/4, 0) */
    double x[4] = {3, -1, 1, 0}, s[4];
    flce_err e = {{0}};
    cr_assert_eq(flce_values_shares(4, x, s, &e), FLCE_OK, "%s", e.msg);
    NEAR(s[0], 0.75, 0);
    NEAR(s[1], 0, 0);
    NEAR(s[2], 0.25, 0);
    NEAR(s[3], 0, 0);
    /* in place: the same */
    cr_assert_eq(flce_values_shares(4, x, x, &e), FLCE_OK);
    cr_assert_eq(memcmp(x, s, sizeof s), 0);
}

Test(shares, uniform_when_none_is_positive) {
    /* (-1, 0, -2): nothing above 0 -> 1/3 each; the glove game's alone values (all 0) likewise */
    double x[3] = {-1, 0, -2}, s[3];
    flce_err e = {{0}};
    cr_assert_eq(flce_values_shares(3, x, s, &e), FLCE_OK, "%s", e.msg);
    for (int i = 0; i < 3; i++) NEAR(s[i], 1.0 / 3, 0);
}

Test(shares, refusals) {
    double x[3] = {1, NAN, 2}, s[3], big[2] = {1e308, 1e308};
    flce_err e = {{0}};
    cr_assert_eq(flce_values_shares(3, x, s, &e), FLCE_ERR_ARG);
    cr_assert(strstr(e.msg, "player 1"), "%s", e.msg);
    cr_assert_eq(flce_values_shares(0, x, s, &e), FLCE_ERR_ARG);
    cr_assert_eq(flce_values_shares(2, big, s, &e), FLCE_ERR_NUMERIC);
    cr_assert(strstr(e.msg, "overflows"), "%s", e.msg);
}

Test(sampled, every_coalition_gives_the_exact_values) {
    /* a table of every coalition, listed in descending order: the stratified estimators are exact Shapley and Banzhaf */
    for (int n = 1; n <= 10; n++) {
        double *v = random_table(n, 70 + n), phi[10], beta[10], sphi[10], sbeta[10];
        uint32_t N = (uint32_t)1 << n, *masks = malloc(sizeof *masks * N);
        double *vals = malloc(sizeof *vals * N);
        for (uint32_t j = 0; j < N; j++) masks[j] = N - 1 - j, vals[j] = v[N - 1 - j];
        flce_coalitions t = {(int)N, masks, vals};
        flce_err e = {{0}};
        cr_assert_eq(flce_values_shapley(n, v, phi, &e), FLCE_OK);
        cr_assert_eq(flce_values_banzhaf(n, v, beta, &e), FLCE_OK);
        cr_assert_eq(flce_values_sampled(n, &t, sphi, sbeta, &e), FLCE_OK, "%s", e.msg);
        for (int i = 0; i < n; i++) {
            cr_assert(fabs(sphi[i] - phi[i]) <= 1e-12 * (1 + fabs(phi[i])), "n %d player %d: %.17g against %.17g", n, i, sphi[i], phi[i]);
            cr_assert(fabs(sbeta[i] - beta[i]) <= 1e-12 * (1 + fabs(beta[i])), "n %d player %d: %.17g against %.17g", n, i, sbeta[i], beta[i]);
        }
        free(v), free(masks), free(vals);
    }
}

Test(sampled, additive_four_players_by_hand) {
    /* v(S) = sum of w = (1, 2, 3, 4); the coalitions of leave-one-out and {0,1}, {2,3}. Player 0:
     * sizes 1..4 give v{0} - v{} = 1, v{0,1} - mean(v{1}, v{2}, v{3}) = 3 - 3 = 0, mean(6, 7, 8) -
     * v{2,3} = 7 - 7 = 0, v(N) - v{1,2,3} = 1: phi = 2/4 = 0.5, beta = (1 + 1) / 8 = 0.25. Player 3:
     * 4, 7 - 2 = 5, 8 - 3 = 5, 10 - 6 = 4: phi = 18/4 = 4.5, beta = (4 + 15 + 15 + 4) / 8 = 4.75.
     * Without {2,3}, no coalition of size 2 is without player 0 (the first player checked): refused. */
    uint32_t m[12];
    double val[12];
    int k = flce_values_needed(4, m);
    m[k++] = 0x3, m[k++] = 0xc;
    for (int j = 0; j < k; j++) {
        val[j] = 0;
        for (int i = 0; i < 4; i++)
            if (m[j] >> i & 1) val[j] += i + 1;
    }
    flce_coalitions t = {k, m, val};
    double phi[4], beta[4];
    flce_err e = {{0}};
    cr_assert_eq(flce_values_sampled(4, &t, phi, beta, &e), FLCE_OK, "%s", e.msg);
    cr_assert(fabs(phi[0] - 0.5) < 1e-15 && fabs(beta[0] - 0.25) < 1e-15, "player 0: %.17g, %.17g", phi[0], beta[0]);
    cr_assert(fabs(phi[3] - 4.5) < 1e-15 && fabs(beta[3] - 4.75) < 1e-15, "player 3: %.17g, %.17g", phi[3], beta[3]);
    t.count = k - 1;
    cr_assert_eq(flce_values_sampled(4, &t, phi, beta, &e), FLCE_ERR_ARG);
    cr_assert(strstr(e.msg, "no coalition of size 2 without player 0"), "%s", e.msg);
}
