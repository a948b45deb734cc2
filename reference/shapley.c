/* shapley.c: Shapley values over a utility callback: exact (every coalition once) and
 * Monte-Carlo permutation sampling with truncation. The utility is whatever the caller
 * defines (FedSV: validation accuracy of the coalition's aggregated model). */
#include <math.h>
#include <stdlib.h>

#include "flce_eq.h"

/* phi_i = sum_{S not containing i} |S|! (n-|S|-1)! / n! (v(S + i) - v(S)) */
flce_status flce_shapley_exact(int n, flce_utility_fn v, void *ctx, double *phi, flce_err *e) {
    if (n < 1 || n > 20) return flce_fail(e, FLCE_ERR_ARG, "exact Shapley: %d players (1..20)", n);
    uint32_t full = (uint32_t)1 << n;
    double *val = malloc((size_t)full * sizeof *val);
    if (!val) return flce_fail(e, FLCE_ERR_NOMEM, "exact Shapley: out of memory for 2^%d values", n);
    for (uint32_t s = 0; s < full; s++) val[s] = v(s, ctx);
    double w[21]; /* w[s] = s! (n-s-1)! / n! = 1 / (n C(n-1, s)) */
    for (int s = 0; s < n; s++) {
        double binom = 1;
        for (int j = 1; j <= s; j++) binom = binom * (n - 1 - s + j) / j;
        w[s] = 1.0 / (n * binom);
    }
    for (int i = 0; i < n; i++) {
        uint32_t bit = (uint32_t)1 << i;
        double acc = 0;
        for (uint32_t s = 0; s < full; s++) {
            if (s & bit) continue;
            acc += w[__builtin_popcount(s)] * (val[s | bit] - val[s]);
        }
        phi[i] = acc;
    }
    free(val);
    return FLCE_OK;
}

flce_status flce_shapley_mc(int n, flce_utility_fn v, void *ctx, int perms, double eps, uint64_t seed,
                            uint32_t round, double *phi, int64_t *calls, flce_err *e) {
    if (n < 1 || n > 32) return flce_fail(e, FLCE_ERR_ARG, "Monte-Carlo Shapley: %d players (1..32)", n);
    if (perms < 1) return flce_fail(e, FLCE_ERR_ARG, "Monte-Carlo Shapley: %d permutations", perms);
    int *p = malloc((size_t)n * sizeof *p);
    if (!p) return flce_fail(e, FLCE_ERR_NOMEM, "Monte-Carlo Shapley: out of memory");
    uint32_t all = n == 32 ? 0xffffffffu : (((uint32_t)1 << n) - 1);
    double v_empty = v(0, ctx), v_all = v(all, ctx);
    int64_t nc = 2;
    for (int i = 0; i < n; i++) phi[i] = 0;
    flce_rng r;
    flce_rng_init(&r, seed, FLCE_RNG_SHAPLEY, round, 0);
    for (int m = 0; m < perms; m++) {
        flce_rng_permutation(&r, n, p);
        uint32_t s = 0;
        double prev = v_empty;
        for (int j = 0; j < n; j++) {
            if (eps > 0 && fabs(v_all - prev) < eps) break; /* truncation: the rest add ~0 */
            s |= (uint32_t)1 << p[j];
            double cur = j == n - 1 ? v_all : v(s, ctx);
            nc += j != n - 1;
            phi[p[j]] += cur - prev;
            prev = cur;
        }
    }
    for (int i = 0; i < n; i++) phi[i] /= perms;
    if (calls) *calls = nc;
    free(p);
    return FLCE_OK;
}
