/* flce.c: FLCE, the method of the paper (docs/flce.md), every equation from reference/:
 *   client: L_CE + lambda L_CL (eq:method.losscl; lambda = 0 under the ablation -CL), then one
 *           prototype per class (eq:method.z, flce_prototypes): the mean feature of the local
 *           samples of class c that the trained model classifies as c, uploaded with the model;
 *   server: class contribution momentum Q = mass x velocity from the prototypes
 *           (eq:method.prototype_m_norm .. eq:method.prototype_p, flce_round), aggregation
 *           weights from it (eq:method.aggregation_model, flce_aggregation_weights); this
 *           round's contribution sum_c b_c Q;
 *   final:  the whole trace evaluated as `flce eval` does (flce_eval_trace: completion of the
 *           unselected clients' momentum, eq:prototype_p_complemention, then the totals).
 * Settings: --lambda, --tau (L_CL); the completion's (--rank, --mu, ...) are flce eval's too
 * (flce_completion_cfg). State: the global prototypes g [C][d] of eq:method.prototype_m_norm and
 * whether each class has one yet, in aux_d ([C][d] then [C] as 0/1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "method.h"
#include "npy.h"
#include "trace_io.h"

static const flce_setting LAMBDA = {"lambda", NULL, 1.0, 0, 1e6, 0, 0, "FLCE: weight of L_CL"};
static const flce_setting TAU = {"tau", NULL, 0.5, 0, 1e6, 1, 0, "FLCE: temperature of L_CL"};
/* the round's equations as the authors' released code computes them (docs/flce.md, "The released
 * code"); the words' indices are flce_round_rules' flags */
static const flce_setting VELOCITY = {"velocity", "squared|distance", 0, 0, 0, 0, 0,
                                      "FLCE: velocity ||p - g||^2 (squared, the text) or ||p - g|| (distance, the released code)"};
static const flce_setting ABSENT = {"absent-class", "keep|forget", 0, 0, 0, 0, 0,
                                    "FLCE: a class absent from a round keeps its global prototype (the text) or forgets it, one without taking g = 0 (the released code)"};
/* the released code's SupConLoss multiplies L_CL by tau (SupConLoss.py 10, 115-118) */
static const flce_setting CL_SCALE = {"cl-scale", "one|tau", 0, 0, 0, 0, 0, "FLCE: L_CL as the text writes it (one) or multiplied by tau (tau, the released code)"};
/* round 1's previous global prototypes (utils.py preprototype 195-289, algorithms/flce.py 173-176) */
static const flce_setting INITIAL = {"initial-prototypes", "none|initial-model", 0, 0, 0, 0, 0,
                                     "FLCE: round 1's previous global prototypes: none (the text: a uniform velocity) or from the initial model "
                                     "on round 1's clients (initial-model, the released code)"};
/* a guard against forged prototypes, not the paper's (docs/attacks.md, "The guard"): off (0) by default */
static const flce_setting PROTO_CLIP = {"prototype-clip", NULL, 0, 0, 1000, 0, 0,
                                        "FLCE guard, not the paper's: each class's uploaded prototypes shortened to at most this multiple of the "
                                        "round's lower median length (0: off; else at least 1)"};
static const flce_setting *const SETTINGS[] = {&LAMBDA, &TAU, &VELOCITY, &ABSENT, &CL_SCALE, &INITIAL, &PROTO_CLIP, NULL};

/* The trace's evaluation settings of this run: the completion's, its seed and prototype reading,
 * and the round's rules (what flce eval reads back from completion.json). */
static flce_completion_cfg run_cc(const engine *E) {
    flce_completion_cfg cc = E->cfg->completion;
    cc.seed = flce_train_seed(E->cfg), cc.proto_all = E->cfg->proto_all, cc.proto_first = E->cfg->proto_first;
    cc.rules.velocity_distance = flce_eng_setting(E, &VELOCITY) == 1;
    cc.rules.forget_absent = flce_eng_setting(E, &ABSENT) == 1;
    cc.initial_model = flce_eng_setting(E, &INITIAL) == 1;
    cc.rules.proto_clip = flce_eng_setting(E, &PROTO_CLIP);
    return cc;
}

/* The round's rules change the velocity: meaningless where -V or -Q leaves it out (refused as
 * the completion's settings are with -CMC). */
static flce_status flce_check(const flce_run_cfg *c, flce_err *e) {
    if ((c->ablate.no_velocity || c->ablate.no_momentum) && (flce_run_cfg_get(c, &VELOCITY) != 0 || flce_run_cfg_get(c, &ABSENT) != 0))
        return flce_fail(e, FLCE_ERR_ARG, "--velocity, --absent-class: rules of the velocity, and --ablate %s leaves it out",
                         c->ablate.no_velocity ? "V" : "Q");
    if ((c->ablate.no_velocity || c->ablate.no_momentum) && flce_run_cfg_get(c, &INITIAL) != 0)
        return flce_fail(e, FLCE_ERR_ARG, "--initial-prototypes: round 1's reference of the velocity, and --ablate %s leaves it out",
                         c->ablate.no_velocity ? "V" : "Q");
    double clip = flce_run_cfg_get(c, &PROTO_CLIP);
    if (clip > 0 && clip < 1)
        return flce_fail(e, FLCE_ERR_ARG, "--prototype-clip %g: 0 (off) or at least 1 (below 1 it would shorten the median prototype itself)", clip);
    if (clip > 0 && (c->ablate.no_momentum || (c->ablate.no_mass && c->ablate.no_velocity)))
        return flce_fail(e, FLCE_ERR_ARG, "--prototype-clip: a guard of the momentum, and --ablate %s leaves it out",
                         c->ablate.no_momentum ? "Q" : "M and V");
    return FLCE_OK;
}

static void flce_state_size(const engine *E, size_t *f, size_t *d) {
    *f = 0;
    *d = (size_t)E->C * E->d + (size_t)E->C;
}

/* The ablations as flce eval reads them from completion.json ("M V Q CMC"). */
static void ablate_text(const flce_run_cfg *c, char *b, size_t cap) {
    snprintf(b, cap, "%s%s%s%s", c->ablate.no_mass ? "M " : "", c->ablate.no_velocity ? "V " : "",
             c->ablate.no_momentum ? "Q " : "", c->ablate.no_completion ? "CMC" : "");
}

/* trace/completion.json with the settings (the choices follow at the end). */
static flce_status flce_open(engine *E, flce_err *e) {
    if (!E->writer) return FLCE_OK;
    char p[1200], ab[32];
    flce_completion_cfg cc = run_cc(E);
    ablate_text(E->cfg, ab, sizeof ab);
    snprintf(p, sizeof p, "%s/trace/completion.json", E->dir);
    return flce_completion_record(p, &cc, ab, 0, NULL, NULL, e);
}

static flce_status flce_local_step(engine *E, int slot, int nb, int first, flce_losses *l, flce_err *e) {
    float lambda = E->cfg->ablate_cl ? 0.0f : (float)flce_eng_setting(E, &LAMBDA), tau = (float)flce_eng_setting(E, &TAU);
    if (flce_eng_setting(E, &CL_SCALE) == 1) lambda = lambda * tau; /* lambda tau L_CL: the gradient and the loss alike */
    return flce_eng_sgd_step(E, nb, first, lambda, tau, l, e);
}

/* eq:method.z over all local samples, the trained model in evaluation mode. */
static flce_status flce_client_end(engine *E, int slot, flce_err *e) {
    int k = E->sel[slot], C = E->C, d = E->d, B = E->cfg->eval_batch;
    int64_t nk = flce_eng_client_size(E, k);
    float *z = malloc(sizeof(float) * (size_t)(nk ? nk : 1) * d);
    int *label = malloc(sizeof(int) * (size_t)(nk ? nk : 1)), *pred = malloc(sizeof(int) * (size_t)(nk ? nk : 1));
    int *count = malloc(sizeof(int) * (size_t)C), *held = flce_calloc((size_t)C, sizeof(int));
    int32_t *y = malloc(sizeof(int32_t) * (size_t)B);
    flce_status st = FLCE_OK;
    if (!z || !label || !pred || !count || !held || !y) st = flce_fail(e, FLCE_ERR_NOMEM, "prototypes: out of memory");
    for (int64_t i0 = 0; i0 < nk && !st; i0 += B) {
        int nb = (int)(nk - i0 < B ? nk - i0 : B);
        flce_eng_gather(E, k, i0, nb, y);
        if ((st = flce_model_eval(&E->m, nb, E->bx, E->logits, z + (size_t)i0 * d, e))) break;
        for (int i = 0; i < nb; i++) {
            const float *l = E->logits + (size_t)i * C;
            int p = 0;
            for (int c = 1; c < C; c++)
                if (l[c] > l[p]) p = c;
            label[i0 + i] = y[i], pred[i0 + i] = p;
            held[y[i]]++;
        }
    }
    int *fc = st ? NULL : malloc(sizeof(int) * (size_t)C);
    if (!st && !fc) st = flce_fail(e, FLCE_ERR_NOMEM, "prototypes: out of memory");
    if (!st) { /* the readings from the same features: the run's (uploaded, aggregated with), the other of
                * correct and all (the trace's prototypes_alt.npy; correct when the run's is first) and the
                * released code's first correct sample (prototypes_first.npy), for flce eval --proto-samples */
        const flce_run_cfg *c0 = E->cfg;
        float *mine = E->protos + (size_t)k * C * d, *other = E->protos_alt + (size_t)k * C * d, *first = E->protos_first + (size_t)k * C * d;
        flce_prototypes(z, label, pred, (int)nk, d, C, c0->proto_all || c0->proto_first ? other : mine, count); /* correct: the text */
        for (int c = 0; c < C; c++) E->slot_value[slot] += held[c] > 0 && count[c] == 0; /* held, none classified right */
        if (!c0->proto_first) flce_prototypes(z, label, label, (int)nk, d, C, c0->proto_all ? mine : other, held); /* all: the equation */
        flce_prototypes_first(z, label, pred, (int)nk, d, C, first, fc); /* the released code's */
        if (c0->proto_first) memcpy(mine, first, sizeof(float) * (size_t)C * d);
        for (int c = 0; c < C; c++) E->present[(size_t)k * C + c] = (c0->proto_all ? held[c] : c0->proto_first ? fc[c] : count[c]) > 0;
    }
    free(fc);
    free(z), free(label), free(pred), free(count), free(held), free(y);
    return st;
}

/* The released code's round 1 (utils.py preprototype 195-289, called at algorithms/flce.py 173-176;
 * docs/flce.md): before training, each client of round 1 passes its data through the initial
 * model in training mode (BatchNorm on each batch's own statistics) and keeps, of each class, the
 * feature of the first sample the model classifies right; a class's g^0 is the unweighted mean of
 * those over the round's clients that have one (tools.py 123-141). Here in the client's data order,
 * batches of --batch, one pass or the first --local-steps batches where fewer (the released
 * loader's order cannot be checked: its datasets/feddata.py is missing). The server computes it,
 * on every process (each holds every client's data), so nothing more travels; its seconds count in
 * round 1's server time. E->m is left holding the global model. */
static flce_status initial_prototypes(engine *E, double *g, uint8_t *has_g, flce_err *e) {
    int C = E->C, d = E->d, B = E->cfg->batch, steps = E->cfg->local_steps;
    double *sum = flce_calloc((size_t)C * d, sizeof *sum);
    float *z = malloc(sizeof *z * (size_t)B * d), *lg = malloc(sizeof *lg * (size_t)B * C), *first = malloc(sizeof *first * (size_t)C * d);
    int *cnt = flce_calloc((size_t)C, sizeof *cnt);
    uint8_t *got = malloc((size_t)C);
    flce_status st = sum && z && lg && first && cnt && got ? FLCE_OK : flce_fail(e, FLCE_ERR_NOMEM, "initial prototypes: out of memory");
    for (int i = 0; i < E->K && !st; i++) {
        int k = E->sel[i], nbatch = 0;
        int64_t nk = flce_eng_client_size(E, k);
        flce_model_set_state(&E->m, E->global);
        memset(got, 0, (size_t)C);
        for (int64_t i0 = 0; i0 < nk && (!steps || nbatch < steps) && !st; i0 += B, nbatch++) {
            int nb = (int)(nk - i0 < B ? nk - i0 : B);
            flce_eng_gather(E, k, i0, nb, E->by);
            if ((st = flce_model_forward_train(&E->m, nb, E->bx, E->by, e))) break;
            flce_model_read_logits(&E->m, lg), flce_model_read_features(&E->m, z);
            for (int j = 0; j < nb; j++) {
                int p = 0, y = E->by[j];
                for (int c = 1; c < C; c++)
                    if (lg[(size_t)j * C + c] > lg[(size_t)j * C + p]) p = c;
                if (p == y && !got[y]) got[y] = 1, memcpy(first + (size_t)y * d, z + (size_t)j * d, sizeof *z * (size_t)d);
            }
        }
        for (int c = 0; c < C && !st; c++)
            if (got[c]) {
                cnt[c]++;
                for (int j = 0; j < d; j++) sum[(size_t)c * d + j] += first[(size_t)c * d + j];
            }
    }
    for (int c = 0; c < C && !st; c++) {
        has_g[c] = cnt[c] > 0;
        for (int j = 0; j < d; j++) g[(size_t)c * d + j] = cnt[c] ? sum[(size_t)c * d + j] / cnt[c] : 0;
    }
    flce_model_set_state(&E->m, E->global); /* the running statistics the passes moved */
    free(sum), free(z), free(lg), free(first), free(cnt), free(got);
    return st;
}

/* trace/initial_prototypes.npy: g^0 [C][d] as float64, NaN rows for the classes without one. */
static flce_status initial_record(engine *E, const double *g, const uint8_t *has_g, flce_err *e) {
    size_t m = (size_t)E->C * E->d;
    double *v = malloc(sizeof *v * m);
    if (!v) return flce_fail(e, FLCE_ERR_NOMEM, "initial prototypes: out of memory");
    for (size_t i = 0; i < m; i++) v[i] = has_g[i / E->d] ? g[i] : NAN;
    char p[1200];
    snprintf(p, sizeof p, "%s/trace/initial_prototypes.npy", E->dir);
    flce_status st = flce_npy_write(p, FLCE_NPY_F64, 2, (int64_t[]){E->C, E->d}, v, e);
    free(v);
    return st;
}

static flce_status flce_server(engine *E, flce_err *e) {
    int n = E->n, C = E->C, K = E->K;
    double *Q = malloc(sizeof *Q * (size_t)n * C), *Qs = malloc(sizeof *Qs * (size_t)K * C), *sz = malloc(sizeof *sz * (size_t)K);
    double *g = E->aux_d, *has = E->aux_d + (size_t)C * E->d; /* the state: g, and which classes have one */
    uint8_t *has_g = malloc((size_t)C);
    if (!Q || !Qs || !sz || !has_g) {
        free(Q), free(Qs), free(sz), free(has_g);
        return flce_fail(e, FLCE_ERR_NOMEM, "server: out of memory");
    }
    for (int c = 0; c < C; c++) has_g[c] = has[c] != 0;
    flce_status st = FLCE_OK;
    if (E->t == 0 && flce_eng_setting(E, &INITIAL) == 1) {
        st = initial_prototypes(E, g, has_g, e);
        if (!st && E->writer) st = initial_record(E, g, has_g, e);
    }
    /* the same call flce eval makes on the trace: all n clients, absent ones not present */
    flce_completion_cfg cc = run_cc(E);
    if (!st) st = flce_round(E->protos, E->present, n, C, E->d, &E->cfg->ablate, &cc.rules, g, has_g, Q, e);
    for (int c = 0; c < C; c++) has[c] = has_g[c];
    if (!st) {
        for (int i = 0; i < K; i++) {
            memcpy(Qs + (size_t)i * C, Q + (size_t)E->sel[i] * C, sizeof *Qs * (size_t)C);
            sz[i] = E->sizes[E->sel[i]];
        }
        E->fallback = flce_aggregation_weights(Qs, K, C, sz, E->omega); /* eq:method.aggregation_model */
        for (int i = 0; i < K; i++) { /* this round's share before completion: sum_c b_c Q */
            E->rc[i] = 0;
            for (int c = 0; c < C; c++)
                E->rc[i] += (E->cfg->class_weights ? E->cfg->class_weights[c] : 1.0 / C) * Qs[(size_t)i * C + c];
        }
        int slots[32];
        for (int i = 0; i < K; i++) slots[i] = i;
        flce_eng_aggregate(E, E->omega, K, slots, E->newg);
    }
    free(Q), free(Qs), free(sz), free(has_g);
    return st;
}

/* metrics.csv's prototypes_none_correct: the round's (client, class held) pairs with no prototype */
static void flce_report(engine *E, flce_round_metrics *m) {
    for (int i = 0; i < E->K; i++) m->proto_nocorrect += (int)E->slot_value[i];
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* From the trace the run wrote, by the evaluator, so that `flce eval DIR/trace` gives the same
 * numbers; the completion's choices, Q and the completed matrix beside it. */
/* Several processes (mpirun): the classes' completions shared out, class c on rank c % P. Rank
 * 0 computes the momentum Q from the trace it wrote (tr0) and sends Q, the selection and which
 * prototypes were there; each rank completes its classes; every class's results are then summed
 * over the ranks as 64-bit integers holding their bits, 0 on the ranks that did not compute
 * them, which leaves every slot exactly as its rank computed it: res is then, on every rank,
 * byte for byte what one process computes. */
static flce_status share_sum(engine *E, int64_t *v, size_t n, flce_err *e) {
    for (size_t i = 0; i < n; i += (size_t)1 << 24) { /* messages of at most 128 MiB */
        size_t m = n - i < ((size_t)1 << 24) ? n - i : (size_t)1 << 24;
        flce_status st = E->comm->sum_i64((flce_comm *)E->comm, v + i, (int)m, e);
        if (st) return st;
    }
    return FLCE_OK;
}
static flce_status share_bcast(engine *E, void *buf, size_t bytes, flce_err *e) {
    for (size_t i = 0; i < bytes; i += (size_t)1 << 27) {
        size_t m = bytes - i < ((size_t)1 << 27) ? bytes - i : (size_t)1 << 27;
        flce_status st = E->comm->bcast((flce_comm *)E->comm, (char *)buf + i, m, 0, e);
        if (st) return st;
    }
    return FLCE_OK;
}
static flce_status eval_spread(engine *E, const flce_trace *tr0, const flce_completion_cfg *cc, flce_eval_result *res,
                               flce_err *e) {
    int T = E->T, n = E->n, C = E->C, P = E->comm->size, me = E->comm->rank, G = FLCE_CV_NRANKS * FLCE_CV_NMUS;
    size_t tn = (size_t)T * n, tnc = tn * C, per = 4 + (size_t)G; /* per class: rank, iters, mu, cv_error, grid */
    flce_eval_result r0 = {0};
    flce_completion_cfg c0 = *cc;
    c0.part = -1; /* rank 0: the momentum only, no class completed */
    flce_status st = me == 0 ? flce_eval_trace(tr0, &E->cfg->ablate, &c0, &r0, e) : FLCE_OK;
    double *Q = malloc(sizeof(double) * tnc);
    uint8_t *sel = malloc(tn), *pres = malloc(tnc);
    int64_t *bits = malloc(sizeof(int64_t) * (tnc + per * (size_t)C + 1));
    if (!st && (!Q || !sel || !pres || !bits)) st = flce_fail(e, FLCE_ERR_NOMEM, "out of memory for the completion's share");
    if (!st && me == 0) {
        memcpy(Q, r0.Q, sizeof(double) * tnc), memcpy(sel, tr0->selected, tn);
        for (size_t i = 0; i < tnc; i++) /* a prototype there: not NaN (rank 0's pass checked it is all or nothing) */
            pres[i] = sel[i / C] && !isnan(tr0->prototypes[i * (size_t)E->d]);
    }
    if ((st = flce_eng_agree(E, st, e))) goto out;
    if ((st = share_bcast(E, Q, sizeof(double) * tnc, e)) || (st = share_bcast(E, sel, tn, e)) ||
        (st = share_bcast(E, pres, tnc, e)))
        goto out;
    flce_trace tr = {T, n, C, 0, NULL, sel, NULL, tr0->class_weights, Q, pres, NULL}; /* initial_g: in rank 0's Q */
    flce_completion_cfg cp = *cc;
    cp.part = me, cp.parts = P;
    flce_ablation qa = {0, 0, 0, E->cfg->ablate.no_completion}; /* M, V, Q: already in rank 0's Q */
    st = flce_eng_agree(E, flce_eval_trace(&tr, &qa, &cp, res, e), e);
    if (st) goto out;
    memcpy(bits, res->X, sizeof(double) * tnc); /* another rank's class: 0 there (flce_eval_trace) */
    for (int c = 0; c < C; c++) {
        int64_t *b = bits + tnc + per * (size_t)c;
        memset(b, 0, sizeof(int64_t) * per);
        if (c % P != me) continue;
        b[0] = res->rank[c], b[1] = res->iters[c];
        memcpy(b + 2, &res->mu[c], 8), memcpy(b + 3, &res->cv_error[c], 8);
        memcpy(b + 4, res->cv_grid + (size_t)c * G, sizeof(double) * (size_t)G);
    }
    bits[tnc + per * (size_t)C] = me == 0 ? r0.fallback_rounds : 0;
    if ((st = share_sum(E, bits, tnc + per * (size_t)C + 1, e))) goto out;
    memcpy(res->X, bits, sizeof(double) * tnc);
    for (int c = 0; c < C; c++) {
        const int64_t *b = bits + tnc + per * (size_t)c;
        res->rank[c] = (int)b[0], res->iters[c] = (int)b[1];
        memcpy(&res->mu[c], b + 2, 8), memcpy(&res->cv_error[c], b + 3, 8);
        memcpy(res->cv_grid + (size_t)c * G, b + 4, sizeof(double) * (size_t)G);
    }
    res->fallback_rounds = bits[tnc + per * (size_t)C];
    st = flce_final_contribution(res->X, T, n, C, NULL, tr0->class_weights, res->CE, e);
out:
    if (st && res->X) flce_eval_result_free(res);
    flce_eval_result_free(&r0);
    free(Q), free(sel), free(pres), free(bits);
    return st;
}

static flce_status flce_final(engine *E, double *CE, double comp_s[2], flce_err *e) {
    char p[1200], ab[32];
    int n = E->n, spread = E->comm && E->comm->size > 1;
    flce_npy pr = {0}, se = {0}, g0 = {0};
    flce_status st = FLCE_OK;
    if (E->writer) { /* the trace this run wrote (rank 0's) */
        snprintf(p, sizeof p, "%s/trace/prototypes.npy", E->dir);
        st = flce_npy_read(p, &pr, e);
        snprintf(p, sizeof p, "%s/trace/selected.npy", E->dir);
        if (!st) st = flce_npy_read(p, &se, e);
        snprintf(p, sizeof p, "%s/trace/initial_prototypes.npy", E->dir);
        if (!st && flce_eng_setting(E, &INITIAL) == 1) st = flce_npy_read(p, &g0, e);
    }
    if (spread) st = flce_eng_agree(E, st, e);
    if (!st) {
        flce_trace tr = {E->T, n, E->C, E->d, pr.data, se.data, NULL, E->cfg->class_weights, NULL, NULL, g0.data};
        flce_completion_cfg cc = run_cc(E);
        flce_eval_result res = {0};
        double t0 = now_s();
        st = spread ? eval_spread(E, &tr, &cc, &res, e) : flce_eval_trace(&tr, &E->cfg->ablate, &cc, &res, e);
        comp_s[0] = now_s() - t0;
        if (!E->writer) { /* its share is done: rank 0 writes the results */
            if (!st) flce_eval_result_free(&res);
            return st;
        }
        if (!st && !E->cfg->ablate.no_completion && !cc.rank_auto && !cc.mu_auto) comp_s[1] = comp_s[0]; /* one fit a class already */
        else if (!st && !E->cfg->ablate.no_completion) { /* the paper's completion, timed for the cost claim: one fit a
                                                      * class at the rule's rank, mu 0.01 (its results are not used;
                                                      * in one process) */
            flce_completion_cfg pc = cc;
            flce_eval_result pres;
            pc.rank_auto = pc.mu_auto = 0, pc.rank = 0, pc.mu = 1e-2, pc.literal = 0;
            t0 = now_s();
            flce_status ps = flce_eval_trace(&tr, &E->cfg->ablate, &pc, &pres, e);
            comp_s[1] = now_s() - t0;
            if (ps) comp_s[1] = NAN, st = ps;
            else flce_eval_result_free(&pres);
        }
        if (!st) {
            memcpy(CE, res.CE, sizeof *CE * (size_t)n);
            snprintf(p, sizeof p, "%s/trace/completion.json", E->dir); /* the settings, and what auto chose */
            ablate_text(E->cfg, ab, sizeof ab);
            st = flce_completion_record(p, &cc, ab, E->C, &res, NULL, e);
            int64_t shp[3] = {E->T, n, E->C};
            snprintf(p, sizeof p, "%s/trace/Q.npy", E->dir);
            if (!st) st = flce_npy_write(p, FLCE_NPY_F64, 3, shp, res.Q, e);
            snprintf(p, sizeof p, "%s/trace/X_completed.npy", E->dir);
            if (!st) st = flce_npy_write(p, FLCE_NPY_F64, 3, shp, res.X, e);
            flce_eval_result_free(&res);
        }
    }
    flce_npy_free(&pr), flce_npy_free(&se), flce_npy_free(&g0);
    return st;
}

const flce_method flce_method_flce = {
    .name = "flce",
    .summary = "FLCE: class contribution momentum from prototypes; aggregation and completed contributions from it",
    .color = "#e15759",
    .flags = FLCE_M_PROTOTYPES,
    .released_schedule = 1, /* algorithms/flce.py 107-120: rounds 1-5 take clients 0-9, ..., 40-49 */
    .settings = SETTINGS,
    .check = flce_check,
    .state_size = flce_state_size,
    .open = flce_open,
    .local_step = flce_local_step,
    .client_end = flce_client_end,
    .server = flce_server,
    .report = flce_report,
    .final = flce_final,
};
