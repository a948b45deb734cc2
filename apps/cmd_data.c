/* cmd_data.c: `flce data`: load a dataset, optionally take stratified subsets, make the
 * federated partition and print its class counts per client and its xxh3-64 digest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "data.h"

static const char *USAGE =
    "usage: flce data [--dataset fmnist|cifar10|cifar100|eurosat] [--data DIR] [--clients N]\n"
    "                 [--dirichlet D | --iid | --quantity-skew A] [--min-samples M] [--label-noise R] [--feature-noise S]\n"
    "                 [--noisy-clients F] [--duplicate A:B] [--train-subset N] [--test-subset N] [--seed S]\n"
    "Prints the class counts of every client and the partition's xxh3-64 digest.";

int flce_cmd_data(int argc, char **argv) {
    const char *prog = "flce data", *dataset = "fmnist", *dir = NULL, *duplicate_s = NULL;
    int clients = 50, iid = 0, train_subset = 0, test_subset = 0;
    uint64_t seed = 1;
    flce_partition_cfg pc;
    flce_partition_cfg_default(&pc);
    char dataset_help[200]; /* the names from the dataset table (data/dataset.c) */
    snprintf(dataset_help, sizeof dataset_help, "%s (default fmnist; flce data --help)", flce_dataset_names());
    cli_opt opts[] = {
        {"dataset", CLI_STR, &dataset, dataset_help, 0},
        {"data", CLI_STR, &dir, "dataset folder (default for fmnist: $FLCE_FMNIST_DIR where set, else " FLCE_FMNIST_DIR ")", 0},
        {"clients", CLI_INT, &clients, "number of clients (default 50)", 0},
        {"dirichlet", CLI_DOUBLE, &pc.dirichlet, "Dirichlet label-skew parameter delta > 0 (default 0.5)", 0},
        {"iid", CLI_FLAG, &iid, "IID partition instead of Dirichlet", 0},
        {"quantity-skew", CLI_DOUBLE, &pc.quantity_skew, "quantity skew A: labels IID, client sizes from a Dirichlet(A) draw", 0},
        {"min-samples", CLI_INT, &pc.min_samples, "minimum samples per client (default 10)", 0},
        {"label-noise", CLI_DOUBLE, &pc.label_noise, "label flip rate of noisy clients (default 0)", 0},
        {"feature-noise", CLI_DOUBLE, &pc.feature_noise, "Gaussian feature-noise std of noisy clients (default 0)", 0},
        {"noisy-clients", CLI_DOUBLE, &pc.noisy_frac, "fraction of clients that are noisy (default 1)", 0},
        {"duplicate", CLI_STR, &duplicate_s, "A:B: client B holds a copy of client A's data (B's own samples are left out)", 0},
        {"train-subset", CLI_INT, &train_subset, "seeded stratified subset of the training split", 0},
        {"test-subset", CLI_INT, &test_subset, "seeded stratified subset of the test split", 0},
        {"seed", CLI_U64, &seed, "the seed that fixes everything (default 1)", 0},
        {0},
    };
    const char *pos[1];
    int npos, rc = cli_parse(prog, USAGE, opts, argc, argv, pos, 0, &npos);
    if (rc) return rc == 1 ? 0 : rc;
    pc.iid = iid;
    if (duplicate_s && flce_parse_duplicate(duplicate_s, &pc)) return cli_usage_error(prog, "--duplicate '%s': A:B, two clients", duplicate_s);
    if (iid && cli_find(opts, "dirichlet")->seen) return cli_usage_error(prog, "--iid and --dirichlet exclude each other");
    if (cli_find(opts, "quantity-skew")->seen && (iid || cli_find(opts, "dirichlet")->seen || !(pc.quantity_skew > 0 && pc.quantity_skew < 1e6)))
        return cli_usage_error(prog, "--quantity-skew %g: a number > 0, without --iid or --dirichlet", pc.quantity_skew);
    if (clients < 1) return cli_usage_error(prog, "--clients %d: must be at least 1", clients);
    if (!iid && !(pc.dirichlet > 0)) return cli_usage_error(prog, "--dirichlet %g: must be > 0", pc.dirichlet);
    if (pc.min_samples < 1) return cli_usage_error(prog, "--min-samples %d: must be at least 1", pc.min_samples);
    if (pc.label_noise < 0 || pc.label_noise > 1) return cli_usage_error(prog, "--label-noise %g: must be in [0, 1]", pc.label_noise);
    if (pc.feature_noise < 0) return cli_usage_error(prog, "--feature-noise %g: must be >= 0", pc.feature_noise);
    if (pc.noisy_frac < 0 || pc.noisy_frac > 1) return cli_usage_error(prog, "--noisy-clients %g: must be in [0, 1]", pc.noisy_frac);
    if (cli_find(opts, "noisy-clients")->seen && !cli_find(opts, "label-noise")->seen && !cli_find(opts, "feature-noise")->seen)
        return cli_usage_error(prog, "--noisy-clients %g: says which clients get --label-noise or --feature-noise, and neither is given", pc.noisy_frac);
    if (cli_find(opts, "train-subset")->seen && train_subset < 1) return cli_usage_error(prog, "--train-subset %d: must be at least 1", train_subset);
    if (cli_find(opts, "test-subset")->seen && test_subset < 1) return cli_usage_error(prog, "--test-subset %d: must be at least 1", test_subset);
    if (!flce_dataset_classes(dataset)) return cli_usage_error(prog, "--dataset '%s': unknown (%s)", dataset, flce_dataset_names());

    flce_err e = {{0}};
    flce_dataset ds;
    flce_status st = flce_dataset_load(&ds, dataset, dir, seed, &e);
    if (st) {
        fprintf(stderr, "%s: %s\n", prog, e.msg);
        return st == FLCE_ERR_ARG ? 2 : 1;
    }
    if ((train_subset && (st = flce_dataset_subset(&ds, 0, train_subset, seed, &e))) ||
        (test_subset && (st = flce_dataset_subset(&ds, 1, test_subset, seed, &e)))) {
        fprintf(stderr, "%s: %s\n", prog, e.msg);
        flce_dataset_free(&ds);
        return 2;
    }
    flce_partition p;
    st = flce_partition_make(&p, &ds.train, clients, &pc, seed, &e);
    if (st) {
        fprintf(stderr, "%s: %s\n", prog, e.msg);
        flce_dataset_free(&ds);
        return st == FLCE_ERR_ARG ? 2 : 1;
    }
    int C = ds.train.classes;
    printf("dataset %s (%s): %d training, %d test samples, %dx%dx%d, %d classes\n", ds.name, ds.dir,
           ds.train.n, ds.test.n, ds.train.c, ds.train.h, ds.train.w, C);
    if (pc.quantity_skew > 0)
        printf("partition: quantity skew Dirichlet(%g) over %d clients (labels IID), min %d samples, seed %llu\n", pc.quantity_skew,
               clients, pc.min_samples, (unsigned long long)seed);
    else if (iid) printf("partition: IID over %d clients, seed %llu\n", clients, (unsigned long long)seed);
    else printf("partition: Dirichlet(%g) label skew over %d clients, min %d samples, seed %llu\n", pc.dirichlet,
                clients, pc.min_samples, (unsigned long long)seed);
    int *counts = malloc((size_t)C * sizeof *counts);
    if (!counts) {
        fprintf(stderr, "%s: out of memory\n", prog);
        flce_partition_free(&p);
        flce_dataset_free(&ds);
        return 1;
    }
    printf("%6s %7s", "client", "samples");
    for (int c = 0; c < C; c++) printf(" %5d", c);
    printf("%s\n", pc.label_noise > 0 || pc.feature_noise > 0 ? "  noisy" : "");
    for (int k = 0; k < clients; k++) {
        flce_partition_counts(&p, k, counts);
        printf("%6d %7lld", k, (long long)(p.offsets[k + 1] - p.offsets[k]));
        for (int c = 0; c < C; c++) printf(" %5d", counts[c]);
        printf("%s\n", pc.label_noise > 0 || pc.feature_noise > 0 ? (p.noisy[k] ? "  yes" : "  no") : "");
    }
    if (pc.label_noise > 0) printf("label noise: %lld labels flipped\n", (long long)p.label_flips);
    char hex[17];
    flce_digest_hex(flce_partition_digest(&p), hex);
    printf("partition digest (xxh3-64): %s\n", hex);
    free(counts);
    flce_partition_free(&p);
    flce_dataset_free(&ds);
    return 0;
}
