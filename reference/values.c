/* values.c: contribution values from a table of coalition utilities, one function each (see
 * values.h). Plain loops over masks in ascending order, float64, no threads: the ground truth
 * that sampled and approximate contributions are checked against (issue 63). */
#include "values.h"

#include <math.h>
#include <stdlib.h>

/* "{0,2} (mask 0x5)": the coalition's players and its mask, for a message. */
static void coalition_name(uint32_t mask, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = 0;
    flce_catf(buf, cap, &len, "{");
    for (int i = 0, first = 1; i < 32; i++)
        if (mask & ((uint32_t)1 << i)) {
            flce_catf(buf, cap, &len, first ? "%d" : ",%d", i);
            first = 0;
        }
    flce_catf(buf, cap, &len, "} (mask 0x%x)", (unsigned)mask);
}

/* The grand coalition N of n players (n <= 32). */
static uint32_t grand(int n) { return n == 32 ? 0xffffffffu : ((uint32_t)1 << n) - 1; }

flce_status flce_values_check(int n, const double *v, const char *what, flce_err *e) {
    if (n < 1 || n > FLCE_VALUES_MAX_N)
        return flce_fail(e, FLCE_ERR_ARG, "%s: %d players (a full table of utilities takes 1..%d)", what, n,
                         FLCE_VALUES_MAX_N);
    if (!v) return flce_fail(e, FLCE_ERR_ARG, "%s: no table of utilities", what);
    uint32_t full = (uint32_t)1 << n;
    for (uint32_t s = 0; s < full; s++)
        if (!isfinite(v[s])) {
            char name[160];
            coalition_name(s, name, sizeof name);
            return flce_fail(e, FLCE_ERR_ARG, "%s: coalition %s: utility %g is not finite", what, name, v[s]);
        }
    return FLCE_OK;
}

/* phi_i = sum_{S not containing i} w(|S|) (v(S u {i}) - v(S)),
 * w(s) = s! (n-s-1)! / n! = 1 / (n C(n-1, s)).
 * C(n-1, s) <= C(15, 7) = 6435 is computed exactly in integers (no factorial overflows), and
 * n C(n-1, s) <= 102960 is exact in a double: each weight is one correctly rounded division. */
flce_status flce_values_shapley(int n, const double *v, double *phi, flce_err *e) {
    flce_status st = flce_values_check(n, v, "Shapley values", e);
    if (st != FLCE_OK) return st;
    double w[FLCE_VALUES_MAX_N];
    for (int s = 0; s < n; s++) {
        uint64_t binom = 1; /* C(n-1, s), built as C(n-1, j) for j = 1..s: each step exact */
        for (int j = 1; j <= s; j++) binom = binom * (uint64_t)(n - j) / (uint64_t)j;
        w[s] = 1.0 / ((double)n * (double)binom);
    }
    uint32_t full = (uint32_t)1 << n;
    for (int i = 0; i < n; i++) {
        uint32_t bit = (uint32_t)1 << i;
        double acc = 0;
        for (uint32_t s = 0; s < full; s++) {
            if (s & bit) continue;
            acc += w[__builtin_popcount(s)] * (v[s | bit] - v[s]);
        }
        phi[i] = acc;
    }
    return FLCE_OK;
}

/* beta_i = 1 / 2^(n-1) sum_{S not containing i} (v(S u {i}) - v(S)); the factor is a power of
 * two, applied once to the sum (exact unless the sum is subnormal). */
flce_status flce_values_banzhaf(int n, const double *v, double *beta, flce_err *e) {
    flce_status st = flce_values_check(n, v, "Banzhaf values", e);
    if (st != FLCE_OK) return st;
    uint32_t full = (uint32_t)1 << n;
    for (int i = 0; i < n; i++) {
        uint32_t bit = (uint32_t)1 << i;
        double acc = 0;
        for (uint32_t s = 0; s < full; s++)
            if (!(s & bit)) acc += v[s | bit] - v[s];
        beta[i] = ldexp(acc, -(n - 1));
    }
    return FLCE_OK;
}

/* loo_i = v(N) - v(N \ {i}) */
flce_status flce_values_loo(int n, const double *v, double *loo, flce_err *e) {
    flce_status st = flce_values_check(n, v, "leave-one-out values", e);
    if (st != FLCE_OK) return st;
    uint32_t all = grand(n);
    for (int i = 0; i < n; i++) loo[i] = v[all] - v[all & ~((uint32_t)1 << i)];
    return FLCE_OK;
}

/* alone_i = v({i}) - v(empty) */
flce_status flce_values_alone(int n, const double *v, double *alone, flce_err *e) {
    flce_status st = flce_values_check(n, v, "client-alone values", e);
    if (st != FLCE_OK) return st;
    for (int i = 0; i < n; i++) alone[i] = v[(uint32_t)1 << i] - v[0];
    return FLCE_OK;
}

/* ---- the partial table ---------------------------------------------------------------- */

static int cmp_mask(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* N, N \ {i}, {i} and the empty coalition, duplicates dropped (for n <= 2 some coincide). */
int flce_values_needed(int n, uint32_t *masks) {
    if (n < 1 || n > FLCE_VALUES_MAX_SPARSE) return 0;
    uint32_t all = grand(n), cand[2 * FLCE_VALUES_MAX_SPARSE + 2];
    int m = 0;
    cand[m++] = 0;
    cand[m++] = all;
    for (int i = 0; i < n; i++) {
        cand[m++] = (uint32_t)1 << i;
        cand[m++] = all & ~((uint32_t)1 << i);
    }
    qsort(cand, (size_t)m, sizeof *cand, cmp_mask);
    int k = 0;
    for (int j = 0; j < m; j++)
        if (k == 0 || cand[j] != masks[k - 1]) masks[k++] = cand[j];
    return k;
}

flce_status flce_coalitions_lookup(const flce_coalitions *t, int n, uint32_t mask, double *out, flce_err *e) {
    if (n < 1 || n > FLCE_VALUES_MAX_SPARSE)
        return flce_fail(e, FLCE_ERR_ARG, "partial table: %d players (1..%d)", n, FLCE_VALUES_MAX_SPARSE);
    char name[160];
    coalition_name(mask, name, sizeof name);
    if (mask & ~grand(n))
        return flce_fail(e, FLCE_ERR_ARG, "partial table: coalition %s has a player beyond the %d players", name, n);
    if (!t || t->count < 0 || (t->count > 0 && (!t->masks || !t->values)))
        return flce_fail(e, FLCE_ERR_ARG, "partial table: no entries given");
    int found = -1;
    for (int k = 0; k < t->count; k++) {
        if (t->masks[k] != mask) continue;
        if (found >= 0)
            return flce_fail(e, FLCE_ERR_ARG, "partial table: coalition %s is listed twice (entries %d and %d)", name,
                             found, k);
        found = k;
    }
    if (found < 0) return flce_fail(e, FLCE_ERR_ARG, "partial table: coalition %s is missing", name);
    if (!isfinite(t->values[found]))
        return flce_fail(e, FLCE_ERR_ARG, "partial table: coalition %s: utility %g is not finite", name,
                         t->values[found]);
    *out = t->values[found];
    return FLCE_OK;
}

/* loo_i = v(N) - v(N \ {i}), alone_i = v({i}) - v(empty): every needed coalition is looked up
 * (and checked) before anything is written. */
flce_status flce_values_loo_alone_sparse(int n, const flce_coalitions *t, double *loo, double *alone,
                                         flce_err *e) {
    if (n < 1 || n > FLCE_VALUES_MAX_SPARSE)
        return flce_fail(e, FLCE_ERR_ARG, "partial table: %d players (1..%d)", n, FLCE_VALUES_MAX_SPARSE);
    uint32_t all = grand(n);
    double v_all, v_empty, without[FLCE_VALUES_MAX_SPARSE], single[FLCE_VALUES_MAX_SPARSE];
    flce_status st = flce_coalitions_lookup(t, n, all, &v_all, e);
    if (st == FLCE_OK) st = flce_coalitions_lookup(t, n, 0, &v_empty, e);
    for (int i = 0; i < n && st == FLCE_OK; i++) {
        uint32_t bit = (uint32_t)1 << i;
        st = flce_coalitions_lookup(t, n, all & ~bit, &without[i], e);
        if (st == FLCE_OK) st = flce_coalitions_lookup(t, n, bit, &single[i], e);
    }
    if (st != FLCE_OK) return st;
    for (int i = 0; i < n; i++) {
        if (loo) loo[i] = v_all - without[i];
        if (alone) alone[i] = single[i] - v_empty;
    }
    return FLCE_OK;
}

flce_status flce_values_sampled(int n, const flce_coalitions *t, double *phi, double *beta, flce_err *e) {
    if (n < 1 || n > FLCE_VALUES_MAX_SPARSE)
        return flce_fail(e, FLCE_ERR_ARG, "sampled table: %d players (1..%d)", n, FLCE_VALUES_MAX_SPARSE);
    flce_status st = flce_values_loo_alone_sparse(n, t, NULL, NULL, e); /* the coalitions it must hold */
    for (int k = 0; k < t->count && st == FLCE_OK; k++) { /* each once, inside N, finite */
        double v;
        st = flce_coalitions_lookup(t, n, t->masks[k], &v, e);
    }
    if (st != FLCE_OK) return st;
    for (int i = 0; i < n; i++) {
        uint32_t bit = (uint32_t)1 << i;
        double sa[FLCE_VALUES_MAX_SPARSE + 1] = {0}, sb[FLCE_VALUES_MAX_SPARSE + 1] = {0};
        int na[FLCE_VALUES_MAX_SPARSE + 1] = {0}, nb[FLCE_VALUES_MAX_SPARSE + 1] = {0};
        for (int k = 0; k < t->count; k++) {
            int s = __builtin_popcount(t->masks[k]);
            if (t->masks[k] & bit) sa[s] += t->values[k], na[s]++;
            else sb[s] += t->values[k], nb[s]++;
        }
        double p = 0, b = 0, w = 1; /* w = C(n - 1, s - 1) / 2^(n - 1), from s = 1 */
        for (int j = 0; j < n - 1; j++) w /= 2;
        for (int s = 1; s <= n; s++) {
            if (!na[s] || !nb[s - 1])
                return flce_fail(e, FLCE_ERR_ARG, "sampled table: no coalition of size %d %s player %d",
                                 na[s] ? s - 1 : s, na[s] ? "without" : "with", i);
            double d = sa[s] / na[s] - sb[s - 1] / nb[s - 1];
            p += d, b += w * d;
            w = w * (n - s) / s;
        }
        if (phi) phi[i] = p / n;
        if (beta) beta[i] = b;
    }
    return FLCE_OK;
}

/* ---- shares --------------------------------------------------------------------------- */

/* share_i = max(0, x_i) / sum_j max(0, x_j); uniform 1/n when the sum is 0 (no x_i above 0). */
flce_status flce_values_shares(int n, const double *x, double *share, flce_err *e) {
    if (n < 1) return flce_fail(e, FLCE_ERR_ARG, "shares: %d players", n);
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return flce_fail(e, FLCE_ERR_ARG, "shares: the value of player %d is %g, not finite", i, x[i]);
    double sum = 0;
    for (int i = 0; i < n; i++) sum += x[i] > 0 ? x[i] : 0.0;
    if (!isfinite(sum)) return flce_fail(e, FLCE_ERR_NUMERIC, "shares: the sum of the positive values overflows");
    for (int i = 0; i < n; i++) share[i] = sum > 0 ? (x[i] > 0 ? x[i] : 0.0) / sum : 1.0 / n;
    return FLCE_OK;
}
