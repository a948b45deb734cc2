/* flce_eq.c: the FLCE equations, one function each (see flce_eq.h and docs/flce.md).
 * Plain loops in a fixed order, float64, no threads: the oracle that the engine and
 * `flce eval` call and that everything else is checked against. */
#include "flce_eq.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* eq:method.losscl */
double flce_supcon_loss(const double *z, const int *y, int N, int d, double tau, double *grad) {
    double *zn = flce_calloc((size_t)N * d, sizeof *zn), *nrm = flce_calloc((size_t)N, sizeof *nrm);
    double *gn = flce_calloc((size_t)N * d, sizeof *gn), *sim = flce_calloc((size_t)N, sizeof *sim);
    if (grad) memset(grad, 0, (size_t)N * d * sizeof *grad);
    if (!zn || !nrm || !gn || !sim) {
        free(zn), free(nrm), free(gn), free(sim);
        return NAN;
    }
    for (int i = 0; i < N; i++) { /* L2 normalisation; a zero vector stays 0 */
        double s = 0;
        for (int j = 0; j < d; j++) s += z[i * d + j] * z[i * d + j];
        nrm[i] = sqrt(s);
        for (int j = 0; j < d; j++) zn[i * d + j] = nrm[i] > 0 ? z[i * d + j] / nrm[i] : 0.0;
    }
    int anchors = 0;
    for (int i = 0; i < N; i++) {
        int P = 0;
        for (int j = 0; j < N; j++) P += j != i && y[j] == y[i];
        anchors += P > 0;
    }
    double loss = 0;
    for (int i = 0; i < N && anchors > 0; i++) {
        int P = 0;
        for (int j = 0; j < N; j++) P += j != i && y[j] == y[i];
        if (P == 0) continue;
        double mx = -INFINITY;
        for (int k = 0; k < N; k++) {
            if (k == i) continue;
            double s = 0;
            for (int j = 0; j < d; j++) s += zn[i * d + j] * zn[k * d + j];
            sim[k] = s / tau;
            if (sim[k] > mx) mx = sim[k];
        }
        double den = 0;
        for (int k = 0; k < N; k++)
            if (k != i) den += flce_dexp(sim[k] - mx);
        double lse = mx + flce_dlog(den), li = 0;
        for (int j = 0; j < N; j++)
            if (j != i && y[j] == y[i]) li += -(sim[j] - lse) / P;
        loss += li / anchors;
        if (!grad) continue;
        for (int k = 0; k < N; k++) { /* dL/dsim_ik = (softmax_ik - [k positive]/P) / A */
            if (k == i) continue;
            double c = (flce_dexp(sim[k] - lse) - (y[k] == y[i] ? 1.0 / P : 0.0)) / anchors / tau;
            for (int j = 0; j < d; j++) {
                gn[i * d + j] += c * zn[k * d + j];
                gn[k * d + j] += c * zn[i * d + j];
            }
        }
    }
    if (grad)
        for (int i = 0; i < N; i++) { /* through the normalisation: (g - zn (zn.g)) / |z| */
            if (!(nrm[i] > 0)) continue;
            double dot = 0;
            for (int j = 0; j < d; j++) dot += zn[i * d + j] * gn[i * d + j];
            for (int j = 0; j < d; j++) grad[i * d + j] = (gn[i * d + j] - zn[i * d + j] * dot) / nrm[i];
        }
    free(zn), free(nrm), free(gn), free(sim);
    return loss;
}

/* eq:method.z */
void flce_prototypes(const float *z, const int *label, const int *pred, int N, int d, int C, float *proto,
                     int *count) {
    double *sum = flce_calloc((size_t)d, sizeof *sum);
    for (int c = 0; c < C; c++) {
        int m = 0;
        for (int j = 0; j < d; j++) sum[j] = 0;
        for (int i = 0; i < N; i++) {
            if (label[i] != c || pred[i] != c) continue;
            m++;
            for (int j = 0; j < d; j++) sum[j] += z[(size_t)i * d + j];
        }
        count[c] = m;
        for (int j = 0; j < d; j++) proto[(size_t)c * d + j] = m ? (float)(sum[j] / m) : NAN;
    }
    free(sum);
}

void flce_prototypes_first(const float *z, const int *label, const int *pred, int N, int d, int C, float *proto, int *count) {
    for (int c = 0; c < C; c++) {
        count[c] = 0;
        for (int j = 0; j < d; j++) proto[(size_t)c * d + j] = NAN;
    }
    for (int i = 0; i < N; i++) {
        int c = label[i];
        if (c < 0 || c >= C || pred[i] != c || count[c]) continue;
        count[c] = 1;
        for (int j = 0; j < d; j++) proto[(size_t)c * d + j] = z[(size_t)i * d + j];
    }
}

double flce_cosine(const double *a, const double *b, int d) {
    double ab = 0, aa = 0, bb = 0;
    for (int j = 0; j < d; j++) {
        ab += a[j] * b[j];
        aa += a[j] * a[j];
        bb += b[j] * b[j];
    }
    if (aa == 0 || bb == 0) return 0;
    return ab / (sqrt(aa) * sqrt(bb));
}

void flce_normalize(double *x, const uint8_t *present, int K) {
    double s = 0;
    int m = 0;
    for (int k = 0; k < K; k++)
        if (present[k]) {
            s += x[k];
            m++;
        }
    for (int k = 0; k < K; k++) {
        if (!present[k]) x[k] = 0;
        else if (s > 0 && isfinite(s)) x[k] /= s;
        else x[k] = 1.0 / m;
    }
}

/* eq:method.prototype_m_norm */
void flce_mass(const double *p, const uint8_t *present, int K, int d, double *M) {
    double *pbar = flce_calloc((size_t)d, sizeof *pbar), *phat = flce_calloc((size_t)d, sizeof *phat);
    int m = 0;
    for (int k = 0; k < K; k++)
        if (present[k]) {
            m++;
            for (int j = 0; j < d; j++) pbar[j] += p[k * d + j];
        }
    for (int j = 0; j < d && m; j++) pbar[j] /= m;
    for (int k = 0; k < K; k++) M[k] = present[k] ? fmax(0.0, flce_cosine(p + k * d, pbar, d)) : 0; /* s_k */
    flce_normalize(M, present, K);
    for (int k = 0; k < K; k++)
        if (present[k])
            for (int j = 0; j < d; j++) phat[j] += M[k] * p[k * d + j];
    for (int k = 0; k < K; k++) M[k] = present[k] ? fmax(0.0, flce_cosine(p + k * d, phat, d)) : 0;
    flce_normalize(M, present, K);
    free(pbar);
    free(phat);
}

/* eq:method.prototype_v */
void flce_velocity(const double *p, const uint8_t *present, int K, int d, const double *g, double *V) {
    flce_velocity_rules(p, present, K, d, g, NULL, V);
}

void flce_velocity_rules(const double *p, const uint8_t *present, int K, int d, const double *g, const flce_round_rules *rules,
                         double *V) {
    int zero_g = rules && rules->forget_absent; /* no g: the released code's ||p||, g taken as 0 */
    for (int k = 0; k < K; k++) {
        V[k] = 0;
        if (!present[k] || (!g && !zero_g)) continue;
        for (int j = 0; j < d; j++) {
            double diff = p[k * d + j] - (g ? g[j] : 0);
            V[k] += diff * diff;
        }
        if (rules && rules->velocity_distance) V[k] = sqrt(V[k]);
    }
    flce_normalize(V, present, K); /* the text with g NULL: every V is 0, uniform */
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* the guard (not the paper's; docs/attacks.md) */
int flce_clip_prototypes(double *p, const uint8_t *present, int K, int d, double kappa) {
    if (!(kappa > 0)) return 0;
    double *len = flce_calloc((size_t)K * 2 + 1, sizeof *len), *sorted = len + K;
    if (!len) return -1;
    int m = 0, clipped = 0;
    for (int k = 0; k < K; k++) {
        if (!present[k]) continue;
        for (int j = 0; j < d; j++) len[k] += p[k * d + j] * p[k * d + j];
        len[k] = sqrt(len[k]);
        sorted[m++] = len[k];
    }
    qsort(sorted, (size_t)m, sizeof *sorted, cmp_double);
    double cap = m ? kappa * sorted[(m - 1) / 2] : 0; /* the lower median */
    for (int k = 0; k < K && m; k++)
        if (present[k] && len[k] > cap) {
            double f = cap / len[k];
            for (int j = 0; j < d; j++) p[k * d + j] *= f;
            clipped++;
        }
    free(len);
    return clipped;
}

/* eq:method.prototype_p */
void flce_momentum(const double *M, const double *V, const uint8_t *present, int K, double *Q) {
    for (int k = 0; k < K; k++) Q[k] = present[k] ? M[k] * V[k] : 0;
    flce_normalize(Q, present, K);
}

/* eq:method.aggregation_prototype */
void flce_global_prototype(const double *p, const double *Q, const uint8_t *present, int K, int d, double *g) {
    for (int j = 0; j < d; j++) g[j] = 0;
    for (int k = 0; k < K; k++)
        if (present[k])
            for (int j = 0; j < d; j++) g[j] += Q[k] * p[k * d + j];
}

/* eq:method.aggregation_model */
int flce_aggregation_weights(const double *Q, int K, int C, const double *sizes, double *omega) {
    double tot = 0;
    for (int k = 0; k < K; k++) {
        omega[k] = 0;
        for (int c = 0; c < C; c++) omega[k] += Q[k * C + c];
        tot += omega[k];
    }
    if (tot > 0 && isfinite(tot)) {
        for (int k = 0; k < K; k++) omega[k] /= tot;
        return 0;
    }
    double s = 0;
    for (int k = 0; k < K; k++) s += sizes[k];
    for (int k = 0; k < K; k++) omega[k] = s > 0 ? sizes[k] / s : 1.0 / K;
    return 1;
}

flce_status flce_round(const float *proto, const uint8_t *present, int K, int C, int d, const flce_ablation *ab,
                       const flce_round_rules *rules, double *g, uint8_t *has_g, double *Q, flce_err *e) {
    double *p = flce_calloc((size_t)K * d, sizeof *p), *M = flce_calloc((size_t)K, sizeof *M);
    double *V = flce_calloc((size_t)K, sizeof *V), *q = flce_calloc((size_t)K, sizeof *q);
    uint8_t *pr = flce_calloc((size_t)K, 1);
    flce_status st = FLCE_OK;
    if (!p || !M || !V || !q || !pr) {
        st = flce_fail(e, FLCE_ERR_NOMEM, "flce_round: out of memory");
        goto out;
    }
    for (int c = 0; c < C; c++) {
        int m = 0;
        for (int k = 0; k < K; k++) {
            pr[k] = present[k * C + c] != 0;
            m += pr[k];
            for (int j = 0; j < d && pr[k]; j++) {
                float v = proto[((size_t)k * C + c) * d + j];
                if (!isfinite(v)) {
                    st = flce_fail(e, FLCE_ERR_NUMERIC, "client %d class %d: non-finite prototype marked as uploaded", k, c);
                    goto out;
                }
                p[k * d + j] = v;
            }
        }
        if (m == 0) { /* class absent from the round: Q = 0, g kept (the released code: lost) */
            for (int k = 0; k < K; k++) Q[k * C + c] = 0;
            if (rules && rules->forget_absent) has_g[c] = 0;
            continue;
        }
        if (rules && rules->proto_clip > 0 && flce_clip_prototypes(p, pr, K, d, rules->proto_clip) < 0) { /* the guard, off by default */
            st = flce_fail(e, FLCE_ERR_NOMEM, "flce_round: out of memory");
            goto out;
        }
        flce_mass(p, pr, K, d, M);
        flce_velocity_rules(p, pr, K, d, has_g[c] ? g + (size_t)c * d : NULL, rules, V);
        if (ab && ab->no_momentum) {
            for (int k = 0; k < K; k++) q[k] = 1;
            flce_normalize(q, pr, K);
        } else if (ab && ab->no_mass && ab->no_velocity) {
            for (int k = 0; k < K; k++) q[k] = 1;
            flce_normalize(q, pr, K);
        } else if (ab && ab->no_mass) {
            memcpy(q, V, (size_t)K * sizeof *q);
            flce_normalize(q, pr, K);
        } else if (ab && ab->no_velocity) {
            memcpy(q, M, (size_t)K * sizeof *q);
            flce_normalize(q, pr, K);
        } else {
            flce_momentum(M, V, pr, K, q);
        }
        for (int k = 0; k < K; k++) Q[k * C + c] = q[k];
        flce_global_prototype(p, q, pr, K, d, g + (size_t)c * d);
        has_g[c] = 1;
    }
out:
    free(p), free(M), free(V), free(q), free(pr);
    return st;
}

/* eq:contribution_each */
flce_status flce_final_contribution(const double *Xhat, int T, int n, int C, const double *a, const double *b,
                                    double *CE, flce_err *e) {
    uint8_t *all = flce_calloc((size_t)n, 1);
    if (!all) return flce_fail(e, FLCE_ERR_NOMEM, "final contribution: out of memory");
    double sum = 0;
    for (int k = 0; k < n; k++) {
        CE[k] = 0;
        all[k] = 1;
        for (int t = 0; t < T; t++) {
            double s = 0;
            for (int c = 0; c < C; c++) s += (b ? b[c] : 1.0 / C) * Xhat[((size_t)t * n + k) * C + c];
            CE[k] += (a ? a[t] : 1.0 / T) * s;
        }
        sum += CE[k];
    }
    /* weights so large that a sum overflows would otherwise normalise to the uniform shares,
     * silently: the weights are relative, so smaller ones give the same contributions */
    if (!isfinite(sum)) {
        int k = 0;
        while (k < n && isfinite(CE[k])) k++;
        free(all);
        if (k < n)
            return flce_fail(e, FLCE_ERR_NUMERIC,
                             "final contribution: client %d's weighted sum is %g (the round or class weights are too large: they are relative, scale them down)",
                             k, CE[k]);
        return flce_fail(e, FLCE_ERR_NUMERIC,
                         "final contribution: the clients' weighted sums add up to more than %g (the round or class weights are too large: they are relative, scale them down)",
                         DBL_MAX);
    }
    flce_normalize(CE, all, n);
    free(all);
    return FLCE_OK;
}

double flce_kl(const double *P, const double *Q, int n, flce_err *e) {
    double kl = 0;
    for (int k = 0; k < n; k++) {
        if (!(P[k] >= 0) || !(Q[k] >= 0) || !isfinite(P[k]) || !isfinite(Q[k])) {
            flce_fail(e, FLCE_ERR_NUMERIC, "KL: entry %d is negative or not finite (P %g, Q %g)", k, P[k], Q[k]);
            return -1;
        }
        if (P[k] == 0) continue;
        if (Q[k] == 0) {
            flce_fail(e, FLCE_ERR_NUMERIC, "KL: Q[%d] = 0 where P[%d] = %g > 0", k, k, P[k]);
            return -1;
        }
        kl += P[k] * flce_dlog(P[k] / Q[k]);
    }
    return kl;
}

double flce_kl_minmax(const double *P, const double *Q, int n, flce_err *e) {
    double lo = 0, hi = 0, sq = 0;
    for (int k = 0; k < n; k++) {
        if (!(P[k] >= 0) || !(Q[k] >= 0) || !isfinite(P[k]) || !isfinite(Q[k])) {
            flce_fail(e, FLCE_ERR_NUMERIC, "KL (min-max): entry %d is negative or not finite (P %g, Q %g)", k, P[k], Q[k]);
            return -1;
        }
        if (Q[k] == 0) {
            flce_fail(e, FLCE_ERR_NUMERIC, "KL (min-max): Q[%d] = 0 (every rescaled share is at least 0.01)", k);
            return -1;
        }
        lo = k ? fmin(lo, P[k]) : P[k], hi = k ? fmax(hi, P[k]) : P[k];
        sq += Q[k];
    }
    if (n < 1 || !(hi > lo)) {
        flce_fail(e, FLCE_ERR_NUMERIC, "KL (min-max): every contribution is equal, so the rescaling divides 0 by 0 (the released code's NaN)");
        return -1;
    }
    double sp = 0, kl = 0;
    for (int k = 0; k < n; k++) sp += 0.01 + 0.99 * (P[k] - lo) / (hi - lo);
    for (int k = 0; k < n; k++) {
        double p = (0.01 + 0.99 * (P[k] - lo) / (hi - lo)) / sp, q = Q[k] / sq;
        kl += p * flce_dlog(p / q);
    }
    return kl;
}

void flce_quality_reference(const int *noise, int n, double *Q) {
    for (int k = 0; k < n; k++) Q[k] = !noise || noise[k] == 0 ? 1.0 : noise[k] == 1 ? 0.32 : 1e-6;
}

void flce_data_shares(const double *sizes, const int *classes_held, int C, int n, double *Qd) {
    double s = 0;
    for (int k = 0; k < n; k++) {
        Qd[k] = classes_held ? sizes[k] * classes_held[k] / C : sizes[k];
        s += Qd[k];
    }
    for (int k = 0; k < n; k++) Qd[k] = s > 0 ? Qd[k] / s : 1.0 / n;
}

double flce_euclidean(const double *a, const double *b, int n) {
    double s = 0;
    for (int k = 0; k < n; k++) s += (a[k] - b[k]) * (a[k] - b[k]);
    return sqrt(s);
}

double flce_kl_distance(const double *p, const double *ref, int n) {
    double sp = 0, sr = 0, kl = 0;
    for (int k = 0; k < n; k++) {
        sp += fmax(p[k], 0) + 1e-12;
        sr += fmax(ref[k], 0) + 1e-12;
    }
    for (int k = 0; k < n; k++) {
        double a = (fmax(p[k], 0) + 1e-12) / sp, b = (fmax(ref[k], 0) + 1e-12) / sr;
        kl += a * flce_dlog(a / b);
    }
    return kl;
}
