/* test_partition.c: federated partitions by their properties: every sample goes to
 * exactly one client, IID sizes differ by at most one, the minimum size holds, the same
 * seed gives the same digest, a small Dirichlet parameter skews labels more than a large
 * one, and label noise flips about the requested share to other classes only. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "data.h"

static flce_split synth(int per_class, int classes) {
    flce_split s = {0};
    s.n = per_class * classes;
    s.c = s.h = s.w = 1;
    s.classes = classes;
    s.pixels = calloc((size_t)s.n, 1);
    s.labels = malloc((size_t)s.n);
    for (int i = 0; i < s.n; i++) s.labels[i] = (uint8_t)(i % classes);
    return s;
}

static void check_cover(const flce_partition *p, const flce_split *s) {
    int *hit = calloc((size_t)s->n, sizeof(int));
    cr_assert_eq(p->offsets[0], 0);
    cr_assert_eq(p->offsets[p->n_clients], s->n);
    for (int k = 0; k < p->n_clients; k++)
        for (int64_t j = p->offsets[k]; j < p->offsets[k + 1]; j++) {
            cr_assert(p->index[j] >= 0 && p->index[j] < s->n);
            if (j > p->offsets[k]) cr_assert(p->index[j] > p->index[j - 1], "ascending within a client");
            hit[p->index[j]]++;
        }
    for (int i = 0; i < s->n; i++) cr_assert_eq(hit[i], 1, "sample %d held %d times", i, hit[i]);
    free(hit);
}

Test(partition, iid_covers_and_balances) {
    flce_split s = synth(101, 10);
    flce_partition_cfg c;
    flce_partition_cfg_default(&c);
    c.iid = 1;
    flce_partition p;
    flce_err e = {{0}};
    cr_assert_eq(flce_partition_make(&p, &s, 7, &c, 1, &e), FLCE_OK, "%s", e.msg);
    check_cover(&p, &s);
    for (int k = 0; k < 7; k++) {
        int64_t sz = p.offsets[k + 1] - p.offsets[k];
        cr_assert(sz == 1010 / 7 || sz == 1010 / 7 + 1, "client %d size %lld", k, (long long)sz);
    }
    flce_partition_free(&p);
    free(s.pixels);
    free(s.labels);
}

static double mean_classes_held(const flce_partition *p) {
    int counts[10];
    double t = 0;
    for (int k = 0; k < p->n_clients; k++) {
        flce_partition_counts(p, k, counts);
        for (int c = 0; c < 10; c++) t += counts[c] > 0;
    }
    return t / p->n_clients;
}

Test(partition, dirichlet_covers_is_seeded_and_skews) {
    flce_split s = synth(600, 10);
    flce_partition_cfg c;
    flce_partition_cfg_default(&c);
    c.min_samples = 20;
    flce_partition a, b, d;
    flce_err e = {{0}};
    cr_assert_eq(flce_partition_make(&a, &s, 20, &c, 1, &e), FLCE_OK, "%s", e.msg);
    cr_assert_eq(flce_partition_make(&b, &s, 20, &c, 1, &e), FLCE_OK);
    cr_assert_eq(flce_partition_make(&d, &s, 20, &c, 2, &e), FLCE_OK);
    check_cover(&a, &s);
    for (int k = 0; k < 20; k++) cr_assert(a.offsets[k + 1] - a.offsets[k] >= 20);
    cr_assert_eq(flce_partition_digest(&a), flce_partition_digest(&b));
    cr_assert_neq(flce_partition_digest(&a), flce_partition_digest(&d));
    /* delta 0.1 gives clients fewer classes than delta 100 (which is close to IID: all 10) */
    flce_partition lo, hi;
    c.dirichlet = 0.1;
    c.min_samples = 1;
    cr_assert_eq(flce_partition_make(&lo, &s, 20, &c, 1, &e), FLCE_OK, "%s", e.msg);
    c.dirichlet = 100;
    cr_assert_eq(flce_partition_make(&hi, &s, 20, &c, 1, &e), FLCE_OK);
    double mlo = mean_classes_held(&lo), mhi = mean_classes_held(&hi);
    cr_assert(mlo < 6 && mhi > 9.5, "classes held: delta 0.1 -> %g, delta 100 -> %g", mlo, mhi);
    flce_partition_free(&a);
    flce_partition_free(&b);
    flce_partition_free(&d);
    flce_partition_free(&lo);
    flce_partition_free(&hi);
    free(s.pixels);
    free(s.labels);
}

Test(partition, label_noise_flips_to_other_classes) {
    flce_split s = synth(1000, 10);
    flce_partition_cfg c;
    flce_partition_cfg_default(&c);
    c.iid = 1;
    c.label_noise = 0.3;
    c.feature_noise = 0.5;
    c.noisy_frac = 0.5;
    flce_partition p;
    flce_err e = {{0}};
    cr_assert_eq(flce_partition_make(&p, &s, 10, &c, 3, &e), FLCE_OK, "%s", e.msg);
    int noisy = 0;
    int64_t flipped = 0, noisy_n = 0;
    for (int k = 0; k < 10; k++) {
        noisy += p.noisy[k];
        cr_assert_eq(p.feature_std[k], p.noisy[k] ? 0.5f : 0.0f);
        for (int64_t j = p.offsets[k]; j < p.offsets[k + 1]; j++) {
            int orig = s.labels[p.index[j]];
            if (!p.noisy[k]) cr_assert_eq(p.labels[j], orig);
            if (p.labels[j] != orig) flipped++;
            noisy_n += p.noisy[k];
        }
    }
    cr_assert_eq(noisy, 5);
    cr_assert_eq(flipped, p.label_flips);
    double rate = (double)flipped / (double)noisy_n; /* binomial: sd = sqrt(.3 .7 / 5000) = 0.0065 */
    cr_assert(fabs(rate - 0.3) < 0.033, "flip rate %g", rate);
    flce_partition_free(&p);
    free(s.pixels);
    free(s.labels);
}

Test(partition, noise_as_released) {
    /* the released generator: the noisy clients are the last ones (4 of 10 -> 6..9), and every
     * label of theirs (rate 1) becomes (y + 1) mod C */
    flce_split s = synth(100, 10);
    flce_partition_cfg c;
    flce_partition_cfg_default(&c);
    c.iid = 1, c.label_noise = 1.0, c.noisy_frac = 0.4, c.noisy_last = 1, c.label_next = 1;
    flce_partition p;
    flce_err e = {{0}};
    cr_assert_eq(flce_partition_make(&p, &s, 10, &c, 3, &e), FLCE_OK, "%s", e.msg);
    for (int k = 0; k < 10; k++) {
        cr_assert_eq(p.noisy[k], k >= 6, "client %d noisy %d", k, p.noisy[k]);
        for (int64_t j = p.offsets[k]; j < p.offsets[k + 1]; j++) {
            int orig = s.labels[p.index[j]];
            cr_assert_eq(p.labels[j], k >= 6 ? (orig + 1) % 10 : orig);
        }
    }
    flce_partition_free(&p);
    free(s.pixels);
    free(s.labels);
}

Test(partition, dirichlet_balance_as_released) {
    /* the released balancing step, as a property: once a client holds N / n samples it gets
     * none of the classes drawn after (classes are drawn 0, 1, ..., so its class counts are 0
     * after the class that filled it); without the step some client does (a draw where it
     * matters: Dirichlet 0.1, 10 clients) */
    flce_split s = synth(300, 10);
    for (int balance = 1; balance >= 0; balance--) {
        flce_partition_cfg c;
        flce_partition_cfg_default(&c);
        c.dirichlet = 0.1, c.min_samples = 1, c.balance = balance;
        flce_partition p;
        flce_err e = {{0}};
        cr_assert_eq(flce_partition_make(&p, &s, 10, &c, 5, &e), FLCE_OK, "%s", e.msg);
        int late = 0; /* samples a client got of a class after it was full */
        for (int k = 0; k < 10; k++) {
            int cnt[10] = {0}, sum = 0, full_at = 10;
            for (int64_t j = p.offsets[k]; j < p.offsets[k + 1]; j++) cnt[s.labels[p.index[j]]]++;
            for (int y = 0; y < 10 && full_at == 10; y++)
                if ((sum += cnt[y]) >= 3000 / 10) full_at = y;
            for (int y = full_at + 1; y < 10; y++) late += cnt[y];
        }
        if (balance) cr_assert_eq(late, 0, "a full client got %d samples of later classes", late);
        else cr_assert(late > 0, "the draw without balancing never overfills: the check says nothing");
        flce_partition_free(&p);
    }
    free(s.pixels);
    free(s.labels);
}

Test(partition, impossible_configurations_are_clear_errors) {
    flce_split s = synth(10, 10);
    flce_partition_cfg c;
    flce_partition_cfg_default(&c);
    flce_partition p;
    flce_err e = {{0}};
    cr_assert_eq(flce_partition_make(&p, &s, 11, &c, 1, &e), FLCE_ERR_ARG);
    cr_assert(strstr(e.msg, "--clients 11"), "%s", e.msg);
    c.dirichlet = 0;
    cr_assert_eq(flce_partition_make(&p, &s, 2, &c, 1, &e), FLCE_ERR_ARG);
    cr_assert(strstr(e.msg, "--dirichlet"), "%s", e.msg);
    c.dirichlet = 0.5;
    c.label_noise = 1.5;
    cr_assert_eq(flce_partition_make(&p, &s, 2, &c, 1, &e), FLCE_ERR_ARG);
    /* 10 clients with 10 samples each from 100: Dirichlet(0.01) cannot satisfy it */
    c.label_noise = 0;
    c.dirichlet = 0.01;
    cr_assert_eq(flce_partition_make(&p, &s, 10, &c, 1, &e), FLCE_ERR_ARG);
    cr_assert(strstr(e.msg, "1000 draws"), "%s", e.msg);
    free(s.pixels);
    free(s.labels);
}

/* The defaults do not depend on what the memory held before: a field added to the settings
 * and missed by flce_partition_cfg_default once read the caller's stack (`flce data` printed
 * two digests for one seed). Two different fillings must give the same bytes, and the three
 * released-code switches must be off. */
Test(partition, defaults_do_not_depend_on_prior_memory) {
    flce_partition_cfg a, b;
    memset(&a, 0xa5, sizeof a);
    memset(&b, 0x5a, sizeof b);
    flce_partition_cfg_default(&a);
    flce_partition_cfg_default(&b);
    cr_assert(memcmp(&a, &b, sizeof a) == 0, "flce_partition_cfg_default leaves a field to the memory's prior contents");
    cr_assert_eq(a.balance, 0);
    cr_assert_eq(a.noisy_last, 0);
    cr_assert_eq(a.label_next, 0);
}

/* --duplicate A:B: client B's entries are A's, entry for entry (indices, labels after noise, the
 * noise flag), every other client keeps its own, and B's own samples are in no client. */
Test(partition, duplicate_copies_a_client) {
    flce_split s = synth(60, 10);
    flce_partition_cfg c;
    flce_partition_cfg_default(&c);
    c.label_noise = 0.5, c.noisy_frac = 0.25; /* one of four clients noisy: whichever it is, B copies A's flags */
    flce_partition p0, p1;
    flce_err e = {{0}};
    cr_assert_eq(flce_partition_make(&p0, &s, 4, &c, 7, &e), FLCE_OK, "%s", e.msg);
    c.duplicate = 1, c.dup_from = 1, c.dup_to = 3;
    cr_assert_eq(flce_partition_make(&p1, &s, 4, &c, 7, &e), FLCE_OK, "%s", e.msg);
    for (int k = 0; k < 4; k++) {
        int src = k == 3 ? 1 : k;
        int64_t m = p0.offsets[src + 1] - p0.offsets[src];
        cr_assert_eq(p1.offsets[k + 1] - p1.offsets[k], m, "client %d: %lld entries", k, (long long)(p1.offsets[k + 1] - p1.offsets[k]));
        for (int64_t j = 0; j < m; j++) {
            cr_assert_eq(p1.index[p1.offsets[k] + j], p0.index[p0.offsets[src] + j]);
            cr_assert_eq(p1.labels[p1.offsets[k] + j], p0.labels[p0.offsets[src] + j]);
        }
        cr_assert_eq(p1.noisy[k], p0.noisy[src]);
    }
    for (int64_t j = p0.offsets[3]; j < p0.offsets[4]; j++) /* B's own samples: held by nobody now */
        for (int64_t q = 0; q < p1.offsets[4]; q++) cr_assert(p1.index[q] != p0.index[j] || (q >= p1.offsets[3]), "sample of B's own kept");
    flce_partition_free(&p0);
    flce_partition_free(&p1);
    c.dup_to = 1; /* the same client */
    cr_assert_eq(flce_partition_make(&p1, &s, 4, &c, 7, &e), FLCE_ERR_ARG);
    cr_assert(strstr(e.msg, "--duplicate 1:1") != NULL, "%s", e.msg);
    c.dup_to = 4; /* out of range */
    cr_assert_eq(flce_partition_make(&p1, &s, 4, &c, 7, &e), FLCE_ERR_ARG);
    c.dup_to = 3, c.feature_noise = 0.1;
    cr_assert_eq(flce_partition_make(&p1, &s, 4, &c, 7, &e), FLCE_ERR_ARG);
    cr_assert(strstr(e.msg, "--feature-noise") != NULL, "%s", e.msg);
    flce_partition_cfg d;
    cr_assert_eq(flce_parse_duplicate("2:5", &d), 0);
    cr_assert(d.duplicate == 1 && d.dup_from == 2 && d.dup_to == 5);
    cr_assert_eq(flce_parse_duplicate("2-5", &d), -1);
    cr_assert_eq(flce_parse_duplicate(":5", &d), -1);
    cr_assert_eq(flce_parse_duplicate("2:5x", &d), -1);
    free(s.pixels);
    free(s.labels);
}
