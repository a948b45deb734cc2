/* baselines.h: the defining rules of the baseline methods as pure functions on arrays
 * (docs/baselines.md), so that each can be tested on a tiny problem by hand and the engine's
 * method files (fl/methods/) stay thin. Model vectors are float32; scalar bookkeeping is float64. */
#ifndef FLCE_BASELINES_H
#define FLCE_BASELINES_H

#include <stddef.h>

/* FedProx / Ditto: the gradient of mu/2 |w - ref|^2 added: g[j] = g[j] + mu (w[j] - ref[j]). */
void flce_prox_grad(size_t n, float *g, const float *w, const float *ref, float mu);

/* MOON: mean over the batch of mu l_con, l_con = -log(e^(a) / (e^(a) + e^(b))),
 * a = cos(z, z_g)/tau, b = cos(z, z_prev)/tau, for z [n][d]; dz [n][d] its gradient
 * (0 for a sample with a zero vector). Returns the loss. */
double flce_moon_loss(int n, int d, const float *z, const float *zg, const float *zp, double mu, double tau, float *dz);

/* FedFV's internal projection: orig [K][S] the updates g_k = w - w_k, loss [K] the losses of
 * the received model; the ceil(alpha K) highest-loss clients keep g_k; every other g_i is
 * projected, for j over the clients in ascending loss (ties: lower index) except i, by
 * g_i <- g_i - (<g_j, g_i> / |g_j|^2) g_j where <g_j, g_i> < 0, with the original g_j.
 * g [K][S] receives the results. K <= 32. */
void flce_fedfv_project(int K, size_t S, const float *orig, const double *loss, double alpha, float *g);
/* u <- u - (<v, u> / |v|^2) v when <v, u> < 0 */
void flce_project_conflict(size_t S, float *u, const float *v);

/* CGSV, one round over K selected clients with aggregation weights [K] and reputations r [K]
 * (in/out): u_k = w_k - w, g_k = Gamma u_k / (|u_k| + 1e-7); g = sum weights_k g_k;
 * phi_k = cos(g_k, g); r_k <- alpha r_k + (1 - alpha) phi_k, at least 1e-3; w' = w + g.
 * (The caller normalises the reputations over all clients and chooses the weights.) */
int flce_cgsv_round(int K, size_t S, const float *w, const float *states, double Gamma, double alpha,
                    const double *weights, double *r, float *newg); /* 0; -1 when out of memory */

/* q-FedAvg over K clients with losses F [K] of the received model: L = 1/lr,
 * dw_k = L (w - w_k), D_k = F_k^q dw_k, h_k = q F_k^(q-1) |dw_k|^2 + L F_k^q,
 * w' = w - sum D_k / sum h_k; h [K] out; contrib_k = F_k^q / sum h. */
void flce_qfedavg_round(int K, size_t S, const float *w, const float *states, const double *F, double lr, double q,
                        float *newg, double *h, double *contrib);

/* FedFa weights: ACC_k = -log2(acc_k / sum acc + 1e-6), normalised; FR_k = -log2(1 - f_k /
 * sum f + 1e-5) with f_k the times selected so far, normalised; pi_k = (1 - beta) ACC_k +
 * beta FR_k. */
void flce_fedfa_weights(int K, const double *acc, const double *freq, double beta, double *pi); /* K <= 32 */

#endif
