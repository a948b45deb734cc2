/* rng.c: the one seeded generator of the project, Philox-4x32-10 (Salmon, Moraes,
 * Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3", SC 2011), and the
 * distributions built on it. A stream is keyed by (seed, purpose, round, client):
 * key = the 64-bit seed, counter = (block, purpose, round, client). Distributions use
 * flce_dlog/flce_dexp so that no draw depends on the platform's libm. */
#include "base.h"

#include <math.h>
#include <stdlib.h>

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

static void philox_round(uint32_t c[4], const uint32_t k[2]) {
    uint64_t p0 = (uint64_t)PHILOX_M0 * c[0];
    uint64_t p1 = (uint64_t)PHILOX_M1 * c[2];
    uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
    uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    uint32_t o0 = hi1 ^ c[1] ^ k[0];
    uint32_t o2 = hi0 ^ c[3] ^ k[1];
    c[0] = o0;
    c[1] = lo1;
    c[2] = o2;
    c[3] = lo0;
}

void flce_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
    uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
    uint32_t k[2] = {key[0], key[1]};
    philox_round(c, k);
    for (int i = 1; i < 10; i++) {
        k[0] += PHILOX_W0;
        k[1] += PHILOX_W1;
        philox_round(c, k);
    }
    for (int i = 0; i < 4; i++) out[i] = c[i];
}

void flce_rng_init(flce_rng *r, uint64_t seed, uint32_t purpose, uint32_t round, uint32_t client) {
    r->key[0] = (uint32_t)seed;
    r->key[1] = (uint32_t)(seed >> 32);
    r->ctr[0] = 0;
    r->ctr[1] = purpose;
    r->ctr[2] = round;
    r->ctr[3] = client;
    r->pos = 4;
    r->has_spare = 0;
    r->spare = 0.0;
}

uint32_t flce_rng_u32(flce_rng *r) {
    if (r->pos == 4) {
        flce_philox4x32_10(r->ctr, r->key, r->buf);
        r->ctr[0]++; /* 2^32 blocks (2^34 words) per stream */
        r->pos = 0;
    }
    return r->buf[r->pos++];
}

double flce_rng_uniform(flce_rng *r) {
    uint32_t a = flce_rng_u32(r) >> 5; /* 27 bits */
    uint32_t b = flce_rng_u32(r) >> 6; /* 26 bits */
    return ((double)a * 67108864.0 + (double)b) * (1.0 / 9007199254740992.0);
}

double flce_rng_uniform_pos(flce_rng *r) {
    for (;;) {
        double u = flce_rng_uniform(r);
        if (u > 0.0) return u;
    }
}

uint32_t flce_rng_below(flce_rng *r, uint32_t n) {
    if (n <= 1) return 0;
    uint32_t threshold = (uint32_t)(0u - n) % n; /* 2^32 mod n: reject the biased low end */
    for (;;) {
        uint32_t x = flce_rng_u32(r);
        if (x >= threshold) return x % n;
    }
}

double flce_rng_normal(flce_rng *r) {
    if (r->has_spare) {
        r->has_spare = 0;
        return r->spare;
    }
    for (;;) {
        double u = 2.0 * flce_rng_uniform(r) - 1.0;
        double v = 2.0 * flce_rng_uniform(r) - 1.0;
        double s = u * u + v * v;
        if (s >= 1.0 || s == 0.0) continue;
        double m = sqrt(-2.0 * flce_dlog(s) / s);
        r->spare = v * m;
        r->has_spare = 1;
        return u * m;
    }
}

/* Marsaglia and Tsang (2000) for alpha >= 1; alpha < 1 by Gamma(a) = Gamma(a+1) U^(1/a),
 * kept in log space so that tiny alphas do not underflow to 0. */
double flce_rng_log_gamma(flce_rng *r, double alpha) {
    if (alpha < 1.0) {
        double lg = flce_rng_log_gamma(r, alpha + 1.0);
        return lg + flce_dlog(flce_rng_uniform_pos(r)) / alpha;
    }
    double d = alpha - 1.0 / 3.0;
    double c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x = flce_rng_normal(r);
        double v = 1.0 + c * x;
        if (v <= 0.0) continue;
        v = v * v * v;
        double u = flce_rng_uniform_pos(r);
        double x2 = x * x;
        if (u < 1.0 - 0.0331 * x2 * x2) return flce_dlog(d * v);
        if (flce_dlog(u) < 0.5 * x2 + d * (1.0 - v + flce_dlog(v))) return flce_dlog(d * v);
    }
}

void flce_rng_dirichlet(flce_rng *r, double alpha, int n, double *out) {
    if (n <= 0) return;
    double mx = -INFINITY;
    for (int i = 0; i < n; i++) {
        out[i] = flce_rng_log_gamma(r, alpha);
        if (out[i] > mx) mx = out[i];
    }
    double sum = 0.0;
    for (int i = 0; i < n; i++) {
        out[i] = flce_dexp(out[i] - mx);
        sum += out[i];
    }
    for (int i = 0; i < n; i++) out[i] /= sum;
}

void flce_rng_permutation(flce_rng *r, int n, int *out) {
    for (int i = 0; i < n; i++) out[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)flce_rng_below(r, (uint32_t)i + 1);
        int t = out[i];
        out[i] = out[j];
        out[j] = t;
    }
}

void flce_rng_sample(flce_rng *r, int n, int k, int *out) {
    int *pool = malloc((size_t)(n > 0 ? n : 1) * sizeof *pool);
    if (!pool) { /* fall back to rejection; still deterministic */
        for (int i = 0; i < k; i++) {
            for (;;) {
                int v = (int)flce_rng_below(r, (uint32_t)n), dup = 0;
                for (int j = 0; j < i; j++) dup |= out[j] == v;
                if (!dup) { out[i] = v; break; }
            }
        }
        return;
    }
    for (int i = 0; i < n; i++) pool[i] = i;
    for (int i = 0; i < k; i++) { /* partial Fisher-Yates from the front */
        int j = i + (int)flce_rng_below(r, (uint32_t)(n - i));
        int t = pool[i];
        pool[i] = pool[j];
        pool[j] = t;
        out[i] = pool[i];
    }
    free(pool);
}
