/* partition.c: federated partitions of a training split.
 *   IID: one seeded permutation, cut into n nearly equal slices (sizes differ by <= 1).
 *   Dirichlet(delta) label skew: for each class c, proportions q ~ Dir(delta, ..., delta)
 *     over the n clients; the class's samples, in a seeded order, are cut at
 *     floor(N_c * cumsum(q)). The whole draw is repeated (a new stream per attempt) until
 *     every client holds at least min_samples samples, at most 1000 attempts. With balance
 *     (the authors' released generator), a client already holding N / n samples gets no
 *     share of the classes drawn after: its q zeroed, the others renormalised.
 *   Noise (the paper's noise experiments): round(noisy_frac * n) clients, chosen by a
 *     seeded draw, are noisy. A noisy client's labels flip with probability label_noise
 *     each, to a uniformly drawn other class; its features get Gaussian noise of std
 *     feature_noise (applied when samples are read, keyed by sample index). As released:
 *     the noisy clients are the last ones (noisy_last), a flipped label is (y + 1) mod C
 *     (label_next), and the feature noise is relative to the client's own pixels, min-max
 *     rescaled (noise_data_std, flce_noise_released).
 * Each client's sample indices are kept ascending, so the digest does not depend on the
 * order of the draw. */
#include "data.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

void flce_partition_cfg_default(flce_partition_cfg *c) {
    memset(c, 0, sizeof *c); /* every field a default, those added later too (balance, noisy_last, label_next
                              * once read the caller's stack: `flce data` gave one seed two digests) */
    c->iid = 0;
    c->dirichlet = 0.5;
    c->quantity_skew = 0;
    c->min_samples = 10;
    c->label_noise = 0.0;
    c->feature_noise = 0.0;
    c->noisy_frac = 1.0;
}

int flce_parse_duplicate(const char *s, flce_partition_cfg *c) {
    char *end;
    if (*s < '0' || *s > '9') return -1;
    long a = strtol(s, &end, 10);
    if (*end != ':' || end[1] < '0' || end[1] > '9') return -1;
    long b = strtol(end + 1, &end, 10);
    if (*end || a > 100000 || b > 100000) return -1;
    c->duplicate = 1, c->dup_from = (int)a, c->dup_to = (int)b;
    return 0;
}

void flce_partition_free(flce_partition *p) {
    free(p->offsets);
    free(p->index);
    free(p->labels);
    free(p->noisy);
    free(p->feature_std);
    memset(p, 0, sizeof *p);
}

/* owner[i] = client of sample i, by Dirichlet label skew; returns attempts used or -1. */
static int dirichlet_owners(const flce_split *s, int n, double delta, int min_samples, int balance, uint64_t seed,
                            int *owner, int *size, int *members, int *perm, double *q) {
    for (int attempt = 0; attempt < 1000; attempt++) {
        flce_rng r;
        flce_rng_init(&r, seed, FLCE_RNG_PARTITION, (uint32_t)attempt, 0);
        memset(size, 0, (size_t)n * sizeof *size);
        for (int c = 0; c < s->classes; c++) {
            int m = 0;
            for (int i = 0; i < s->n; i++)
                if (s->labels[i] == c) members[m++] = i;
            flce_rng_dirichlet(&r, delta, n, q);
            flce_rng_permutation(&r, m, perm);
            if (balance) { /* the released code's balancing step: full clients take no more (every client
                            * full: the draw as it is, where the released code divides 0 by 0) */
                double kept = 0, full = (double)s->n / n;
                for (int k = 0; k < n; k++) kept += size[k] < full ? q[k] : 0;
                for (int k = 0; kept > 0 && k < n; k++) q[k] = size[k] < full ? q[k] / kept : 0;
            }
            double cum = 0.0;
            int lo = 0;
            for (int k = 0; k < n; k++) {
                cum += q[k];
                int hi = k == n - 1 ? m : (int)(cum * m);
                if (hi > m) hi = m;
                if (hi < lo) hi = lo;
                for (int j = lo; j < hi; j++) owner[members[perm[j]]] = k;
                size[k] += hi - lo;
                lo = hi;
            }
        }
        int ok = 1;
        for (int k = 0; k < n; k++) ok &= size[k] >= min_samples;
        if (ok) return attempt + 1;
    }
    return -1;
}

/* owner[i] by quantity skew: client shares q ~ Dirichlet(alpha) (stream (seed, partition,
 * attempt, 1)), each client min_samples plus floor(q_k (N - n min_samples)) of a seeded
 * permutation of the samples (the last takes the remainder), labels as they fall (IID);
 * returns the attempt used or -1 (a draw is retried while some client would be left below
 * min_samples: none can be with this construction, so the first draw is used). */
static int quantity_owners(int N, int n, double alpha, int min_samples, uint64_t seed, int *owner, int *size, int *perm,
                           double *q) {
    flce_rng r;
    flce_rng_init(&r, seed, FLCE_RNG_PARTITION, 0, 1);
    flce_rng_dirichlet(&r, alpha, n, q);
    flce_rng_permutation(&r, N, perm);
    int64_t spare = (int64_t)N - (int64_t)n * min_samples, lo = 0;
    double cum = 0;
    for (int k = 0; k < n; k++) {
        cum += q[k];
        int64_t hi = k == n - 1 ? N : (int64_t)(k + 1) * min_samples + (int64_t)(cum * (double)spare);
        if (hi > N) hi = N;
        if (hi < lo + min_samples) hi = lo + min_samples;
        for (int64_t j = lo; j < hi; j++) owner[perm[j]] = k;
        size[k] = (int)(hi - lo);
        lo = hi;
    }
    return size[n - 1] >= min_samples ? 1 : -1;
}

flce_status flce_partition_make(flce_partition *p, const flce_split *s, int n,
                                const flce_partition_cfg *cfg, uint64_t seed, flce_err *e) {
    memset(p, 0, sizeof *p);
    if (n < 1) return flce_fail(e, FLCE_ERR_ARG, "--clients %d: must be at least 1", n);
    if (!cfg->iid && !(cfg->quantity_skew > 0.0) && !(cfg->dirichlet > 0.0))
        return flce_fail(e, FLCE_ERR_ARG, "--dirichlet %g: must be > 0", cfg->dirichlet);
    if (!(cfg->quantity_skew >= 0.0 && cfg->quantity_skew < 1e6))
        return flce_fail(e, FLCE_ERR_ARG, "--quantity-skew %g: must be > 0 (0: off)", cfg->quantity_skew);
    if (cfg->min_samples < 1) return flce_fail(e, FLCE_ERR_ARG, "--min-samples %d: must be at least 1", cfg->min_samples);
    if ((int64_t)n * cfg->min_samples > s->n)
        return flce_fail(e, FLCE_ERR_ARG, "--clients %d x --min-samples %d exceeds the %d training samples", n,
                         cfg->min_samples, s->n);
    if (!(cfg->label_noise >= 0.0 && cfg->label_noise <= 1.0))
        return flce_fail(e, FLCE_ERR_ARG, "--label-noise %g: must be in [0, 1]", cfg->label_noise);
    if (!(cfg->feature_noise >= 0.0 && cfg->feature_noise < 1e6))
        return flce_fail(e, FLCE_ERR_ARG, "--feature-noise %g: must be a number from 0 to below 1e6", cfg->feature_noise);
    if (!(cfg->noisy_frac >= 0.0 && cfg->noisy_frac <= 1.0))
        return flce_fail(e, FLCE_ERR_ARG, "--noisy-clients %g: must be in [0, 1]", cfg->noisy_frac);
    if (cfg->label_noise > 0.0 && s->classes < 2)
        return flce_fail(e, FLCE_ERR_ARG, "--label-noise needs at least 2 classes");
    /* a fraction that rounds to no client gave a run without noise, silently (0 itself is a
     * control and stays allowed) */
    if (cfg->duplicate && (cfg->dup_from < 0 || cfg->dup_from >= n || cfg->dup_to < 0 || cfg->dup_to >= n || cfg->dup_from == cfg->dup_to))
        return flce_fail(e, FLCE_ERR_ARG, "--duplicate %d:%d: two different clients of 0..%d", cfg->dup_from, cfg->dup_to, n - 1);
    if (cfg->duplicate && cfg->feature_noise > 0.0) /* the noise is added to the samples in place: a copy would get it twice */
        return flce_fail(e, FLCE_ERR_ARG, "--duplicate and --feature-noise exclude each other");
    if ((cfg->label_noise > 0.0 || cfg->feature_noise > 0.0) && cfg->noisy_frac > 0.0 && (int)(cfg->noisy_frac * n + 0.5) == 0)
        return flce_fail(e, FLCE_ERR_ARG, "--noisy-clients %g of %d clients rounds to none: no client would be noisy (at least %g for one)",
                         cfg->noisy_frac, n, 0.5 / n);

    int N = s->n;
    int *owner = malloc((size_t)N * sizeof *owner), *size = flce_calloc((size_t)n, sizeof *size);
    int *members = malloc((size_t)N * sizeof *members), *perm = malloc((size_t)N * sizeof *perm);
    double *q = malloc((size_t)n * sizeof *q);
    int *fill = flce_calloc((size_t)n, sizeof *fill), *chosen = malloc((size_t)n * sizeof *chosen);
    p->offsets = flce_calloc((size_t)n + 1, sizeof *p->offsets);
    p->index = malloc((size_t)N * sizeof *p->index);
    p->labels = malloc((size_t)N);
    p->noisy = flce_calloc((size_t)n, 1);
    p->feature_std = flce_calloc((size_t)n, sizeof *p->feature_std);
    p->noise_data_std = cfg->noise_data_std && cfg->feature_noise > 0.0;
    flce_status st = FLCE_OK;
    if (!owner || !size || !members || !perm || !q || !fill || !chosen || !p->offsets || !p->index ||
        !p->labels || !p->noisy || !p->feature_std) {
        st = flce_fail(e, FLCE_ERR_NOMEM, "partition: out of memory");
        goto out;
    }
    p->n_clients = n;
    p->classes = s->classes;
    if (cfg->quantity_skew > 0.0) {
        if (quantity_owners(N, n, cfg->quantity_skew, cfg->min_samples, seed, owner, size, perm, q) < 0) {
            st = flce_fail(e, FLCE_ERR_ARG, "--quantity-skew %g: the last of %d clients holds fewer than %d samples", cfg->quantity_skew, n,
                           cfg->min_samples);
            goto out;
        }
    } else if (cfg->iid) {
        flce_rng r;
        flce_rng_init(&r, seed, FLCE_RNG_PARTITION, 0, 0);
        flce_rng_permutation(&r, N, perm);
        for (int k = 0; k < n; k++) {
            int lo = (int)((int64_t)k * N / n), hi = (int)((int64_t)(k + 1) * N / n);
            for (int j = lo; j < hi; j++) owner[perm[j]] = k;
            size[k] = hi - lo;
        }
    } else if (dirichlet_owners(s, n, cfg->dirichlet, cfg->min_samples, cfg->balance, seed, owner, size, members, perm, q) < 0) {
        st = flce_fail(e, FLCE_ERR_ARG,
                       "--dirichlet %g: no partition in 1000 draws gives every one of %d clients %d samples "
                       "(raise --dirichlet or lower --clients / --min-samples)",
                       cfg->dirichlet, n, cfg->min_samples);
        goto out;
    }
    for (int k = 0; k < n; k++) p->offsets[k + 1] = p->offsets[k] + size[k];
    for (int i = 0; i < N; i++) { /* i ascending: each client's indices come out sorted */
        int k = owner[i];
        int64_t at = p->offsets[k] + fill[k]++;
        p->index[at] = i;
        p->labels[at] = s->labels[i];
    }

    if (cfg->label_noise > 0.0 || cfg->feature_noise > 0.0) {
        int m = (int)(cfg->noisy_frac * n + 0.5);
        flce_rng r;
        flce_rng_init(&r, seed, FLCE_RNG_NOISY_CLIENTS, 0, 0);
        flce_rng_sample(&r, n, m, chosen);
        if (cfg->noisy_last) /* the released code's: the last m clients */
            for (int j = 0; j < m; j++) chosen[j] = n - m + j;
        for (int j = 0; j < m; j++) p->noisy[chosen[j]] = 1;
        for (int k = 0; k < n; k++) {
            if (!p->noisy[k]) continue;
            p->feature_std[k] = (float)cfg->feature_noise;
            if (cfg->label_noise <= 0.0) continue;
            flce_rng_init(&r, seed, FLCE_RNG_LABEL_NOISE, 0, (uint32_t)k);
            for (int64_t j = p->offsets[k]; j < p->offsets[k + 1]; j++) {
                if (flce_rng_uniform(&r) >= cfg->label_noise) continue;
                int y = (int)flce_rng_below(&r, (uint32_t)s->classes - 1);
                if (y >= p->labels[j]) y++;
                if (cfg->label_next) y = (p->labels[j] + 1) % s->classes; /* the released code's (y + 1) mod C */
                p->labels[j] = (uint8_t)y;
                p->label_flips++;
            }
        }
    }
    if (cfg->duplicate) { /* client dup_to: a copy of dup_from's entries, in place of its own */
        int a = cfg->dup_from, b = cfg->dup_to;
        int64_t *off = flce_calloc((size_t)n + 1, sizeof *off);
        int32_t *idx = malloc(sizeof *idx * ((size_t)N + 1));
        uint8_t *lab = malloc((size_t)N + 1);
        int64_t extra = (p->offsets[a + 1] - p->offsets[a]) - (p->offsets[b + 1] - p->offsets[b]);
        if (extra > 0) {
            free(idx), free(lab);
            idx = malloc(sizeof *idx * (size_t)(N + extra)), lab = malloc((size_t)(N + extra));
        }
        if (!off || !idx || !lab) {
            free(off), free(idx), free(lab);
            st = flce_fail(e, FLCE_ERR_NOMEM, "partition: out of memory");
            goto out;
        }
        for (int k = 0; k < n; k++) {
            int src = k == b ? a : k;
            int64_t m = p->offsets[src + 1] - p->offsets[src];
            memcpy(idx + off[k], p->index + p->offsets[src], sizeof *idx * (size_t)m);
            memcpy(lab + off[k], p->labels + p->offsets[src], (size_t)m);
            off[k + 1] = off[k] + m;
        }
        free(p->offsets), free(p->index), free(p->labels);
        p->offsets = off, p->index = idx, p->labels = lab;
        p->noisy[b] = p->noisy[a], p->feature_std[b] = p->feature_std[a];
    }
out:
    free(owner);
    free(size);
    free(members);
    free(perm);
    free(q);
    free(fill);
    free(chosen);
    if (st) flce_partition_free(p);
    return st;
}

void flce_partition_counts(const flce_partition *p, int k, int *counts) {
    for (int c = 0; c < p->classes; c++) counts[c] = 0;
    for (int64_t j = p->offsets[k]; j < p->offsets[k + 1]; j++) counts[p->labels[j]]++;
}

uint64_t flce_partition_digest(const flce_partition *p) {
    XXH3_state_t *s = XXH3_createState();
    if (!s) return 0;
    XXH3_64bits_reset(s);
    int32_t hdr[2] = {p->n_clients, p->classes};
    int64_t N = p->offsets[p->n_clients];
    XXH3_64bits_update(s, hdr, sizeof hdr);
    XXH3_64bits_update(s, p->offsets, ((size_t)p->n_clients + 1) * sizeof *p->offsets);
    XXH3_64bits_update(s, p->index, (size_t)N * sizeof *p->index);
    XXH3_64bits_update(s, p->labels, (size_t)N);
    XXH3_64bits_update(s, p->noisy, (size_t)p->n_clients);
    XXH3_64bits_update(s, p->feature_std, (size_t)p->n_clients * sizeof *p->feature_std);
    if (p->noise_data_std) XXH3_64bits_update(s, "noise_data_std", 14); /* only where set: the other digests stay */
    uint64_t d = XXH3_64bits_digest(s);
    XXH3_freeState(s);
    return d;
}
