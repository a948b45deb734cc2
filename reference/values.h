/* values.h: contribution values from a table of coalition utilities, the ground truth of
 * issue 63 ("every coalition retrained"): exact Shapley, Banzhaf, leave-one-out and
 * client-alone values, and the shares a value vector gives once negatives are clamped.
 *
 * The table: n players (1..FLCE_VALUES_MAX_N), v[mask] for every mask in 0 .. 2^n - 1, where
 * bit i of mask set means player i is in the coalition S; v[0] is the empty coalition's
 * utility and v[2^n - 1] the grand coalition N's. Every function checks the whole table first
 * and refuses (FLCE_ERR_ARG, the coalition named) a utility that is NaN or infinite. The
 * sums run over masks in ascending order, one fixed order, so that every machine gives the
 * same bits. Nothing here allocates, prints or keeps state.
 *
 * The partial table (flce_coalitions): where only leave-one-out and client-alone are wanted,
 * the coalitions they need are N, N \ {i}, {i} and the empty one (at most 2n + 2 distinct
 * masks; flce_values_needed lists them), given as masks[] with values[]; a needed coalition
 * that is missing is refused by name.
 */
#ifndef FLCE_VALUES_H
#define FLCE_VALUES_H

#include <stdint.h>

#include "base.h"

#define FLCE_VALUES_MAX_N 16      /* players of a full table: 2^16 utilities */
#define FLCE_VALUES_MAX_SPARSE 32 /* players of a partial table (uint32_t masks) */

/* ---- the full table ------------------------------------------------------------------- */
/* FLCE_OK when 1 <= n <= 16 and every v[mask] is finite; otherwise FLCE_ERR_ARG naming the
 * first bad coalition ("coalition {0,2} (mask 0x5): utility nan"). what starts the message. */
flce_status flce_values_check(int n, const double *v, const char *what, flce_err *e);

/* Exact Shapley: phi_i = sum_{S not containing i} |S|! (n - |S| - 1)! / n! (v(S u {i}) - v(S)). */
flce_status flce_values_shapley(int n, const double *v, double *phi, flce_err *e);
/* Banzhaf: beta_i = 1 / 2^(n-1) sum_{S not containing i} (v(S u {i}) - v(S)). */
flce_status flce_values_banzhaf(int n, const double *v, double *beta, flce_err *e);
/* Leave-one-out: loo_i = v(N) - v(N \ {i}). */
flce_status flce_values_loo(int n, const double *v, double *loo, flce_err *e);
/* Client alone (singleton): alone_i = v({i}) - v(empty). */
flce_status flce_values_alone(int n, const double *v, double *alone, flce_err *e);

/* ---- the partial table ---------------------------------------------------------------- */
typedef struct {
    int count;             /* entries */
    const uint32_t *masks; /* [count], any order, each at most once */
    const double *values;  /* [count]: the utility of masks[k] */
} flce_coalitions;

/* The masks leave-one-out and client-alone need, distinct, ascending, into masks (room for
 * 2n + 2); returns how many (0 when n is out of 1..32). */
int flce_values_needed(int n, uint32_t *masks);
/* v(mask) from the partial table into *out. FLCE_ERR_ARG when n is out of 1..32, when mask has
 * a bit at or above n, when the coalition is missing or listed twice, or its utility is not
 * finite (each message names the coalition). */
flce_status flce_coalitions_lookup(const flce_coalitions *t, int n, uint32_t mask, double *out, flce_err *e);
/* loo_i = v(N) - v(N \ {i}) and alone_i = v({i}) - v(empty) from the partial table (either
 * output may be NULL); the same bits as flce_values_loo and flce_values_alone on a full table
 * holding the same utilities. n: 1..32. */
flce_status flce_values_loo_alone_sparse(int n, const flce_coalitions *t, double *loo, double *alone,
                                         flce_err *e);

/* Shapley and Banzhaf estimated from a partial table of sampled coalitions (flce truth
 * --coalitions sample:M), stratified by coalition size: with A(i, s) the mean utility of the
 * table's coalitions of size s that hold i and B(i, s) that of those of size s without i,
 *   phi_i  = 1/n sum_{s=1..n} (A(i, s) - B(i, s - 1)),
 *   beta_i = sum_{s=1..n} C(n - 1, s - 1) / 2^(n-1) (A(i, s) - B(i, s - 1)):
 * on a table of every coalition, exact Shapley and Banzhaf (each mean then covers its stratum
 * whole), and unbiased where each stratum's coalitions are drawn uniformly. The table needs the
 * coalitions of leave-one-out (flce_values_needed) and at least one coalition in every stratum:
 * FLCE_ERR_ARG names the first empty one. Either output may be NULL. n: 1..32; masks and values
 * as flce_coalitions_lookup checks them. Sums in the table's order. */
flce_status flce_values_sampled(int n, const flce_coalitions *t, double *phi, double *beta, flce_err *e);

/* ---- shares --------------------------------------------------------------------------- */
/* Shares from values, negatives clamped: share_i = max(0, x_i) / sum_j max(0, x_j); when no
 * x_i is above 0 (all <= 0, the sum is 0) every share is 1/n. A value that is not finite is
 * refused (FLCE_ERR_ARG, naming the player), as is n < 1. share may be x. */
flce_status flce_values_shares(int n, const double *x, double *share, flce_err *e);

#endif
