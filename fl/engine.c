/* engine.c: the federated engine (see engine.h). One round:
 *   1. select K of n clients (stream select, round t), ascending client order;
 *   2. each selected client loads the global model and runs E local epochs of SGD over its
 *      data in a seeded order (stream batch, round t, client k), with L_CE + lambda L_CL
 *      for FLCE and L_CE otherwise; FLCE clients then compute their prototypes;
 *   3. the algorithm's server step gives aggregation weights and the round's contributions;
 *      the new global model (all parameters and BatchNorm statistics) is the weighted sum;
 *   4. the global model is evaluated on the test set; files are written.
 * The engine is four files: this one (the settings checked, the data, the round loop, the
 * end), run_files.c (the run folder and its files), state_file.c (state.bin) and processes.c
 * (a run spread over several processes), sharing engine_int.h; the helpers the methods share
 * (flce_eng_*) are in method.c, the methods' settings in settings.c. */
#include "engine.h"
#include "attacks.h"
#include "baselines.h"
#include "method.h"
#include "trace_io.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "npy.h"
#include "ops.h"
#include "engine_int.h"

void flce_run_cfg_default(flce_run_cfg *c) {
    memset(c, 0, sizeof *c);
    c->algo = "flce";
    c->dataset = "fmnist";
    c->clients = 50;
    c->per_round = 10;
    c->rounds = 100;
    c->epochs = 1;
    c->batch = 64;
    flce_partition_cfg_default(&c->part);
    c->lr = 0.01;
    c->seed = 1;
    c->eval_batch = 256;
    flce_completion_cfg_default(&c->completion);
}

uint64_t flce_train_seed(const flce_run_cfg *c) { return c->has_train_seed ? c->train_seed : c->seed; }

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* With spread (several processes, no loss asked for): batch b on rank b mod P, the counts
 * summed over the ranks; accuracy and F1 come from integer counts, so the same bits. */
flce_status eng_evaluate(engine *E, flce_model *model, const float *x, const int32_t *y, int n, double *acc, double *f1,
                            double *loss, int spread, flce_err *e) {
    int C = E->C, B = E->cfg->eval_batch, P = spread && !loss && E->comm ? E->comm->size : 1, me = P > 1 ? E->comm->rank : 0;
    int64_t *cnt = flce_calloc((size_t)3 * C + 1, 8), *tp = cnt, *fp = cnt + C, *fn = cnt + 2 * C, right = 0;
    if (!cnt) return flce_fail(e, FLCE_ERR_NOMEM, "eng_evaluate: out of memory");
    double ls = 0;
    flce_status st = FLCE_OK;
    for (int i0 = 0, b = 0; i0 < n && !st; i0 += B, b++) {
        if (b % P != me) continue;
        int nb = n - i0 < B ? n - i0 : B;
        if ((st = flce_model_eval(model, nb, x + (size_t)i0 * E->CHW, E->logits, NULL, e))) break; /* the others still add up */
        for (int i = 0; i < nb; i++) {
            int p;
            ls += flce_eng_logit_loss(E->logits + (size_t)i * C, C, y[i0 + i], &p);
            if (p == y[i0 + i]) right++, tp[p]++;
            else fp[p]++, fn[y[i0 + i]]++;
        }
    }
    if (P > 1) { /* every rank's counts (a rank that failed takes part, then says so) */
        cnt[3 * C] = right;
        flce_err ce;
        flce_status sc = E->comm->sum_i64((flce_comm *)E->comm, cnt, 3 * C + 1, &ce);
        if (!st && sc) st = sc, *e = ce;
        right = cnt[3 * C];
    }
    if (st) {
        free(cnt);
        return st;
    }
    double f = 0;
    int cls = 0;
    for (int c = 0; c < C; c++) {
        if (tp[c] + fn[c] == 0) continue; /* class absent from the evaluation set */
        double prec = tp[c] + fp[c] ? (double)tp[c] / (double)(tp[c] + fp[c]) : 0;
        double rec = (double)tp[c] / (double)(tp[c] + fn[c]);
        f += prec + rec > 0 ? 2 * prec * rec / (prec + rec) : 0;
        cls++;
    }
    if (acc) *acc = n ? (double)right / n : 0;
    if (f1) *f1 = cls ? f / cls : 0;
    if (loss) *loss = n ? ls / n : 0;
    free(cnt);
    return FLCE_OK;
}

static size_t first_nonfinite(const float *a, size_t n) {
    size_t j = 0;
    while (j < n && isfinite(a[j])) j++;
    return j;
}

/* Slot i's client: E local epochs over its data in a seeded order (stream batch, round t,
 * client k), or --local-steps S batches taken in that order, a new order each time the data run
 * out (the last batch of each pass as short as it comes), the method's hooks around and inside,
 * the upload into E->states[i]. */
flce_status eng_client_update(engine *E, int slot, flce_err *e) {
    const flce_run_cfg *cfg = E->cfg;
    const flce_method *M = E->algo;
    int k = E->sel[slot];
    int64_t lo = E->part.offsets[k], nk = E->part.offsets[k + 1] - lo;
    flce_status st;
    flce_model_set_state(&E->m, E->global);
    if (M->client_begin && (st = M->client_begin(E, slot, e))) return st;
    flce_rng r;
    flce_rng_init(&r, flce_train_seed(cfg), FLCE_RNG_BATCH, (uint32_t)E->t, (uint32_t)k);
    double lsum = 0, first_loss = 0;
    int nbatches = 0, first = 1;
    int steps = cfg->local_steps; /* 0: epochs */
    int ride = cfg->nattacks ? flce_attack_free_ride(E, k) : 0; /* a free-rider trains nothing (fl/attacks.c) */
    if (ride < 0) return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    for (int ep = 0; !ride && (steps ? nbatches < steps : ep < cfg->epochs); ep++) {
        flce_rng_permutation(&r, (int)nk, E->perm);
        for (int64_t b0 = 0; b0 < nk && (!steps || nbatches < steps); b0 += cfg->batch) {
            int nb = (int)(nk - b0 < cfg->batch ? nk - b0 : cfg->batch);
            for (int i = 0; i < nb; i++) {
                int64_t ent = lo + E->perm[b0 + i];
                memcpy(E->bx + (size_t)i * E->CHW, E->train_x + (size_t)E->part.index[ent] * E->CHW, sizeof(float) * (size_t)E->CHW);
                E->by[i] = E->entry_y[ent];
            }
            flce_losses l;
            st = M->local_step ? M->local_step(E, slot, nb, first, &l, e) : flce_eng_sgd_step(E, nb, first, 0.0f, 1.0f, &l, e);
            if (st) return st;
            if (first) first_loss = l.loss;
            first = 0;
            lsum += l.loss;
            nbatches++;
        }
    }
    E->losses[slot] = nbatches ? lsum / nbatches : 0;
    if (M->client_end && (st = M->client_end(E, slot, e))) return st;
    if (cfg->nattacks) flce_attack_upload(E, slot);
    float *up = E->states + (size_t)slot * E->S;
    flce_model_get_state(&E->m, up);
    /* A diverged client (weights overflowed to inf or NaN) would make every later number of the
     * run meaningless, and the cosine rules read a NaN norm as no similarity (uniform shares):
     * the run fails here instead (status 1), before anything of this round is written. */
    size_t j = first_nonfinite(up, E->S);
    if (j < E->S) { /* the flag most likely at fault: a loss not finite on the first batch, before any
                     * step, is the loss's own settings (the method's, given away from their
                     * defaults: --tau 1e-45 once drew "a smaller --lr?"), else the steps' size */
        char hint[160] = "";
        size_t hl = 0;
        if (!isfinite(first_loss)) {
            for (const flce_setting *const *sp = M->settings; sp && *sp && !hl; sp++)
                if (!(*sp)->choices && flce_run_cfg_get(cfg, *sp) != (*sp)->def)
                    flce_catf(hint, sizeof hint, &hl, "the loss of its first batch, before any step, is %g: --%s %g (default %g)?",
                              first_loss, (*sp)->flag, flce_run_cfg_get(cfg, *sp), (*sp)->def);
            if (!hl) flce_catf(hint, sizeof hint, &hl, "the loss of its first batch, before any step, is %g: the data or the model, not --lr",
                               first_loss);
        } else flce_catf(hint, sizeof hint, &hl, "a smaller --lr?");
        return flce_fail(e, FLCE_ERR_NUMERIC, "round %d, client %d: its model is not finite after local training (parameter %zu is %g): %s "
                         "diverged; %s", E->t + 1, k, j, (double)up[j], M->name, hint);
    }
    return FLCE_OK;
}

static flce_status validate(const flce_run_cfg *c, const flce_method **algo, flce_err *e) {
    *algo = c->method ? c->method : flce_method_find(c->algo);
    if (!*algo) return flce_fail(e, FLCE_ERR_ARG, "--algo '%s': unknown (%s)", c->algo, flce_method_names());
    if (!(*algo)->server) return flce_fail(e, FLCE_ERR_ARG, "method '%s': no server step", (*algo)->name);
    flce_status ast = flce_attacks_check(c, e);
    if (ast) return ast;
    if (c->clients < 2) return flce_fail(e, FLCE_ERR_ARG, "--clients %d: must be at least 2", c->clients);
    if (c->per_round < 1 || c->per_round > c->clients)
        return flce_fail(e, FLCE_ERR_ARG, "--per-round %d: must be between 1 and --clients (%d)", c->per_round, c->clients);
    if (c->per_round > 32) return flce_fail(e, FLCE_ERR_ARG, "--per-round %d: at most 32", c->per_round);
    if (c->nmembers && c->per_round > c->nmembers)
        return flce_fail(e, FLCE_ERR_ARG, "--per-round %d: more than the %d --members", c->per_round, c->nmembers);
    if (c->nmembers && (c->schedule_sweep || c->schedule_window))
        return flce_fail(e, FLCE_ERR_ARG, "--members and --schedule %s exclude each other", c->schedule_sweep ? "sweep" : "window");
    if (c->schedule_sweep && c->schedule_window) return flce_fail(e, FLCE_ERR_ARG, "--schedule: sweep or window, not both");
    if (c->schedule_window && c->per_round < 2) return flce_fail(e, FLCE_ERR_ARG, "--schedule window: needs --per-round 2 or more (a window of K / 2 and a draw)");
    for (int i = 0; i < c->nmembers; i++)
        if (c->members[i] < 0 || c->members[i] >= c->clients || (i && c->members[i] <= c->members[i - 1]))
            return flce_fail(e, FLCE_ERR_ARG, "--members: clients 0..%d ascending, each once", c->clients - 1);
    for (const flce_setting *const *q = (*algo)->settings; q && *q; q++) { /* set programmatically: the limits again */
        flce_run_cfg tmp = *c;
        flce_status st = flce_run_cfg_set_value(&tmp, *q, flce_run_cfg_get(c, *q), e);
        if (st) return st;
    }
    flce_status st = (*algo)->check ? (*algo)->check(c, e) : FLCE_OK;
    if (st) return st;
    if (c->rounds < 1) return flce_fail(e, FLCE_ERR_ARG, "--rounds %d: must be at least 1", c->rounds);
    if (c->test_from < 0 || c->test_from > c->rounds) /* the last round is always evaluated */
        return flce_fail(e, FLCE_ERR_ARG, "test_from %d: 0 to --rounds (%d)", c->test_from, c->rounds);
    if (c->seed > ((uint64_t)1 << 53))
        return flce_fail(e, FLCE_ERR_ARG, "--seed %llu: at most 2^53 = 9007199254740992 (recorded exactly in config.json)",
                         (unsigned long long)c->seed);
    if (c->has_train_seed && c->train_seed > ((uint64_t)1 << 53))
        return flce_fail(e, FLCE_ERR_ARG, "--train-seed %llu: at most 2^53 = 9007199254740992 (recorded exactly in config.json)",
                         (unsigned long long)c->train_seed);
    if (c->epochs < 1) return flce_fail(e, FLCE_ERR_ARG, "--epochs %d: must be at least 1", c->epochs);
    if (c->local_steps < 0 || c->local_steps > 1000000) return flce_fail(e, FLCE_ERR_ARG, "--local-steps %d: must be 1..1000000", c->local_steps);
    if (c->local_steps && c->epochs != 1) return flce_fail(e, FLCE_ERR_ARG, "--local-steps and --epochs: give one (steps replace epochs)");
    if (!(c->momentum >= 0 && c->momentum < 1)) return flce_fail(e, FLCE_ERR_ARG, "--momentum %g: must be from 0 to below 1", c->momentum);
    if (!(c->weight_decay >= 0 && c->weight_decay < 1)) return flce_fail(e, FLCE_ERR_ARG, "--weight-decay %g: must be from 0 to below 1", c->weight_decay);
    if (!(c->clip_norm >= 0 && c->clip_norm < 1e30)) return flce_fail(e, FLCE_ERR_ARG, "--clip-norm %g: must be >= 0 (0: no clipping)", c->clip_norm);
    if (c->batch < 2 || c->batch > 4096) return flce_fail(e, FLCE_ERR_ARG, "--batch %d: must be 2..4096", c->batch);
    if (!c->part.iid && !(c->part.dirichlet > 0)) return flce_fail(e, FLCE_ERR_ARG, "--dirichlet %g: must be > 0", c->part.dirichlet);
    if (!(c->part.quantity_skew >= 0 && c->part.quantity_skew < 1e6))
        return flce_fail(e, FLCE_ERR_ARG, "--quantity-skew %g: must be > 0 (0: off)", c->part.quantity_skew);
    if (!(c->lr > 0)) return flce_fail(e, FLCE_ERR_ARG, "--lr %g: must be > 0", c->lr);
    if (c->train_subset < 0 || c->test_subset < 0 || c->val_size < 0)
        return flce_fail(e, FLCE_ERR_ARG, "subset and validation sizes must be positive");
    if (c->part.label_noise < 0 || c->part.label_noise > 1) return flce_fail(e, FLCE_ERR_ARG, "--label-noise %g: must be in [0, 1]", c->part.label_noise);
    if (!(c->part.feature_noise >= 0 && c->part.feature_noise < 1e6))
        return flce_fail(e, FLCE_ERR_ARG, "--feature-noise %g: must be a number from 0 to below 1e6", c->part.feature_noise);
    if (!c->backend) return flce_fail(e, FLCE_ERR_ARG, "no backend given to the engine");
    return FLCE_OK;
}

static flce_status setup_data(engine *E, flce_err *e) {
    const flce_run_cfg *c = E->cfg;
    /* the data's identity, recorded in config.json: sizes, pixels and labels of both splits as read */
    flce_status st = flce_dataset_load_subsets(&E->ds, c->dataset, c->data_dir, c->seed, c->train_subset, c->test_subset,
                                               &E->data_digest, e);
    if (st == FLCE_ERR_IO) st = FLCE_ERR_ARG; /* a missing folder or file: a usage error, before any work */
    if (st) return st;
    flce_split *tr = &E->ds.train;
    E->C = tr->classes;
    E->CHW = tr->c * tr->h * tr->w;
    /* the server's validation set (Shapley utility): seeded, stratified, excluded from every
     * client whatever the algorithm, so that all methods share one partition */
    int nv = c->val_size ? c->val_size : (tr->n / 10 < 1000 ? tr->n / 10 : 1000);
    int ms = c->part.min_samples > 1 ? c->part.min_samples : 1;
    if ((int64_t)c->clients * ms > tr->n)
        return flce_fail(e, FLCE_ERR_ARG, "--clients %d x --min-samples %d exceeds the %d training samples", c->clients, ms, tr->n);
    if ((int64_t)tr->n - nv < (int64_t)c->clients * ms) /* said here: the partition sees only what is left */
        return flce_fail(e, FLCE_ERR_ARG, "--val-size %d leaves %d of the %d training samples for --clients %d x --min-samples %d",
                         nv, tr->n - nv, tr->n, c->clients, ms);
    if (nv >= tr->n - c->clients)
        return flce_fail(e, FLCE_ERR_ARG, "--val-size %d leaves %d of the %d training samples for --clients %d (more than one each needed)", nv,
                         tr->n - nv, tr->n, c->clients);
    int *counts = flce_calloc((size_t)E->C, sizeof *counts), *pick = malloc(sizeof *pick * (size_t)tr->n);
    int *members = malloc(sizeof *members * (size_t)tr->n);
    uint8_t *isval = flce_calloc((size_t)tr->n, 1);
    E->val_idx = malloc(sizeof *E->val_idx * (size_t)(nv ? nv : 1));
    if (!counts || !pick || !members || !isval || !E->val_idx) {
        free(counts), free(pick), free(members), free(isval);
        return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    }
    flce_split_class_counts(tr, counts);
    int given = 0;
    for (int cl = 0; cl < E->C && nv; cl++) {
        int q = (int)((int64_t)nv * counts[cl] / tr->n), m = 0;
        if (cl == E->C - 1) q = nv - given;
        if (q > counts[cl]) q = counts[cl];
        for (int i = 0; i < tr->n; i++)
            if (tr->labels[i] == cl) members[m++] = i;
        flce_rng r;
        flce_rng_init(&r, c->seed, FLCE_RNG_VALSET, 0, (uint32_t)cl);
        flce_rng_sample(&r, m, q, pick);
        for (int j = 0; j < q; j++) isval[members[pick[j]]] = 1;
        given += q;
    }
    E->n_val = 0;
    for (int i = 0; i < tr->n; i++)
        if (isval[i]) E->val_idx[E->n_val++] = i;
    /* the clients' split: the training samples outside the validation set */
    flce_split rest = *tr;
    rest.n = tr->n - E->n_val;
    rest.labels = malloc((size_t)(rest.n > 0 ? rest.n : 1));
    if (!rest.labels) return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    int *map = members;
    for (int i = 0, o = 0; i < tr->n; i++)
        if (!isval[i]) rest.labels[o] = tr->labels[i], map[o++] = i;
    st = flce_partition_make(&E->part, &rest, c->clients, &c->part, c->seed, e);
    free(rest.labels);
    if (!st) /* partition indices are into `rest`: map them to training indices */
        for (int64_t j = 0; j < E->part.offsets[c->clients]; j++) E->part.index[j] = map[E->part.index[j]];
    if (!st && c->nattacks) st = flce_attacks_partition(&E->part, c, e); /* strategic clients' data (fl/attacks.c) */
    free(counts), free(pick), free(members), free(isval);
    if (st) return st;
    /* normalised inputs; a noisy client's samples get their feature noise here, keyed by
     * sample index (the same noise every epoch: it belongs to the data) */
    E->train_x = malloc(sizeof(float) * (size_t)tr->n * E->CHW);
    E->test_x = malloc(sizeof(float) * (size_t)E->ds.test.n * E->CHW);
    E->test_y = malloc(sizeof(int32_t) * (size_t)E->ds.test.n);
    E->entry_y = malloc(sizeof(int32_t) * (size_t)(E->part.offsets[c->clients] + 1));
    E->sizes = malloc(sizeof(double) * (size_t)c->clients);
    E->held = flce_calloc((size_t)c->clients, sizeof(int));
    if (!E->train_x || !E->test_x || !E->test_y || !E->entry_y || !E->sizes || !E->held)
        return flce_fail(e, FLCE_ERR_NOMEM, "out of memory for the dataset");
    for (int i = 0; i < tr->n; i++) flce_dataset_sample_f32(&E->ds, tr, i, E->train_x + (size_t)i * E->CHW);
    for (int i = 0; i < E->ds.test.n; i++) {
        flce_dataset_sample_f32(&E->ds, &E->ds.test, i, E->test_x + (size_t)i * E->CHW);
        E->test_y[i] = E->ds.test.labels[i];
    }
    int *cc = flce_calloc((size_t)E->C, sizeof *cc);
    if (!cc) return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    for (int k = 0; k < c->clients; k++) {
        float sd = E->part.feature_std[k];
        int64_t o = E->part.offsets[k], nk = E->part.offsets[k + 1] - o;
        E->sizes[k] = (double)nk;
        flce_partition_counts(&E->part, k, cc);
        for (int cl = 0; cl < E->C; cl++) E->held[k] += cc[cl] > 0;
        if (sd > 0 && E->part.noise_data_std) { /* the released code's: relative to the client's pixels, rescaled */
            uint8_t *px = malloc((size_t)nk * E->CHW + 1);
            if (!px) {
                free(cc);
                return flce_fail(e, FLCE_ERR_NOMEM, "out of memory for the feature noise");
            }
            flce_noise_released(tr, E->part.index + o, nk, sd, c->seed, px);
            for (int64_t j = 0; j < nk; j++)
                flce_dataset_pixels_f32(&E->ds, tr->c, (size_t)tr->h * tr->w, px + (size_t)j * E->CHW,
                                        E->train_x + (size_t)E->part.index[o + j] * E->CHW);
            free(px);
            sd = 0; /* done: the loop below adds none */
        }
        for (int64_t j = E->part.offsets[k]; j < E->part.offsets[k + 1]; j++) {
            E->entry_y[j] = E->part.labels[j];
            if (sd <= 0) continue;
            flce_rng r;
            flce_rng_init(&r, c->seed, FLCE_RNG_FEATURE_NOISE, 0, (uint32_t)E->part.index[j]);
            float *x = E->train_x + (size_t)E->part.index[j] * E->CHW;
            for (int q = 0; q < E->CHW; q++) x[q] = x[q] + (float)(flce_rng_normal(&r) * sd);
        }
    }
    free(cc);
    E->n_test = E->ds.test.n;
    return c->nattacks ? flce_attacks_data(E, e) : FLCE_OK;
}

static void engine_free(engine *E) {
    if (E->be) {
        flce_model_free(&E->m);
    }
    if (E->algo && E->algo->close) E->algo->close(E);
    flce_dataset_free(&E->ds);
    flce_partition_free(&E->part);
    free(E->train_x), free(E->entry_y), free(E->val_idx), free(E->test_x), free(E->test_y), free(E->sizes), free(E->data_sizes), free(E->held);
    free(E->trainable), free(E->global), free(E->states), free(E->newg), free(E->sel), free(E->protos), free(E->protos_alt), free(E->protos_first), free(E->present), free(E->losses);
    free(E->omega), free(E->rc), free(E->contrib_sum), free(E->bx), free(E->logits), free(E->feat);
    free(E->by), free(E->perm), free(E->vcache), free(E->metrics), free(E->test_loss), free(E->rep_loss), free(E->rep_acc);
    free(E->dzx), free(E->settings), free(E->aux_f), free(E->aux_d), free(E->rc_hist), free(E->rules), free(E->rules_hist), free(E->slot_value), free(E->owner);
    if (E->fd_proto > 0) close(E->fd_proto);
    if (E->fd_proto_alt > 0) close(E->fd_proto_alt);
    if (E->fd_proto_first > 0) close(E->fd_proto_first);
    if (E->fd_sel > 0) close(E->fd_sel);
    if (E->fd_lock > 0) close(E->fd_lock); /* releases the folder */
}

/* Final contributions: the method's own (FLCE: from its trace, as `flce eval` computes them), or
 * the running sums (clamped at 0 for Shapley methods), normalised. */
static flce_status final_contributions(engine *E, double *CE, double comp_s[2], flce_err *e) {
    int n = E->n;
    comp_s[0] = 0, comp_s[1] = NAN;
    if (E->algo->final) return E->algo->final(E, CE, comp_s, e);
    uint8_t *all = malloc((size_t)n);
    if (!all) return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    for (int k = 0; k < n; k++) {
        CE[k] = E->algo->flags & FLCE_M_CLAMP ? fmax(0, E->contrib_sum[k]) : E->contrib_sum[k];
        all[k] = 1;
    }
    flce_normalize(CE, all, n);
    free(all);
    return FLCE_OK;
}

/* The model (initialised from the seed), the engine's arrays and the method's state. */
static flce_status engine_alloc(engine *E, flce_err *e) {
    const flce_run_cfg *cfg = E->cfg;
    flce_status st;
    int n = E->n, K = E->K, C = E->C, d = E->d;
    int64_t maxk = 0;
    for (int k = 0; k < n; k++) maxk = E->part.offsets[k + 1] - E->part.offsets[k] > maxk ? E->part.offsets[k + 1] - E->part.offsets[k] : maxk;
    /* the largest batch a model takes: a training batch, or an evaluation batch of at most eval_batch
     * samples of the largest set evaluated (a client's data, the validation or the test set); the
     * batches run are the same whatever the model was built for, so the bits are too, and a small
     * run no longer allocates and clears the activations of 256 samples */
    int64_t most = maxk > E->n_test ? maxk : E->n_test;
    most = most > E->n_val ? most : E->n_val;
    int MB = cfg->eval_batch < most ? cfg->eval_batch : (int)most;
    MB = E->MB = MB > cfg->batch ? MB : cfg->batch;
    if ((st = flce_model_create(&E->m, E->be, E->ds.train.c, E->ds.train.h, E->ds.train.w, E->C, MB, e))) return st;
    flce_model_init(&E->m, flce_train_seed(cfg));
    E->S = flce_model_state_size(&E->m);
    if (!(E->trainable = malloc(E->S))) {
        return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    }
    for (int i = 0, o = 0; i < E->m.nparams; o += (int)E->m.p[i].n, i++) {
        memset(E->trainable + o, E->m.p[i].trainable ? 1 : 0, E->m.p[i].n);
        E->P += E->m.p[i].trainable ? E->m.p[i].n : 0;
    }
    E->global = malloc(E->S * 4), E->states = malloc(E->S * 4 * (size_t)K), E->newg = malloc(E->S * 4);
    E->sel = malloc(sizeof(int) * (size_t)K), E->protos = malloc(sizeof(float) * (size_t)n * C * d);
    E->protos_alt = malloc(sizeof(float) * (size_t)n * C * d);
    E->protos_first = malloc(sizeof(float) * (size_t)n * C * d);
    E->present = malloc((size_t)n * C), E->losses = malloc(sizeof(double) * (size_t)K);
    E->omega = malloc(sizeof(double) * (size_t)K), E->rc = malloc(sizeof(double) * (size_t)K);
    E->contrib_sum = flce_calloc((size_t)n, sizeof(double));
    E->rc_hist = malloc(sizeof(double) * (size_t)E->T * n);
    E->bx = malloc(sizeof(float) * (size_t)MB * E->CHW), E->by = malloc(sizeof(int32_t) * (size_t)MB);
    E->logits = malloc(sizeof(float) * (size_t)MB * C), E->feat = malloc(sizeof(float) * (size_t)MB * d);
    E->perm = malloc(sizeof(int) * (size_t)(maxk + 1)), E->vcache = malloc(sizeof(double) * ((size_t)1 << (K < 21 ? K : 1)));
    E->metrics = flce_calloc((size_t)E->T, sizeof(flce_round_metrics));
    if (cfg->test_loss && !(E->test_loss = flce_calloc((size_t)E->T, sizeof(double)))) return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    E->rep_loss = flce_calloc((size_t)K, sizeof(double)), E->rep_acc = flce_calloc((size_t)K, sizeof(double));
    size_t maxp = (size_t)MB * d;
    for (int i = 0; i < E->m.nparams; i++) maxp = 2 * E->m.p[i].n > maxp ? 2 * E->m.p[i].n : maxp;
    E->dzx = malloc(sizeof(float) * maxp);
    E->slot_value = flce_calloc((size_t)K, sizeof(double));
    if (E->algo->flags & (FLCE_M_COSINE_RULES | FLCE_M_RULE_READINGS)) {
        E->rules = flce_calloc((size_t)K * FLCE_NRULES, sizeof(double));
        E->rules_hist = malloc(sizeof(double) * (size_t)E->T * n * FLCE_NRULES);
        if (!E->rules || !E->rules_hist) return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
        for (size_t i = 0; i < (size_t)E->T * n * FLCE_NRULES; i++) E->rules_hist[i] = NAN;
    }
    E->owner = flce_calloc((size_t)K, sizeof(int));
    if (E->algo->state_size) E->algo->state_size(E, &E->aux_fn, &E->aux_dn);
    E->aux_f = flce_calloc(E->aux_fn ? E->aux_fn : 1, sizeof(float));
    E->aux_d = flce_calloc(E->aux_dn ? E->aux_dn : 1, sizeof(double));
    if (!E->global || !E->states || !E->newg || !E->sel || !E->protos || !E->protos_alt || !E->protos_first || !E->present || !E->losses || !E->omega || !E->rc ||
        !E->contrib_sum || !E->bx || !E->by || !E->logits || !E->feat || !E->perm || !E->vcache ||
        !E->metrics || !E->rc_hist || !E->rep_loss || !E->rep_acc || !E->dzx || !E->aux_f || !E->aux_d ||
        !E->slot_value || !E->owner) {
        return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    }
    if (E->algo->state_init) E->algo->state_init(E);
    for (size_t i = 0; i < (size_t)E->T * E->n; i++) E->rc_hist[i] = NAN;
    flce_model_get_state(&E->m, E->global);
    return FLCE_OK;
}

flce_status flce_engine_open_synthetic(engine *E, const flce_run_cfg *cfg, const flce_method *algo, flce_backend *be, int c, int h,
                                       int w, int C, const double *sizes, flce_err *e) {
    memset(E, 0, sizeof *E);
    E->fd_proto = E->fd_proto_alt = E->fd_proto_first = E->fd_sel = -1;
    E->cfg = cfg, E->algo = algo, E->be = be, E->writer = 1;
    E->n = cfg->clients, E->K = cfg->per_round, E->T = cfg->rounds, E->C = C, E->d = FLCE_FEAT;
    E->ds.train.c = c, E->ds.train.h = h, E->ds.train.w = w, E->CHW = c * h * w;
    if (E->K < 1 || E->K > E->n || E->K > 32 || E->T < 1)
        return flce_fail(e, FLCE_ERR_ARG, "synthetic engine: %d of %d clients a round, %d rounds", E->K, E->n, E->T);
    E->part.n_clients = E->n;
    E->part.offsets = flce_calloc((size_t)E->n + 1, sizeof(int64_t));
    E->sizes = malloc(sizeof(double) * (size_t)E->n);
    if (!E->part.offsets || !E->sizes) return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    for (int k = 0; k < E->n; k++) E->sizes[k] = sizes[k], E->part.offsets[k + 1] = E->part.offsets[k] + (int64_t)sizes[k];
    return engine_alloc(E, e);
}

flce_status flce_engine_set_method(engine *E, const flce_method *algo, flce_err *e) {
    size_t fn = 0, dn = 0;
    if (E->algo && E->algo->close) E->algo->close(E);
    E->priv = NULL;
    E->algo = algo;
    if (algo->state_size) algo->state_size(E, &fn, &dn);
    free(E->aux_f), free(E->aux_d);
    E->aux_fn = fn, E->aux_dn = dn;
    E->aux_f = flce_calloc(fn ? fn : 1, sizeof(float)), E->aux_d = flce_calloc(dn ? dn : 1, sizeof(double));
    if (!E->aux_f || !E->aux_d) return flce_fail(e, FLCE_ERR_NOMEM, "out of memory for %s's state", algo->name);
    if (algo->state_init) algo->state_init(E);
    return FLCE_OK;
}

void flce_engine_close(engine *E) { engine_free(E); }

flce_status flce_initial_eval(const flce_run_cfg *cfg, double *acc, double *loss, uint64_t *model_digest, uint64_t *part_digest,
                              double *sizes, int *n_test, flce_err *e) {
    engine E0, *E = &E0;
    memset(E, 0, sizeof *E);
    E->cfg = cfg;
    E->fd_proto = E->fd_proto_alt = E->fd_proto_first = E->fd_sel = E->fd_lock = -1;
    E->writer = 1;
    flce_status st = validate(cfg, &E->algo, e);
    if (!st) st = setup_data(E, e);
    if (!st && !(E->be = cfg->backend(cfg->backend_ud, e))) st = FLCE_ERR_ARG; /* as flce_run: an unusable --backend */
    if (!st) {
        E->n = cfg->clients, E->K = cfg->per_round, E->T = cfg->rounds, E->d = FLCE_FEAT;
        st = engine_alloc(E, e);
    }
    if (!st) {
        flce_model_set_state(&E->m, E->global);
        st = eng_evaluate(E, &E->m, E->test_x, E->test_y, E->n_test, acc, NULL, loss, 0, e);
        *model_digest = flce_digest(E->global, E->S * 4);
        *part_digest = flce_partition_digest(&E->part);
        const double *held = E->data_sizes ? E->data_sizes : E->sizes; /* the samples held (summary_kl's) */
        if (sizes) memcpy(sizes, held, sizeof(double) * (size_t)E->n);
        if (n_test) *n_test = E->n_test;
    }
    engine_free(E);
    return st;
}

/* The rounds from E->t on (see the top of this file), each written as it ends. */
static flce_status run_rounds(engine *E, flce_progress_fn progress, void *ud, flce_err *e) {
    const flce_run_cfg *cfg = E->cfg;
    int n = E->n, K = E->K, C = E->C, d = E->d;
    flce_status st = FLCE_OK;
    double t_start = now_s(), *Qd = malloc(sizeof(double) * (size_t)n), *run = malloc(sizeof(double) * (size_t)n);
    uint8_t *all = malloc((size_t)n), *selrow = malloc((size_t)n);
    if (!Qd || !run || !all || !selrow) {
        free(Qd), free(run), free(all), free(selrow);
        return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    }
    flce_data_shares(E->data_sizes ? E->data_sizes : E->sizes, NULL, C, n, Qd); /* the samples held, not a count reported */
    for (int k = 0; k < n; k++) all[k] = 1;
    for (; E->t < E->T && !st; E->t++) {
        if (E->comm) ((flce_comm *)E->comm)->round = E->t + 1;
        flce_round_metrics *m = &E->metrics[E->t];
        memset(m, 0, sizeof *m);
        m->round = E->t + 1;
        flce_rng r;
        flce_rng_init(&r, flce_train_seed(cfg), FLCE_RNG_SELECT, (uint32_t)E->t, 0);
        if (cfg->nmembers) { /* a coalition alone: K of its members by the same stream (all n members: the plain draw) */
            flce_rng_sample(&r, cfg->nmembers, K, E->sel);
            for (int i = 0; i < K; i++) E->sel[i] = cfg->members[E->sel[i]];
        } else if (cfg->schedule_window) { /* the window, then K - h of the n - h others (counted on from the
                                             * window's end, mod n) by the stream */
            int h = K / 2, s0 = flce_eng_window_start(E);
            for (int i = 0; i < h; i++) E->sel[i] = (s0 + i) % n;
            flce_rng_sample(&r, n - h, K - h, E->sel + h);
            for (int i = h; i < K; i++) E->sel[i] = (s0 + h + E->sel[i]) % n;
        } else flce_rng_sample(&r, n, K, E->sel);
        if (cfg->schedule_sweep && E->t < (n + K - 1) / K) /* the released code's first rounds: 0..K-1, K..2K-1, ... */
            for (int i = 0; i < K; i++) E->sel[i] = (E->t * K + i) % n;
        for (int i = 1; i < K; i++) /* ascending client order: the aggregation order */
            for (int j = i; j > 0 && E->sel[j - 1] > E->sel[j]; j--) {
                int tmp = E->sel[j];
                E->sel[j] = E->sel[j - 1];
                E->sel[j - 1] = tmp;
            }
        for (size_t i = 0; i < (size_t)n * C * d; i++) E->protos[i] = E->protos_alt[i] = E->protos_first[i] = NAN;
        memset(E->present, 0, (size_t)n * C);
        E->fallback = 0;
        for (int i = 0; i < K; i++) E->slot_value[i] = 0;
        eng_assign_slots(E);
        double t0 = now_s();
        if ((st = eng_client_phase(E, e))) break;
        m->client_s = now_s() - t0;
        t0 = now_s();
        flce_eng_utility_reset(E);
        E->rules_s = 0;
        if ((st = eng_agree(E, E->algo->server(E, e), e))) break;
        size_t bad = first_nonfinite(E->newg, E->S);
        if (bad < E->S) { /* the same on every rank: each aggregates the same uploads */
            st = flce_fail(e, FLCE_ERR_NUMERIC, "round %d: %s's new global model is not finite (parameter %zu is %g)",
                           E->t + 1, E->algo->name, bad, (double)E->newg[bad]);
            break;
        }
        m->server_s = now_s() - t0 - E->rules_s; /* the readings recorded beside are not the method's cost */
        for (int i = 0; i < K; i++) {
            E->contrib_sum[E->sel[i]] += E->rc[i];
            E->rc_hist[(size_t)E->t * n + E->sel[i]] = E->rc[i];
        }
        if (E->rules) /* every reading of the cosine rule; the aggregation weight is known only now (FedFV sets it last) */
            for (int i = 0; i < K; i++) {
                double *h = E->rules_hist + ((size_t)E->t * n + E->sel[i]) * FLCE_NRULES;
                memcpy(h, E->rules + (size_t)i * FLCE_NRULES, sizeof(double) * FLCE_NRULES);
                h[FLCE_RULE_WEIGHT] = E->omega[i];
            }
        memcpy(E->global, E->newg, E->S * 4);
        /* bytes: the model down to every selected client, models and prototypes up */
        int nprot = 0;
        for (size_t i = 0; i < (size_t)n * C; i++) nprot += E->present[i];
        m->bytes_down = (int64_t)K * (int64_t)E->S * 4;
        m->bytes_up = (int64_t)K * (int64_t)E->S * 4 + (int64_t)nprot * d * 4;
        m->fallback = E->fallback;
        if (E->algo->report) E->algo->report(E, m);
        double ls = 0;
        for (int i = 0; i < K; i++) ls += E->losses[i];
        m->mean_loss = ls / K;
        flce_model_set_state(&E->m, E->global);
        if (E->t + 1 < E->cfg->test_from) { /* a round the caller does not read (flce truth's, before its window) */
            m->acc = m->macro_f1 = NAN;
            if (E->test_loss) E->test_loss[E->t] = NAN;
        } else if ((st = eng_agree(E, eng_memo_evaluate(E, &m->acc, &m->macro_f1, E->test_loss ? &E->test_loss[E->t] : NULL, e), e)))
            break;
        for (int k = 0; k < n; k++) run[k] = E->algo->flags & FLCE_M_CLAMP ? fmax(0, E->contrib_sum[k]) : E->contrib_sum[k];
        flce_normalize(run, all, n);
        m->kl = flce_kl(run, Qd, n, NULL);
        if ((st = eng_agree(E, E->writer ? eng_write_round(E, selrow, e) : FLCE_OK, e))) break;
        if (progress && E->writer) progress(ud, m, E->T, now_s() - t_start);
        /* fault injection for the crash tests (documented in docs/formats.md): die as a SIGKILL
         * would, after round N */
        const char *kill = getenv("FLCE_TEST_KILL_AFTER"), *kr = getenv("FLCE_TEST_KILL_RANK");
        if (kill && atoi(kill) == E->t + 1 && (!kr || (E->comm && atoi(kr) == E->comm->rank))) _exit(137);
        /* ... or stop as a SIGSTOP would (the --mpi-timeout test): that rank, after round N */
        const char *stop = getenv("FLCE_TEST_STOP_AFTER"), *sr = getenv("FLCE_TEST_STOP_RANK");
        if (stop && atoi(stop) == E->t + 1 && E->comm && sr && atoi(sr) == E->comm->rank) raise(SIGSTOP);
    }
    free(Qd), free(run), free(all), free(selrow);
    return st;
}

/* The summary's KL of the final contributions CE to the data shares (plain and diversity-weighted). */
static void summary_kl(engine *E, const double *CE, flce_run_summary *sum) {
    int n = E->n;
    double *shares = malloc(sizeof(double) * (size_t)n);
    sum->kl = sum->kl_div = NAN;
    if (!shares) return;
    const double *held = E->data_sizes ? E->data_sizes : E->sizes; /* the samples held, not a count reported */
    flce_data_shares(held, NULL, E->C, n, shares);
    sum->kl = flce_kl(CE, shares, n, NULL);
    flce_data_shares(held, E->held, E->C, n, shares);
    sum->kl_div = flce_kl(CE, shares, n, NULL);
    free(shares);
}

/* The rest of the summary from the rounds' metrics and the server seconds after the last round. */
static void summary_from_metrics(engine *E, double comp_s, flce_run_summary *sum) {
    int i0 = E->T < 10 ? 0 : E->T - 10;
    i0 = i0 > E->cfg->test_from - 1 ? i0 : E->cfg->test_from - 1; /* the rounds tested of the last ten */
    for (int i = i0; i < E->T; i++) {
        sum->final_acc += E->metrics[i].acc / (E->T - i0);
        sum->final_f1 += E->metrics[i].macro_f1 / (E->T - i0);
    }
    for (int i = 0; i < E->T; i++) sum->server_s += E->metrics[i].server_s, sum->client_s += E->metrics[i].client_s;
    sum->server_s += comp_s; /* the whole run's server time: the rounds and the work after them */
    sum->completion_s = comp_s;
    sum->rounds_done = E->T;
}

/* The end: final contributions, the checkpoint, digests.txt and the summary. */
static flce_status finish_run(engine *E, uint64_t d_part, uint64_t d_init, flce_run_summary *sum, flce_err *e) {
    int n = E->n;
    char p[1200];
    flce_status st;
    /* the end: contributions, checkpoint, digests */
    double *CE = malloc(sizeof(double) * (size_t)n), cs[2] = {0, NAN}, comp_s;
    if (!CE) {
        return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    }
    if ((st = final_contributions(E, CE, cs, e))) {
        free(CE);
        return st;
    }
    comp_s = cs[0];
    { /* the server's work after the last round (FLCE's completion; 0 for the others): not in
       * metrics.csv's per-round server seconds, so that the cost of the whole run is on record;
       * and that work as the paper describes it, where it differs (FLCE: one fixed-rank fit a class) */
        char ct[160];
        size_t len = 0;
        flce_catf(ct, sizeof ct, &len, "final_server_seconds %.6f\n", comp_s);
        if (isfinite(cs[1]) && cs[1] >= 0) flce_catf(ct, sizeof ct, &len, "final_server_seconds_paper %.6f\n", cs[1]);
        if ((st = eng_write_text(E, "costs.txt", ct, e))) {
            free(CE);
            return st;
        }
    }
    size_t cap = 64 + (size_t)n * 48, len = 0;
    char *csv = malloc(cap);
    flce_catf(csv, cap, &len, "client,contribution\n");
    for (int k = 0; k < n; k++) flce_catf(csv, cap, &len, "%d,%.17g\n", k, CE[k]);
    st = eng_write_text(E, "contributions.csv", csv, e);
    free(csv);
    if (!st && E->rules_hist) { /* contributions_rules.csv: each reading's per-round shares summed and normalised */
        size_t rcap = 128 + (size_t)n * (16 + 26 * FLCE_NRULES), rl = 0;
        char *rb = malloc(rcap);
        double *tot = flce_calloc((size_t)n * FLCE_NRULES, sizeof(double)), *col = malloc(sizeof(double) * (size_t)n);
        uint8_t *allk = malloc((size_t)n);
        if (!rb || !tot || !col || !allk) st = flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
        for (int r = 0; !st && r < FLCE_NRULES; r++) {
            for (int k = 0; k < n; k++) {
                col[k] = 0, allk[k] = 1;
                for (int t = 0; t < E->T; t++) {
                    double v = E->rules_hist[((size_t)t * n + k) * FLCE_NRULES + r];
                    if (!isnan(v)) col[k] += v;
                }
            }
            flce_normalize(col, allk, n);
            for (int k = 0; k < n; k++) tot[(size_t)k * FLCE_NRULES + r] = col[k];
        }
        if (!st) {
            flce_catf(rb, rcap, &rl, "client");
            for (int r = 0; r < FLCE_NRULES; r++) flce_catf(rb, rcap, &rl, ",%s", FLCE_RULE_NAMES[r]);
            flce_catf(rb, rcap, &rl, "\n");
            for (int k = 0; k < n; k++) {
                flce_catf(rb, rcap, &rl, "%d", k);
                for (int r = 0; r < FLCE_NRULES; r++) flce_catf(rb, rcap, &rl, ",%.17g", tot[(size_t)k * FLCE_NRULES + r]);
                flce_catf(rb, rcap, &rl, "\n");
            }
            st = eng_write_text(E, "contributions_rules.csv", rb, e);
        }
        free(rb), free(tot), free(col), free(allk);
    }
    flce_model_set_state(&E->m, E->global);
    snprintf(p, sizeof p, "%s/model.safetensors", E->dir);
    if (!st) st = flce_model_save(&E->m, p, e);
    summary_kl(E, CE, sum);
    if (!st) {
        char dg[1024], h[6][17];
        flce_digest_hex(d_part, h[0]);
        flce_digest_hex(d_init, h[1]);
        flce_digest_hex(flce_digest(E->global, E->S * 4), h[2]);
        snprintf(p, sizeof p, "%s/trace", E->dir);
        flce_digest_hex((E->algo->flags & FLCE_M_PROTOTYPES) ? flce_trace_digest(p) : 0, h[3]);
        flce_digest_hex(flce_digest(CE, sizeof(double) * (size_t)n), h[4]);
        snprintf(dg, sizeof dg,
                 "partition %s\ninitial_model %s\nfinal_model %s\ntrace %s\ncontributions %s\n", h[0], h[1], h[2],
                 (E->algo->flags & FLCE_M_PROTOTYPES) ? h[3] : "none", h[4]);
        st = eng_write_text(E, "digests.txt", dg, e);
    }
    free(CE);
    summary_from_metrics(E, comp_s, sum);
    return st;
}

/* --resume on a finished run (all rounds done, digests.txt written): its files are left as they
 * are and the summary is read from them. It once redid the last step: FLCE's completion ran and
 * was timed again (costs.txt and completion.json rewritten with the new, busier machine's
 * seconds), and a build whose completion differs rewrote contributions.csv and digests.txt. The
 * contributions read must be those digests.txt names. */
static flce_status finished_summary(engine *E, flce_run_summary *sum, flce_err *e) {
    int n = E->n;
    char p[1200], line[256], why[96];
    snprintf(p, sizeof p, "%s/contributions.csv", E->dir);
    FILE *f = flce_fopen_regular(p, why, sizeof why);
    if (!f) return flce_fail(e, FLCE_ERR_IO, "%s: cannot open: %s", p, why);
    double *CE = flce_calloc((size_t)n, sizeof *CE);
    if (!CE) {
        fclose(f);
        return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    }
    int got = 0, k;
    double v;
    if (!fgets(line, sizeof line, f)) line[0] = '\0';
    while (got >= 0 && fgets(line, sizeof line, f)) { /* rows 0, 1, ... n - 1 in order, nothing else */
        if (sscanf(line, "%d,%lf", &k, &v) == 2 && k == got && got < n) CE[got++] = v;
        else got = -1;
    }
    fclose(f);
    char want[17] = "", have[17];
    snprintf(p, sizeof p, "%s/digests.txt", E->dir);
    if ((f = flce_fopen_regular(p, why, sizeof why))) {
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "contributions %16s", want) == 1) break;
        fclose(f);
    }
    flce_digest_hex(flce_digest(CE, sizeof(double) * (size_t)n), have);
    if (got != n || strcmp(want, have)) {
        free(CE);
        return flce_fail(e, FLCE_ERR_FORMAT,
                         "%s: finished, but its contributions.csv is not the one its digests.txt names: changed since (rerun with --force)", E->dir);
    }
    summary_kl(E, CE, sum);
    free(CE);
    double comp_s = 0;
    snprintf(p, sizeof p, "%s/costs.txt", E->dir);
    if ((f = flce_fopen_regular(p, NULL, 0))) {
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "final_server_seconds %lf", &comp_s) == 1) break;
        fclose(f);
    }
    summary_from_metrics(E, comp_s, sum);
    sum->already_finished = 1;
    return FLCE_OK;
}

flce_status flce_run_check(const flce_run_cfg *cfg, flce_err *e) {
    const flce_method *algo;
    return validate(cfg, &algo, e);
}

flce_status flce_run(const flce_run_cfg *cfg, flce_progress_fn progress, void *ud, flce_run_summary *sum, flce_err *e) {
    engine E0, *E = &E0;
    memset(E, 0, sizeof *E);
    memset(sum, 0, sizeof *sum);
    E->cfg = cfg;
    E->fd_proto = E->fd_proto_alt = E->fd_proto_first = E->fd_sel = E->fd_lock = -1;
    E->comm = cfg->comm;
    E->writer = !cfg->comm || cfg->comm->rank == 0;
    flce_status st = validate(cfg, &E->algo, e);
    if (st) return st;
    /* the run folder before the data are read: an output that cannot be written is said at once,
     * not after minutes of loading (under mpirun every rank agrees on it where it agreed before,
     * after the checks that the ranks run one program on one data set) */
    flce_err de = {{0}};
    flce_status dir_st = eng_check_dir(E, &de);
    if (dir_st && (!E->comm || E->comm->size < 2)) {
        *e = de, st = dir_st;
        goto out;
    }
    if ((st = setup_data(E, e))) goto out;
    if ((st = eng_same_everywhere(E, e))) goto out;
    if (dir_st) *e = de;
    if ((st = eng_agree(E, dir_st, e))) goto out;
    /* the backend after the run folder is checked and before anything is written into it: an
     * unusable --backend or --device leaves nothing behind (--force deletes nothing) */
    if (!(E->be = cfg->backend(cfg->backend_ud, e))) {
        st = FLCE_ERR_ARG; /* as every unusable --backend or --device */
        goto out;
    }
    if ((st = eng_agree(E, eng_make_dir(E, e), e))) goto out;
    E->n = cfg->clients, E->K = cfg->per_round, E->T = cfg->rounds, E->d = FLCE_FEAT;
    snprintf(sum->device, sizeof sum->device, "%s", E->be->device);
    if ((st = engine_alloc(E, e))) goto out;
    uint64_t d_init = flce_digest(E->global, E->S * 4), d_part = flce_partition_digest(&E->part);
    int done = 0;
    if ((st = eng_agree(E, eng_open_run_files(E, &done, e), e))) goto out;
    if ((st = eng_agree(E, eng_share_state(E, &done, e), e))) goto out;
    { /* fault injection for the crash tests (FLCE_TEST_KILL_AFTER=0: die before the first round) */
        const char *kill = getenv("FLCE_TEST_KILL_AFTER");
        if (kill && !strcmp(kill, "0") && done == 0) _exit(137);
    }
    E->t = done;
    E->memo = eng_memo_attach(E);
    if (cfg->resume && done == E->T) { /* finished already? (rank 0's folder says; every rank ends alike) */
        char p[1200];
        struct stat sb;
        snprintf(p, sizeof p, "%s/digests.txt", E->dir);
        int64_t fin = E->writer && stat(p, &sb) == 0;
        if (E->comm && (st = E->comm->sum_i64((flce_comm *)E->comm, &fin, 1, e))) goto out;
        if (fin) {
            if (E->writer) st = finished_summary(E, sum, e);
            if ((st = eng_agree(E, st, e))) goto out;
            goto out;
        }
    }
    if (progress) { /* the start, once the settings, the data and the folder are checked: elapsed -1, round = the rounds done */
        flce_round_metrics m0;
        memset(&m0, 0, sizeof m0);
        m0.round = E->t;
        m0.client_s = NAN;
        if (cfg->estimate && E->writer) m0.client_s = flce_eng_estimate(E, &m0.server_s, &m0.fallback);
        progress(ud, &m0, E->T, -1);
    }
    if ((st = run_rounds(E, progress, ud, e))) goto out;
    if (E->writer) st = finish_run(E, d_part, d_init, sum, e);
    else if (E->algo->final) { /* the other ranks: their share of the method's last step (FLCE's completion) */
        double *CE = malloc(sizeof(double) * (size_t)E->n), cs[2];
        st = CE ? E->algo->final(E, CE, cs, e) : flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
        free(CE);
    }
out:
    engine_free(E);
    return st;
}
