/* baselines.c: see baselines.h. */
#include "baselines.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

void flce_prox_grad(size_t n, float *g, const float *w, const float *ref, float mu) {
    for (size_t j = 0; j < n; j++) g[j] = g[j] + mu * (w[j] - ref[j]);
}

double flce_moon_loss(int n, int d, const float *z, const float *zg, const float *zp, double mu, double tau, float *dz) {
    double total = 0;
    for (int i = 0; i < n; i++) {
        const float *x = z + (size_t)i * d, *g = zg + (size_t)i * d, *p = zp + (size_t)i * d;
        float *o = dz + (size_t)i * d;
        double xx = 0, gg = 0, pp = 0, xg = 0, xp = 0;
        for (int j = 0; j < d; j++) {
            xx += (double)x[j] * x[j], gg += (double)g[j] * g[j], pp += (double)p[j] * p[j];
            xg += (double)x[j] * g[j], xp += (double)x[j] * p[j];
        }
        double nx = sqrt(xx), ng = sqrt(gg), np = sqrt(pp);
        if (!(nx > 0) || !(ng > 0) || !(np > 0)) {
            for (int j = 0; j < d; j++) o[j] = 0;
            continue;
        }
        double cg = xg / (nx * ng), cp = xp / (nx * np), a = cg / tau, b = cp / tau;
        double sig = 1 / (1 + flce_dexp(b - a)); /* the positive pair's softmax weight */
        total += flce_dlog(1 + flce_dexp(b - a));
        double da = (sig - 1) / tau, db = (1 - sig) / tau, s = mu / n;
        for (int j = 0; j < d; j++) { /* d cos(x, u)/dx = u / (|x||u|) - cos(x, u) x / |x|^2 */
            double dg = g[j] / (nx * ng) - cg * x[j] / xx, dp = p[j] / (nx * np) - cp * x[j] / xx;
            o[j] = (float)(s * (da * dg + db * dp));
        }
    }
    return mu * total / n;
}

static double dotf(const float *a, const float *b, size_t n) {
    double s = 0;
    for (size_t j = 0; j < n; j++) s += (double)a[j] * b[j];
    return s;
}

void flce_project_conflict(size_t S, float *u, const float *v) {
    double dot = dotf(v, u, S), nn = dotf(v, v, S);
    if (dot >= 0 || nn <= 0) return;
    float c = (float)(dot / nn);
    for (size_t j = 0; j < S; j++) u[j] = u[j] - c * v[j];
}

void flce_fedfv_project(int K, size_t S, const float *orig, const double *loss, double alpha, float *g) {
    int order[32]; /* K <= 32 (the engine's limit) */
    if (K > 32) return;
    for (int i = 0; i < K; i++) order[i] = i;
    for (int i = 1; i < K; i++) /* ascending loss, ties by index: insertion sort */
        for (int j = i; j > 0 && (loss[order[j - 1]] > loss[order[j]]); j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    memcpy(g, orig, sizeof(float) * S * (size_t)K);
    int keep = (int)ceil(alpha * K);
    for (int a = 0; a < K - keep; a++) {
        int i = order[a];
        for (int b = 0; b < K; b++)
            if (order[b] != i) flce_project_conflict(S, g + (size_t)i * S, orig + (size_t)order[b] * S);
    }
}

int flce_cgsv_round(int K, size_t S, const float *w, const float *states, double Gamma, double alpha,
                    const double *weights, double *r, float *newg) {
    float *gk = malloc(sizeof(float) * S * (size_t)K);
    if (!gk) return -1;
    for (int i = 0; i < K; i++) {
        float *gi = gk + (size_t)i * S;
        for (size_t j = 0; j < S; j++) gi[j] = states[(size_t)i * S + j] - w[j];
        float c = (float)(Gamma / (sqrt(dotf(gi, gi, S)) + 1e-7));
        for (size_t j = 0; j < S; j++) gi[j] = gi[j] * c;
    }
    for (size_t j = 0; j < S; j++) { /* g, kept in newg - w below */
        float a = 0.0f;
        for (int i = 0; i < K; i++) a = a + (float)weights[i] * gk[(size_t)i * S + j];
        newg[j] = a;
    }
    double gg = dotf(newg, newg, S);
    for (int i = 0; i < K; i++) {
        const float *gi = gk + (size_t)i * S;
        double nn = dotf(gi, gi, S), phi = nn > 0 && gg > 0 ? dotf(gi, newg, S) / (sqrt(nn) * sqrt(gg)) : 0;
        r[i] = alpha * r[i] + (1 - alpha) * phi;
        if (r[i] < 1e-3) r[i] = 1e-3;
    }
    for (size_t j = 0; j < S; j++) newg[j] = w[j] + newg[j];
    free(gk);
    return 0;
}

static double powq(double x, double q) { return q == 1.0 ? x : q == 0.0 ? 1.0 : flce_dexp(q * flce_dlog(x)); }

void flce_qfedavg_round(int K, size_t S, const float *w, const float *states, const double *F, double lr, double q,
                        float *newg, double *h, double *contrib) {
    double L = 1.0 / lr, hs = 0;
    for (int i = 0; i < K; i++) {
        double nn = 0;
        for (size_t j = 0; j < S; j++) {
            double dw = L * ((double)w[j] - states[(size_t)i * S + j]);
            nn += dw * dw;
        }
        h[i] = q * powq(F[i], q - 1) * nn + L * powq(F[i], q);
        hs += h[i];
    }
    for (size_t j = 0; j < S; j++) {
        double a = 0;
        for (int i = 0; i < K; i++) a += powq(F[i], q) * L * ((double)w[j] - states[(size_t)i * S + j]);
        newg[j] = (float)((double)w[j] - a / hs);
    }
    for (int i = 0; i < K; i++) contrib[i] = powq(F[i], q) / hs;
}

void flce_fedfa_weights(int K, const double *acc, const double *freq, double beta, double *pi) {
    double sa = 0, sf = 0, ta = 0, tf = 0, ln2 = flce_dlog(2.0);
    double A[32], F[32]; /* K <= 32 (the engine's limit) */
    if (K > 32) return;
    for (int i = 0; i < K; i++) sa += acc[i], sf += freq[i];
    for (int i = 0; i < K; i++) {
        A[i] = -flce_dlog(acc[i] / (sa > 0 ? sa : 1) + 1e-6) / ln2;
        F[i] = -flce_dlog(1 - freq[i] / (sf > 0 ? sf : 1) + 1e-5) / ln2;
        ta += A[i], tf += F[i];
    }
    for (int i = 0; i < K; i++) pi[i] = (1 - beta) * (ta > 0 ? A[i] / ta : 1.0 / K) + beta * (tf > 0 ? F[i] / tf : 1.0 / K);
}
