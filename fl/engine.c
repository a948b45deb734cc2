/* engine.c: the federated engine (see engine.h). One round:
 *   1. select K of n clients (stream select, round t), ascending client order;
 *   2. each selected client loads the global model and runs E local epochs of SGD over its
 *      data in a seeded order (stream batch, round t, client k), with L_CE + lambda L_CL
 *      for FLCE and L_CE otherwise; FLCE clients then compute their prototypes;
 *   3. the algorithm's server step gives aggregation weights and the round's contributions;
 *      the new global model (all parameters and BatchNorm statistics) is the weighted sum;
 *   4. the global model is evaluated on the test set; files are written. */
#include "engine.h"
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
#include <xxhash.h>

#include "json.h"
#include "npy.h"
#include "ops.h"

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
    c->lambda = 1.0;
    c->tau = 0.5;
    c->seed = 1;
    c->mc_perms = 50;
    c->mc_eps = 0.001;
    c->eval_batch = 256;
    c->prox_mu = 0.01;
    c->ditto_lambda = 1.0;
    c->moon_mu = 1.0;
    c->moon_tau = 0.5;
    flce_completion_cfg_default(&c->completion);
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- evaluation ----------------------------------------------------------------------- */
/* With spread (several processes, no loss asked for): batch b on rank b mod P, the counts
 * summed over the ranks; accuracy and F1 come from integer counts, so the same bits. */
static flce_status evaluate(engine *E, flce_model *model, const float *x, const int32_t *y, int n, double *acc, double *f1,
                            double *loss, int spread, flce_err *e) {
    int C = E->C, B = E->cfg->eval_batch, P = spread && !loss && E->comm ? E->comm->size : 1, me = P > 1 ? E->comm->rank : 0;
    int64_t *cnt = flce_calloc((size_t)3 * C + 1, 8), *tp = cnt, *fp = cnt + C, *fn = cnt + 2 * C, right = 0;
    if (!cnt) return flce_fail(e, FLCE_ERR_NOMEM, "evaluate: out of memory");
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

flce_status flce_eng_evaluate(engine *E, flce_model *model, const float *x, const int32_t *y, int n, double *acc,
                              double *f1, double *loss, flce_err *e) {
    return evaluate(E, model, x, y, n, acc, f1, loss, 0, e);
}

flce_status flce_eng_evaluate_client(engine *E, int k, double *acc, double *loss, flce_err *e) {
    int64_t lo = E->part.offsets[k], nk = E->part.offsets[k + 1] - lo;
    int B = E->cfg->eval_batch, C = E->C;
    int64_t right = 0;
    double ls = 0;
    for (int64_t i0 = 0; i0 < nk; i0 += B) {
        int nb = (int)(nk - i0 < B ? nk - i0 : B);
        for (int i = 0; i < nb; i++)
            memcpy(E->bx + (size_t)i * E->CHW, E->train_x + (size_t)E->part.index[lo + i0 + i] * E->CHW, sizeof(float) * (size_t)E->CHW);
        flce_status st = flce_model_eval(&E->m, nb, E->bx, E->logits, NULL, e);
        if (st) return st;
        for (int i = 0; i < nb; i++) {
            int y = E->entry_y[lo + i0 + i], p;
            ls += flce_eng_logit_loss(E->logits + (size_t)i * C, C, y, &p);
            right += p == y;
        }
    }
    *acc = nk ? (double)right / (double)nk : 0;
    *loss = nk ? ls / (double)nk : 0;
    return FLCE_OK;
}

void flce_eng_add_prox(engine *E, flce_model *m, const float *ref, float mu) {
    size_t o = 0;
    for (int i = 0; i < m->nparams; i++) {
        flce_param *p = &m->p[i];
        if (p->trainable) {
            float *w = E->dzx, *g = E->dzx + p->n;
            m->be->buf_read(m->be, p->w, 0, w, p->n * sizeof(float));
            m->be->buf_read(m->be, p->g, 0, g, p->n * sizeof(float));
            flce_prox_grad(p->n, g, w, ref + o, mu);
            m->be->buf_write(m->be, p->g, 0, g, p->n * sizeof(float));
        }
        o += p->n;
    }
}

int64_t flce_eng_client_size(const engine *E, int k) { return E->part.offsets[k + 1] - E->part.offsets[k]; }

void flce_eng_gather(engine *E, int k, int64_t i0, int nb, int32_t *y) {
    int64_t lo = E->part.offsets[k] + i0;
    for (int i = 0; i < nb; i++) {
        memcpy(E->bx + (size_t)i * E->CHW, E->train_x + (size_t)E->part.index[lo + i] * E->CHW, sizeof(float) * (size_t)E->CHW);
        if (y) y[i] = E->entry_y[lo + i];
    }
}

flce_status flce_eng_sgd_step(engine *E, int nb, int first, float lambda, flce_losses *l, flce_err *e) {
    flce_status st = flce_model_forward_backward(&E->m, nb, E->bx, E->by, lambda, (float)E->cfg->tau, l, e);
    if (!st) flce_model_sgd(&E->m, (float)E->cfg->lr, 0.0f, 0.0f, first);
    return st;
}

/* ---- local training ------------------------------------------------------------------- */
/* Slot i's client: E local epochs over its data in a seeded order (stream batch, round t,
 * client k), the method's hooks around and inside, the upload into E->states[i]. */
static flce_status client_update(engine *E, int slot, flce_err *e) {
    const flce_run_cfg *cfg = E->cfg;
    const flce_method *M = E->algo;
    int k = E->sel[slot];
    int64_t lo = E->part.offsets[k], nk = E->part.offsets[k + 1] - lo;
    flce_status st;
    flce_model_set_state(&E->m, E->global);
    if (M->client_begin && (st = M->client_begin(E, slot, e))) return st;
    flce_rng r;
    flce_rng_init(&r, cfg->seed, FLCE_RNG_BATCH, (uint32_t)E->t, (uint32_t)k);
    double lsum = 0;
    int nbatches = 0, first = 1;
    for (int ep = 0; ep < cfg->epochs; ep++) {
        flce_rng_permutation(&r, (int)nk, E->perm);
        for (int64_t b0 = 0; b0 < nk; b0 += cfg->batch) {
            int nb = (int)(nk - b0 < cfg->batch ? nk - b0 : cfg->batch);
            for (int i = 0; i < nb; i++) {
                int64_t ent = lo + E->perm[b0 + i];
                memcpy(E->bx + (size_t)i * E->CHW, E->train_x + (size_t)E->part.index[ent] * E->CHW, sizeof(float) * (size_t)E->CHW);
                E->by[i] = E->entry_y[ent];
            }
            flce_losses l;
            st = M->local_step ? M->local_step(E, slot, nb, first, &l, e) : flce_eng_sgd_step(E, nb, first, 0.0f, &l, e);
            if (st) return st;
            first = 0;
            lsum += l.loss;
            nbatches++;
        }
    }
    E->losses[slot] = nbatches ? lsum / nbatches : 0;
    if (M->client_end && (st = M->client_end(E, slot, e))) return st;
    flce_model_get_state(&E->m, E->states + (size_t)slot * E->S);
    return FLCE_OK;
}

/* ---- files ---------------------------------------------------------------------------- */
static flce_status write_text(engine *E, const char *name, const char *text, flce_err *e) {
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", E->dir, name);
    return flce_write_file_atomic(p, text, strlen(text), e);
}

/* config.json: every setting that decides the results (not the backend: all backends give the
 * same bits), in this order. NULL when out of memory. */
static cJSON *config_json(engine *E) {
    const flce_run_cfg *c = E->cfg;
    char ablate[32], dd[17];
    snprintf(ablate, sizeof ablate, "%s%s%s%s%s", c->ablate.no_mass ? "M " : "", c->ablate.no_velocity ? "V " : "",
             c->ablate.no_momentum ? "Q " : "", c->ablate_cl ? "CL " : "", c->ablate.no_completion ? "CMC" : "");
    snprintf(dd, sizeof dd, "%016llx", (unsigned long long)E->data_digest);
    cJSON *o = cJSON_CreateObject();
    int ok = o != NULL;
#define STR(k, v) (ok = ok && cJSON_AddStringToObject(o, k, v))
#define NUM(k, v) (ok = ok && flce_json_add_number(o, k, (double)(v)))
    STR("algo", E->algo->name), STR("ablate", ablate), STR("dataset", c->dataset);
    NUM("clients", c->clients), NUM("per_round", c->per_round), NUM("rounds", c->rounds);
    STR("partition", c->part.quantity_skew > 0 ? "quantity" : c->part.iid ? "iid" : "dirichlet"), NUM("dirichlet", c->part.dirichlet);
    if (c->part.quantity_skew > 0) NUM("quantity_skew", c->part.quantity_skew); /* only then: older records stay comparable */
    NUM("min_samples", c->part.min_samples), NUM("label_noise", c->part.label_noise);
    NUM("feature_noise", c->part.feature_noise), NUM("noisy_clients", c->part.noisy_frac);
    NUM("epochs", c->epochs), NUM("batch", c->batch), NUM("lr", c->lr), NUM("lambda", c->lambda), NUM("tau", c->tau);
    NUM("train_subset", c->train_subset), NUM("test_subset", c->test_subset), NUM("val_size", E->n_val);
    STR("shapley", c->shapley_mc ? "mc" : "exact"), NUM("mc_perms", c->mc_perms), NUM("mc_eps", c->mc_eps);
    STR("utility", c->utility_loss ? "loss" : "accuracy"), NUM("seed", c->seed); /* seed <= 2^53: exact */
    NUM("prox_mu", c->prox_mu), NUM("ditto_lambda", c->ditto_lambda), NUM("moon_mu", c->moon_mu), NUM("moon_tau", c->moon_tau);
    ok = ok && flce_completion_settings_add(o, &c->completion);
    NUM("contract", FLCE_CONTRACT_VERSION), STR("denormals", E->be && E->be->ftz ? "ftz" : "preserve");
    STR("data_digest", dd);
    if (c->class_weights) ok = ok && cJSON_AddItemToObject(o, "class_weights", flce_json_numbers(c->class_weights, E->C));
    else ok = ok && cJSON_AddNullToObject(o, "class_weights");
#undef STR
#undef NUM
    if (!ok) cJSON_Delete(o);
    return ok ? o : NULL;
}

/* --resume: the run's config.json must hold these settings (compared value by value, numbers
 * exactly), and data of the recorded digest. */
static flce_status same_settings(engine *E, const cJSON *now, flce_err *e) {
    char p[1200];
    snprintf(p, sizeof p, "%s/config.json", E->dir);
    flce_status st;
    cJSON *old = flce_json_read(p, 1 << 20, &st, e);
    if (!old) return st == FLCE_ERR_IO ? FLCE_ERR_ARG : st;
    const char *od = flce_json_str(old, "data_digest"), *nd = flce_json_str(now, "data_digest");
    if (od && nd && strcmp(od, nd)) {
        st = flce_fail(e, FLCE_ERR_FORMAT, "--resume: %s records data digest %.16s, but the data given has %.16s: not the data "
                       "this run used", p, od, nd);
    } else if (!flce_json_equal(old, now)) {
        const char *which = "(the members)";
        for (const cJSON *m = now->child; m; m = m->next)
            if (!flce_json_equal(cJSON_GetObjectItemCaseSensitive(old, m->string), m)) {
                which = m->string;
                break;
            }
        st = flce_fail(e, FLCE_ERR_ARG, "--resume: the settings differ from those of the run in %s (%s; see its config.json)",
                       E->dir, which);
    }
    cJSON_Delete(old);
    return st;
}

static flce_status write_metrics(engine *E, int rounds, flce_err *e) {
    size_t cap = 256 + (size_t)rounds * 256, n = 0;
    char *b = malloc(cap);
    if (!b) return flce_fail(e, FLCE_ERR_NOMEM, "metrics: out of memory");
    flce_catf(b, cap, &n, "round,accuracy,macro_f1,mean_local_loss,kl,server_seconds,client_seconds,bytes_up,"
                          "bytes_down,fallback,prototypes_none_correct,personal_accuracy\n");
    for (int i = 0; i < rounds; i++) {
        flce_round_metrics *m = &E->metrics[i];
        char pa[32] = "";
        if (E->algo->flags & FLCE_M_PERSONAL) snprintf(pa, sizeof pa, "%.6f", m->personal_acc);
        flce_catf(b, cap, &n, "%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%lld,%lld,%d,%d,%s\n", m->round, m->acc, m->macro_f1,
                  m->mean_loss, m->kl, m->server_s, m->client_s, (long long)m->bytes_up, (long long)m->bytes_down,
                  m->fallback, m->proto_nocorrect, pa);
    }
    flce_status st = write_text(E, "metrics.csv", b, e);
    free(b);
    return st;
}

/* round_contributions.csv: each round's contribution of each selected client (the method's
 * own per-round measure before any final step: FLCE without completion, Shapley values
 * unclamped; CGSV: 0, it reports reputations). For reports: distances to Shapley per round. */
static flce_status write_round_contributions(engine *E, int rounds, flce_err *e) {
    size_t cap = 64 + (size_t)rounds * E->K * 40, n = 0;
    char *b = malloc(cap);
    if (!b) return flce_fail(e, FLCE_ERR_NOMEM, "round contributions: out of memory");
    flce_catf(b, cap, &n, "round,client,contribution\n");
    for (int t = 0; t < rounds; t++)
        for (int k = 0; k < E->n; k++) {
            double v = E->rc_hist[(size_t)t * E->n + k];
            if (!isnan(v)) flce_catf(b, cap, &n, "%d,%d,%.17g\n", t + 1, k, v);
        }
    flce_status st = write_text(E, "round_contributions.csv", b, e);
    free(b);
    return st;
}

static flce_status pwrite_all(int fd, const void *p, size_t len, size_t off, const char *what, flce_err *e) {
    const char *c = p;
    while (len) {
        ssize_t w = pwrite(fd, c, len, (off_t)off);
        if (w <= 0) return flce_fail(e, FLCE_ERR_IO, "%s: write failed: %s", what, strerror(errno));
        c += w, len -= (size_t)w, off += (size_t)w;
    }
    return FLCE_OK;
}

/* A full-size .npy file filled with `fill` (one element), open for in-place writes of its
 * rows: a killed run leaves a valid trace whose later rounds are empty. */
static flce_status npy_prealloc(engine *E, const char *name, flce_npy_dtype dt, int ndim, const int64_t *shape,
                                const void *fill, int keep, int *fd, size_t *off, flce_err *e) {
    char p[1200];
    snprintf(p, sizeof p, "%s/trace/%s", E->dir, name);
    unsigned char hdr[640];
    size_t hl = flce_npy_header(dt, ndim, shape, hdr, sizeof hdr), item = flce_npy_itemsize(dt);
    size_t count = 1;
    for (int i = 0; i < ndim; i++) count *= (size_t)shape[i];
    *off = hl;
    struct stat sb;
    if (keep && stat(p, &sb) == 0) { /* --resume: reuse it, as it is (its rows are checked against state.bin) */
        if ((size_t)sb.st_size != hl + count * item)
            return flce_fail(e, FLCE_ERR_FORMAT, "%s: %lld bytes, expected %zu: damaged (truncated or replaced)", p,
                             (long long)sb.st_size, hl + count * item);
        unsigned char have[640];
        int fd0 = open(p, O_RDONLY);
        ssize_t got = fd0 >= 0 ? pread(fd0, have, hl, 0) : -1;
        if (fd0 >= 0) close(fd0);
        if (got != (ssize_t)hl || memcmp(have, hdr, hl) != 0)
            return flce_fail(e, FLCE_ERR_FORMAT, "%s: its .npy header is not this run's: damaged or replaced", p);
        *fd = open(p, O_RDWR);
        if (*fd < 0) return flce_fail(e, FLCE_ERR_IO, "%s: cannot open: %s", p, strerror(errno));
        return FLCE_OK;
    }
    if (keep && E->resume_done > 0)
        return flce_fail(e, FLCE_ERR_FORMAT, "%s: missing, but state.bin says %d rounds were written into it", p, E->resume_done);
    char tmp[1210];
    snprintf(tmp, sizeof tmp, "%s.tmp", p);
    int f = open(tmp, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (f < 0) return flce_fail(e, FLCE_ERR_IO, "%s: cannot create: %s", tmp, strerror(errno));
    flce_status st = pwrite_all(f, hdr, hl, 0, p, e);
    size_t chunk = 1 << 16;
    unsigned char *buf = malloc(chunk * item);
    if (!buf) st = flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", p);
    for (size_t i = 0; buf && i < chunk; i++) memcpy(buf + i * item, fill, item);
    for (size_t done = 0; !st && done < count; done += chunk) {
        size_t nn = count - done < chunk ? count - done : chunk;
        st = pwrite_all(f, buf, nn * item, hl + done * item, p, e);
    }
    free(buf);
    if (!st && rename(tmp, p) != 0) st = flce_fail(e, FLCE_ERR_IO, "%s: cannot rename: %s", p, strerror(errno));
    if (st) {
        close(f);
        remove(tmp);
        return st;
    }
    *fd = f;
    return FLCE_OK;
}

/* state.bin: what --resume needs: the rounds done, the global model, the server state, the
 * metrics so far, the BatchNorm batch counters of the model that trains, and the checksums
 * of the trace's rows written so far; the whole file ends with its own xxh3-64, so that a
 * flipped bit, a NaN written in, an edited round count or a truncation is refused, never
 * continued from. Written atomically after every round (and before the first). */
#define STATE_MAGIC 0x33534c46u  /* "FLS3": since 2026-11-27 the settings it belongs to, in its header */
#define STATE_MAGIC2 0x32534c46u /* "FLS2": before; refused (it does not say whose it is) */

static int bn_layers(flce_model *m, flce_bn_l **out) {
    int k = 0;
    out[k++] = &m->bn1;
    for (int i = 0; i < 9; i++) {
        out[k++] = &m->blk[i].b1, out[k++] = &m->blk[i].b2;
        if (m->blk[i].has_sc) out[k++] = &m->blk[i].sb;
    }
    return k;
}

/* The fields of state.bin after its 16-byte header, in file order (the one list that writing
 * and reading both follow); returns how many. */
typedef struct {
    void *p;
    size_t bytes;
} state_field;

static int state_fields(engine *E, int done, state_field *f) {
    flce_bn_l *bn[32];
    int nbn = bn_layers(&E->m, bn), k = 0;
    f[k++] = (state_field){E->global, E->S * 4};
    f[k++] = (state_field){E->g, (size_t)E->C * E->d * 8};
    f[k++] = (state_field){E->has_g, (size_t)E->C};
    f[k++] = (state_field){E->contrib_sum, (size_t)E->n * 8};
    f[k++] = (state_field){E->aux_f, E->aux_fn * 4};
    f[k++] = (state_field){E->aux_d, E->aux_dn * 8};
    f[k++] = (state_field){E->rc_hist, (size_t)E->T * E->n * 8};
    if (E->rules_hist) f[k++] = (state_field){E->rules_hist, (size_t)E->T * E->n * FLCE_NRULES * 8};
    f[k++] = (state_field){E->metrics, (size_t)done * sizeof(flce_round_metrics)};
    for (int i = 0; i < nbn; i++) f[k++] = (state_field){&bn[i]->tracked, 8};
    f[k++] = (state_field){&E->chain_proto, 8};
    f[k++] = (state_field){&E->chain_sel, 8};
    return k;
}

/* header, fields, and the checksum of all before it */
/* The settings a state belongs to: config.json as this run writes it (compact) and the digest of
 * the partition drawn (which the subset and the seed decide): what must be equal for a state to
 * be this run's. Computed once, at open_run_files. */
static size_t settings_len(const engine *E) { return E->settings ? strlen(E->settings) : 0; }

static size_t state_size(engine *E, int done) {
    state_field f[64];
    size_t sz = 16 + 4 + settings_len(E) + 8;
    for (int i = 0, n = state_fields(E, done, f); i < n; i++) sz += f[i].bytes;
    return sz;
}

static flce_status save_state(engine *E, int done, flce_err *e) {
    size_t sz = state_size(E, done);
    unsigned char *b = malloc(sz), *p = b;
    if (!b) return flce_fail(e, FLCE_ERR_NOMEM, "state: out of memory");
    uint32_t hdr[4] = {STATE_MAGIC, (uint32_t)done, (uint32_t)E->S, (uint32_t)E->n}, sl = (uint32_t)settings_len(E);
    memcpy(p, hdr, 16), p += 16;
    memcpy(p, &sl, 4), p += 4;
    if (sl) memcpy(p, E->settings, sl), p += sl;
    state_field f[64];
    for (int i = 0, n = state_fields(E, done, f); i < n; i++)
        if (f[i].bytes) memcpy(p, f[i].p, f[i].bytes), p += f[i].bytes;
    uint64_t sum = flce_digest(b, (size_t)(p - b));
    memcpy(p, &sum, 8);
    char path[1200];
    snprintf(path, sizeof path, "%s/state.bin", E->dir);
    flce_status st = flce_write_file_atomic(path, b, sz, e);
    free(b);
    return st;
}

/* The first setting in which two settings texts (settings_text) differ, as "its lr is 0.02, this
 * run's 0.01", into out. */
static void flce_settings_diff(const char *theirs, const char *mine, char *out, size_t cap) {
    const char *nl1 = strrchr(theirs, '\n'), *nl2 = strrchr(mine, '\n');
    char *a = strndup(theirs, nl1 ? (size_t)(nl1 - theirs) : strlen(theirs)), *b = strndup(mine, nl2 ? (size_t)(nl2 - mine) : strlen(mine));
    cJSON *ja = a ? cJSON_Parse(a) : NULL, *jb = b ? cJSON_Parse(b) : NULL;
    int found = 0;
    if (ja && jb) {
        const cJSON *x;
        cJSON_ArrayForEach(x, jb) {
            const cJSON *y = cJSON_GetObjectItemCaseSensitive(ja, x->string);
            char *vx = cJSON_PrintUnformatted(x), *vy = y ? cJSON_PrintUnformatted(y) : NULL;
            if (vx && (!vy || strcmp(vx, vy))) {
                snprintf(out, cap, "its %s is %.60s, this run's %.60s", x->string, vy ? vy : "absent", vx);
                found = 1;
            }
            free(vx), free(vy);
            if (found) break;
        }
    }
    if (!found && nl1 && nl2 && strcmp(nl1, nl2)) snprintf(out, cap, "another partition of the data: %.40s against %.40s", nl1 + 1, nl2 + 1);
    cJSON_Delete(ja), cJSON_Delete(jb);
    free(a), free(b);
}

static flce_status load_state(engine *E, int *done, flce_err *e) {
    char path[1200];
    snprintf(path, sizeof path, "%s/state.bin", E->dir);
    char why[96];
    FILE *f = flce_fopen_regular(path, why, sizeof why);
    if (!f && errno == ENOENT) return flce_fail(e, FLCE_ERR_ARG, "--resume: %s has no state.bin (nothing to continue)", E->dir);
    if (!f) return flce_fail(e, FLCE_ERR_IO, "--resume: %s: cannot open: %s", path, why);
    fseek(f, 0, SEEK_END);
    long fs = ftell(f);
    rewind(f);
    uint32_t hdr[4], sl = 0;
    unsigned char *b = NULL;
    flce_status st = FLCE_OK;
    int got = fs >= 20 && fread(hdr, 4, 4, f) == 4 && fread(&sl, 4, 1, f) == 1;
    if (got && hdr[0] == STATE_MAGIC2)
        st = flce_fail(e, FLCE_ERR_ARG, "--resume: %s was written by a build before 2026-11-27, which did not record whose run it is: "
                       "rerun without --resume (--force)", path);
    else if (!got || hdr[0] != STATE_MAGIC)
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: not a state file (no FLS3 header)", path);
    else if (sl != settings_len(E) || hdr[2] != (uint32_t)E->S || hdr[3] != (uint32_t)E->n || hdr[1] > (uint32_t)E->T ||
             (size_t)fs < 20 + (size_t)sl + 8) {
        /* another run's: say what differs where its settings can be read */
        char *other = (size_t)fs >= 20 + (size_t)sl + 8 && sl < (1u << 24) ? malloc((size_t)sl + 1) : NULL;
        char what[400] = "its model size, clients or rounds";
        if (other && fread(other, 1, sl, f) == sl) {
            other[sl] = '\0';
            flce_settings_diff(other, E->settings, what, sizeof what);
        }
        free(other);
        st = flce_fail(e, FLCE_ERR_ARG, "--resume: %s belongs to another run (%s)", path, what);
    } else if ((size_t)fs != state_size(E, (int)hdr[1]))
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: %ld bytes, but %d rounds done need %zu: damaged", path, fs, (int)hdr[1],
                       state_size(E, (int)hdr[1]));
    else if (!(b = malloc((size_t)fs))) st = flce_fail(e, FLCE_ERR_NOMEM, "state: out of memory");
    else {
        rewind(f);
        if (fread(b, 1, (size_t)fs, f) != (size_t)fs) st = flce_fail(e, FLCE_ERR_IO, "%s: cannot read", path);
    }
    fclose(f);
    if (st) {
        free(b);
        return st;
    }
    uint64_t sum;
    memcpy(&sum, b + fs - 8, 8);
    if (flce_digest(b, (size_t)fs - 8) != sum) {
        free(b);
        return flce_fail(e, FLCE_ERR_FORMAT, "%s: checksum mismatch: the file was changed or damaged since it was written", path);
    }
    if (sl && memcmp(b + 20, E->settings, sl) != 0) {
        char *other = malloc((size_t)sl + 1), what[400] = "its settings";
        if (other) {
            memcpy(other, b + 20, sl), other[sl] = '\0';
            flce_settings_diff(other, E->settings, what, sizeof what);
        }
        free(other), free(b);
        return flce_fail(e, FLCE_ERR_ARG, "--resume: %s belongs to another run (%s)", path, what);
    }
    *done = (int)hdr[1];
    const unsigned char *p = b + 20 + sl;
    state_field fl[64];
    for (int i = 0, n = state_fields(E, *done, fl); i < n; i++)
        if (fl[i].bytes) memcpy(fl[i].p, p, fl[i].bytes), p += fl[i].bytes;
    free(b);
    return FLCE_OK;
}

/* The trace's rows of rounds [0, done) against the checksums state.bin holds: one pass over
 * what the run wrote (round t's rows chained into round t+1's checksum). */
static flce_status verify_trace(engine *E, int done, flce_err *e) {
    size_t prow = sizeof(float) * (size_t)E->n * E->C * E->d, srow = (size_t)E->n;
    unsigned char *buf = malloc(prow > srow ? prow : srow);
    if (!buf) return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    uint64_t cp = 0, cs = 0;
    flce_status st = FLCE_OK;
    for (int t = 0; t < done && !st; t++) {
        if (pread(E->fd_proto, buf, prow, (off_t)(E->proto_off + prow * (size_t)t)) != (ssize_t)prow)
            st = flce_fail(e, FLCE_ERR_FORMAT, "%s/trace/prototypes.npy: cannot read round %d", E->dir, t + 1);
        else cp = XXH3_64bits_withSeed(buf, prow, cp);
        if (!st && pread(E->fd_sel, buf, srow, (off_t)(E->sel_off + srow * (size_t)t)) != (ssize_t)srow)
            st = flce_fail(e, FLCE_ERR_FORMAT, "%s/trace/selected.npy: cannot read round %d", E->dir, t + 1);
        else cs = XXH3_64bits_withSeed(buf, srow, cs);
    }
    free(buf);
    if (st) return st;
    if (cp != E->chain_proto)
        return flce_fail(e, FLCE_ERR_FORMAT, "%s/trace/prototypes.npy: checksum mismatch in rounds 1..%d: changed or damaged since written",
                         E->dir, done);
    if (cs != E->chain_sel)
        return flce_fail(e, FLCE_ERR_FORMAT, "%s/trace/selected.npy: checksum mismatch in rounds 1..%d: changed or damaged since written",
                         E->dir, done);
    return FLCE_OK;
}

/* ---- set-up --------------------------------------------------------------------------- */
static flce_status validate(const flce_run_cfg *c, const flce_method **algo, flce_err *e) {
    *algo = c->method ? c->method : flce_method_find(c->algo);
    if (!*algo) return flce_fail(e, FLCE_ERR_ARG, "--algo '%s': unknown (%s)", c->algo, flce_method_names());
    if (!(*algo)->server) return flce_fail(e, FLCE_ERR_ARG, "method '%s': no server step", (*algo)->name);
    if (c->clients < 2) return flce_fail(e, FLCE_ERR_ARG, "--clients %d: must be at least 2", c->clients);
    if (c->per_round < 1 || c->per_round > c->clients)
        return flce_fail(e, FLCE_ERR_ARG, "--per-round %d: must be between 1 and --clients (%d)", c->per_round, c->clients);
    if (c->per_round > 32) return flce_fail(e, FLCE_ERR_ARG, "--per-round %d: at most 32", c->per_round);
    flce_status st = (*algo)->check ? (*algo)->check(c, e) : FLCE_OK;
    if (st) return st;
    if (c->rounds < 1) return flce_fail(e, FLCE_ERR_ARG, "--rounds %d: must be at least 1", c->rounds);
    if (c->seed > ((uint64_t)1 << 53))
        return flce_fail(e, FLCE_ERR_ARG, "--seed %llu: at most 2^53 = 9007199254740992 (recorded exactly in config.json)",
                         (unsigned long long)c->seed);
    if (c->epochs < 1) return flce_fail(e, FLCE_ERR_ARG, "--epochs %d: must be at least 1", c->epochs);
    if (c->batch < 2 || c->batch > 4096) return flce_fail(e, FLCE_ERR_ARG, "--batch %d: must be 2..4096", c->batch);
    if (!c->part.iid && !(c->part.dirichlet > 0)) return flce_fail(e, FLCE_ERR_ARG, "--dirichlet %g: must be > 0", c->part.dirichlet);
    if (!(c->part.quantity_skew >= 0 && c->part.quantity_skew < 1e6))
        return flce_fail(e, FLCE_ERR_ARG, "--quantity-skew %g: must be > 0 (0: off)", c->part.quantity_skew);
    if (!(c->lr > 0)) return flce_fail(e, FLCE_ERR_ARG, "--lr %g: must be > 0", c->lr);
    if (!(c->lambda >= 0)) return flce_fail(e, FLCE_ERR_ARG, "--lambda %g: must be >= 0", c->lambda);
    if (!(c->tau > 0)) return flce_fail(e, FLCE_ERR_ARG, "--tau %g: must be > 0", c->tau);
    if (c->mc_perms < 1) return flce_fail(e, FLCE_ERR_ARG, "--mc-perms %d: must be at least 1", c->mc_perms);
    if (!(c->mc_eps >= 0) || !isfinite(c->mc_eps)) return flce_fail(e, FLCE_ERR_ARG, "--mc-eps %g: must be a finite number >= 0", c->mc_eps);
    if (!(c->prox_mu >= 0)) return flce_fail(e, FLCE_ERR_ARG, "--prox-mu %g: must be >= 0", c->prox_mu);
    if (!(c->ditto_lambda >= 0)) return flce_fail(e, FLCE_ERR_ARG, "--ditto-lambda %g: must be >= 0", c->ditto_lambda);
    if (!(c->moon_mu >= 0) || !(c->moon_tau > 0)) return flce_fail(e, FLCE_ERR_ARG, "--moon-mu must be >= 0 and --moon-tau > 0");
    if (c->train_subset < 0 || c->test_subset < 0 || c->val_size < 0)
        return flce_fail(e, FLCE_ERR_ARG, "subset and validation sizes must be positive");
    if (c->part.label_noise < 0 || c->part.label_noise > 1) return flce_fail(e, FLCE_ERR_ARG, "--label-noise %g: must be in [0, 1]", c->part.label_noise);
    if (!(c->part.feature_noise >= 0 && c->part.feature_noise < 1e6))
        return flce_fail(e, FLCE_ERR_ARG, "--feature-noise %g: must be a number from 0 to below 1e6", c->part.feature_noise);
    if (!c->backend) return flce_fail(e, FLCE_ERR_ARG, "no backend given to the engine");
    return FLCE_OK;
}

/* ---- several processes (flce_comm, engine.h) ------------------------------------------ */
/* Every rank's status agreed: when any rank failed, every rank fails with the message of the
 * lowest failing rank, prefixed with its number (rank 0's own message as it is). */
static void flce_settings_diff(const char *theirs, const char *mine, char *out, size_t cap);
static cJSON *config_json(engine *E);

/* The settings a run's results depend on, as text (malloc'd; NULL when out of memory): config.json
 * cj compact, a newline, the digest of the partition drawn. What a state.bin belongs to and what
 * every rank must share. */
static char *settings_text(engine *E, const cJSON *cj) {
    char *txt = cJSON_PrintUnformatted(cj), *out = NULL;
    size_t tl = txt ? strlen(txt) + 40 : 0;
    if (txt && (out = malloc(tl))) snprintf(out, tl, "%s\npartition %016llx", txt, (unsigned long long)flce_partition_digest(&E->part));
    free(txt);
    return out;
}

static flce_status agree(engine *E, flce_status st, flce_err *e) {
    const flce_comm *c = E->comm;
    if (!c || c->size < 2) return st;
    int64_t flags[256] = {0};
    int P = c->size < 256 ? c->size : 256;
    flags[c->rank < P ? c->rank : 0] = st ? 1 : 0;
    flce_err ce;
    if (c->sum_i64((flce_comm *)c, flags, P, &ce)) {
        if (e) *e = ce;
        return FLCE_ERR_IO;
    }
    int first = -1;
    for (int r = 0; r < P && first < 0; r++)
        if (flags[r]) first = r;
    if (first < 0) return FLCE_OK;
    struct {
        int32_t status;
        char msg[sizeof ce.msg];
    } m = {0, {0}};
    if (c->rank == first) m.status = (int32_t)st, snprintf(m.msg, sizeof m.msg, "%s", e ? e->msg : "");
    if (c->bcast((flce_comm *)c, &m, sizeof m, first, &ce)) {
        if (e) *e = ce;
        return FLCE_ERR_IO;
    }
    if (e && first != 0) {
        if (E->t > 0 || E->metrics) flce_fail(e, (flce_status)m.status, "rank %d, round %d: %.440s", first, E->t + 1, m.msg);
        else flce_fail(e, (flce_status)m.status, "rank %d: %.460s", first, m.msg);
    } else if (e) snprintf(e->msg, sizeof e->msg, "%s", m.msg);
    return (flce_status)m.status;
}

/* Every rank runs the same program, contract and data: rank 0's fingerprint against each
 * rank's own; a rank that differs is named. */
static flce_status same_everywhere(engine *E, flce_err *e) {
    const flce_comm *c = E->comm;
    if (!c || c->size < 2) return FLCE_OK;
    uint64_t mine[3] = {flce_digest(FLCE_VERSION, strlen(FLCE_VERSION)), FLCE_CONTRACT_VERSION, E->data_digest}, root[3];
    const char *tm = getenv("FLCE_TEST_MISMATCH_RANK"); /* fault injection for the tests: that rank's data differ */
    if (tm && atoi(tm) == c->rank) mine[2] ^= 1;
    memcpy(root, mine, sizeof root);
    flce_status st = c->bcast((flce_comm *)c, root, sizeof root, 0, e);
    if (st) return st;
    const char *what = root[0] != mine[0] ? "another flce program (version)" : root[1] != mine[1] ? "another bit-exact contract"
                     : root[2] != mine[2] ? "other data (its digest differs from rank 0's)" : NULL;
    if (what) st = flce_fail(e, FLCE_ERR_ARG, "runs %s: every rank must run the same program on the same data", what);
    if ((st = agree(E, st, e))) return st;
    /* and the same settings, every one that decides the results (config.json as it will be
     * written, the partition drawn): a rank with another --lr once ended with exit 0 and other
     * digests, one with another --seed or --rounds waited forever in a collective */
    cJSON *cj = config_json(E);
    char *mytext = cj ? settings_text(E, cj) : NULL;
    cJSON_Delete(cj);
    if (!mytext) return agree(E, flce_fail(e, FLCE_ERR_NOMEM, "out of memory"), e);
    uint64_t len = strlen(mytext) + 1;
    if ((st = c->bcast((flce_comm *)c, &len, sizeof len, 0, e))) {
        free(mytext);
        return st;
    }
    char *roots = len < (1u << 24) ? malloc((size_t)len) : NULL;
    uint64_t ok = roots != NULL;
    if (roots && c->rank == 0) memcpy(roots, mytext, (size_t)len);
    if (roots && (st = c->bcast((flce_comm *)c, roots, (size_t)len, 0, e))) {
        free(mytext), free(roots);
        return st;
    }
    st = FLCE_OK;
    if (!ok) st = flce_fail(e, FLCE_ERR_NOMEM, "out of memory for rank 0's settings");
    else if (strcmp(roots, mytext)) {
        char diff[400] = "its settings";
        flce_settings_diff(roots, mytext, diff, sizeof diff); /* "its X is <rank 0's>, this run's <mine>" */
        st = flce_fail(e, FLCE_ERR_ARG, "runs other settings than rank 0 (rank 0: %s): every rank must be started with the same flags", diff);
    }
    free(mytext), free(roots);
    return agree(E, st, e);
}

/* Each slot of the round to a rank, balanced by the clients' samples: the largest first, each
 * to the least loaded rank (ties: the lower slot, the lower rank). */
static void assign_slots(engine *E) {
    int P = E->comm ? E->comm->size : 1, order[32];
    double load[256] = {0};
    for (int i = 0; i < E->K; i++) order[i] = i;
    for (int i = 1; i < E->K; i++)
        for (int j = i; j > 0 && E->sizes[E->sel[order[j - 1]]] < E->sizes[E->sel[order[j]]]; j--) {
            int t = order[j];
            order[j] = order[j - 1], order[j - 1] = t;
        }
    for (int q = 0; q < E->K; q++) {
        int best = 0;
        for (int r = 1; r < P && r < 256; r++)
            if (load[r] < load[best]) best = r;
        E->owner[order[q]] = best;
        load[best] += E->sizes[E->sel[order[q]]];
    }
}

/* What slot i's client sends beyond nothing: its model, its losses and reports, its uploads
 * (prototypes) and its per-client method state; packed (pack = 1) or unpacked into E. */
static size_t slot_bundle(engine *E, int i, unsigned char *b, int pack) {
    int k = E->sel[i], C = E->C, d = E->d;
    size_t o = 0;
#define FIELD(ptr, bytes)                                     \
    do {                                                      \
        if (b) {                                              \
            if (pack) memcpy(b + o, (ptr), (bytes));          \
            else memcpy((ptr), b + o, (bytes));               \
        }                                                     \
        o += (bytes);                                         \
    } while (0)
    FIELD(E->states + (size_t)i * E->S, E->S * 4);
    FIELD(&E->losses[i], 8);
    FIELD(&E->rep_loss[i], 8);
    FIELD(&E->rep_acc[i], 8);
    FIELD(&E->pacc[i], 8);
    FIELD(&E->nc_slot[i], sizeof(int));
    if (E->algo->flags & FLCE_M_PROTOTYPES) {
        FIELD(E->protos + (size_t)k * C * d, sizeof(float) * (size_t)C * d);
        FIELD(E->protos_alt + (size_t)k * C * d, sizeof(float) * (size_t)C * d);
        FIELD(E->present + (size_t)k * C, (size_t)C);
    }
    if (E->algo->flags & FLCE_M_CLIENT_STATE) {
        FIELD(E->aux_f + (size_t)k * E->S, E->S * 4);
        FIELD(&E->aux_d[k], 8);
    }
#undef FIELD
    return o;
}

/* The clients of the round: each rank trains its slots, then every slot's bundle goes from its
 * rank to all (in slot order), and the BatchNorm batch counters of the training model add up
 * over the ranks as in one process. */
static flce_status client_phase(engine *E, flce_err *e) {
    const flce_comm *c = E->comm;
    flce_status st = FLCE_OK;
    flce_bn_l *bn[32];
    int nbn = bn_layers(&E->m, bn);
    int64_t before[32], delta[32];
    for (int l = 0; l < nbn; l++) before[l] = bn[l]->tracked;
    for (int i = 0; i < E->K && !st; i++)
        if (!c || E->owner[i] == c->rank) st = client_update(E, i, e);
    if (!c || c->size < 2) return st;
    if ((st = agree(E, st, e))) return st;
    size_t bytes = slot_bundle(E, 0, NULL, 1);
    unsigned char *b = malloc(bytes);
    st = agree(E, b ? FLCE_OK : flce_fail(e, FLCE_ERR_NOMEM, "out of memory"), e);
    for (int i = 0; i < E->K && !st; i++) {
        if (E->owner[i] == c->rank) slot_bundle(E, i, b, 1);
        if (!(st = c->bcast((flce_comm *)c, b, bytes, E->owner[i], e)) && E->owner[i] != c->rank) slot_bundle(E, i, b, 0);
    }
    free(b);
    for (int l = 0; l < nbn; l++) delta[l] = bn[l]->tracked - before[l];
    if (!st) st = c->sum_i64((flce_comm *)c, delta, nbn, e);
    for (int l = 0; l < nbn && !st; l++) bn[l]->tracked = before[l] + delta[l];
    return st;
}

flce_status flce_eng_utilities(engine *E, const uint32_t *masks, int count, flce_err *e) {
    const flce_comm *c = E->comm;
    if (!c || c->size < 2) return FLCE_OK; /* one process: each utility when it is asked for */
    uint32_t *todo = malloc(sizeof *todo * (size_t)(count ? count : 1));
    double *vals = malloc(sizeof *vals * (size_t)(count ? count : 1));
    int nt = 0;
    flce_status st = todo && vals ? FLCE_OK : flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    for (int i = 0; !st && i < count; i++) { /* the ones not cached yet, once each */
        int seen = !isnan(E->vcache[masks[i]]);
        for (int j = 0; j < nt && !seen; j++) seen = todo[j] == masks[i];
        if (!seen) todo[nt++] = masks[i];
    }
    flce_utility_ctx u = {E, e, 0};
    for (int j = c->rank; !st && j < nt; j += c->size) flce_eng_utility(todo[j], &u); /* mask j on rank j mod P */
    if ((st = agree(E, st ? st : u.failed ? FLCE_ERR_NUMERIC : FLCE_OK, e))) {
        free(todo), free(vals);
        return st;
    }
    for (int r = 0; r < c->size && !st; r++) {
        int m = 0;
        for (int j = r; j < nt; j += c->size) vals[m++] = E->vcache[todo[j]];
        if ((st = c->bcast((flce_comm *)c, vals, sizeof(double) * (size_t)m, r, e))) break;
        m = 0;
        for (int j = r; j < nt; j += c->size) E->vcache[todo[j]] = vals[m++];
    }
    free(todo), free(vals);
    return st;
}

/* Exact Shapley: every coalition's utility beforehand, spread over the ranks. */
static flce_status coalitions_phase(engine *E, flce_err *e) {
    const flce_comm *c = E->comm;
    if (!c || c->size < 2 || !(E->algo->flags & FLCE_M_ALL_COALITIONS) || E->cfg->shapley_mc || E->K > 12) return FLCE_OK;
    uint32_t nm = (uint32_t)1 << E->K, *all = malloc(sizeof *all * nm);
    if (!all) return agree(E, flce_fail(e, FLCE_ERR_NOMEM, "out of memory"), e);
    for (uint32_t m = 0; m < nm; m++) all[m] = m;
    flce_status st = flce_eng_utilities(E, all, (int)nm, e);
    free(all);
    return st;
}

/* --resume spread over processes: rank 0 read the state; every rank gets it. */
static flce_status share_state(engine *E, int *done, flce_err *e) {
    const flce_comm *c = E->comm;
    if (!c || c->size < 2) return FLCE_OK;
    int64_t d = c->rank == 0 ? *done : 0;
    flce_status st = c->sum_i64((flce_comm *)c, &d, 1, e); /* only rank 0's is not 0 */
    *done = (int)d;
    state_field f[64];
    for (int i = 0, nf = state_fields(E, *done, f); i < nf && !st; i++)
        if (f[i].bytes) st = c->bcast((flce_comm *)c, f[i].p, f[i].bytes, 0, e);
    return st;
}

/* The run folder, checked (nothing written): an existing run is refused unless --force (start
 * over) or --resume (continue). make_dir then makes it (under --force, emptied of the old run). */
static flce_status check_dir(engine *E, flce_err *e) {
    const flce_run_cfg *c = E->cfg;
    /* every file of a run is E->dir plus at most 40 characters, in buffers of 1,200: a longer
     * --out is refused rather than written to a truncated path */
    if (!c->out || strlen(c->out) > FLCE_MAX_OUT_PATH)
        return flce_fail(e, FLCE_ERR_ARG, "--out: a path of %zu characters; at most %d", c->out ? strlen(c->out) : 0, FLCE_MAX_OUT_PATH);
    snprintf(E->dir, sizeof E->dir, "%s", c->out);
    if (!E->writer) return FLCE_OK; /* rank 0's folder */
    struct stat sb;
    char p[1200];
    snprintf(p, sizeof p, "%s/config.json", E->dir);
    int exists = stat(p, &sb) == 0;
    if (c->resume) {
        if (!exists) return flce_fail(e, FLCE_ERR_ARG, "--resume: %s holds no run (no config.json)", E->dir);
    } else if (exists && !c->force) {
        /* a run that died before its first state.bin (while loading its data) holds nothing to keep:
         * a plain rerun replaces it */
        char q[1200];
        snprintf(p, sizeof p, "%s/state.bin", E->dir);
        snprintf(q, sizeof q, "%s/digests.txt", E->dir);
        if (stat(p, &sb) == 0 || stat(q, &sb) == 0)
            return flce_fail(e, FLCE_ERR_ARG, "--out %s already holds a run (use --resume to continue it or --force to overwrite)", E->dir);
    } else if (!c->force) { /* files a run would write, without a run: someone else's, never overwritten silently */
        const char *ours[] = {"metrics.csv", "contributions.csv", "digests.txt", "model.safetensors", "state.bin", "trace"};
        for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++) {
            snprintf(p, sizeof p, "%s/%s", E->dir, ours[i]);
            if (stat(p, &sb) == 0)
                return flce_fail(e, FLCE_ERR_ARG, "--out %s holds %s but no run (no config.json): use another folder or --force",
                                 E->dir, ours[i]);
        }
    }
    return FLCE_OK;
}

static flce_status make_dir(engine *E, flce_err *e) {
    const flce_run_cfg *c = E->cfg;
    if (!E->writer) return FLCE_OK;
    char p[1200];
    if (flce_mkdirs(E->dir) != 0) return flce_fail(e, FLCE_ERR_ARG, "--out %s: cannot create: %s", E->dir, strerror(errno));
    snprintf(p, sizeof p, "%s/trace", E->dir);
    if (mkdir(p, 0755) != 0 && errno != EEXIST) return flce_fail(e, FLCE_ERR_IO, "%s: cannot create: %s", p, strerror(errno));
    if (c->force && !c->resume) { /* start over: nothing of the old run may survive */
        const char *old[] = {"state.bin", "metrics.csv", "contributions.csv", "digests.txt", "model.safetensors", "costs.txt",
                             "round_contributions.csv", "round_contributions_rules.csv", "contributions_rules.csv",
                             "trace/prototypes.npy", "trace/prototypes_alt.npy", "trace/selected.npy", "trace/Q.npy",
                             "trace/X_completed.npy", "trace/contributions.csv", "trace/class_weights.npy", "trace/completion.json",
                             "trace/data_sizes.npy"};
        for (size_t i = 0; i < sizeof old / sizeof old[0]; i++) {
            snprintf(p, sizeof p, "%s/%s", E->dir, old[i]);
            remove(p);
        }
    }
    return FLCE_OK;
}

static flce_status setup_data(engine *E, flce_err *e) {
    const flce_run_cfg *c = E->cfg;
    flce_status st = flce_dataset_load(&E->ds, c->dataset, c->data_dir, c->seed, e);
    if (st == FLCE_ERR_IO) st = FLCE_ERR_ARG; /* a missing folder or file: a usage error, before any work */
    if (st) return st;
    { /* the data's identity, recorded in config.json: sizes, pixels and labels of both splits */
        XXH3_state_t *h = XXH3_createState();
        if (!h) return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
        XXH3_64bits_reset(h);
        const flce_split *sp[2] = {&E->ds.train, &E->ds.test};
        for (int i = 0; i < 2; i++) {
            int32_t dims[5] = {sp[i]->n, sp[i]->c, sp[i]->h, sp[i]->w, sp[i]->classes};
            XXH3_64bits_update(h, dims, sizeof dims);
            XXH3_64bits_update(h, sp[i]->pixels, (size_t)sp[i]->n * sp[i]->c * sp[i]->h * sp[i]->w);
            XXH3_64bits_update(h, sp[i]->labels, (size_t)sp[i]->n);
        }
        E->data_digest = XXH3_64bits_digest(h);
        XXH3_freeState(h);
    }
    if (c->train_subset && (st = flce_dataset_subset(&E->ds, 0, c->train_subset, c->seed, e))) return st;
    if (c->test_subset && (st = flce_dataset_subset(&E->ds, 1, c->test_subset, c->seed, e))) return st;
    flce_split *tr = &E->ds.train;
    E->C = tr->classes;
    E->CHW = tr->c * tr->h * tr->w;
    /* the server's validation set (Shapley utility): seeded, stratified, excluded from every
     * client whatever the algorithm, so that all methods share one partition */
    int nv = c->val_size ? c->val_size : (tr->n / 10 < 1000 ? tr->n / 10 : 1000);
    if (nv >= tr->n - c->clients) return flce_fail(e, FLCE_ERR_ARG, "--val-size %d: leaves too little training data", nv);
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
        E->sizes[k] = (double)(E->part.offsets[k + 1] - E->part.offsets[k]);
        flce_partition_counts(&E->part, k, cc);
        for (int cl = 0; cl < E->C; cl++) E->held[k] += cc[cl] > 0;
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
    return FLCE_OK;
}

static void engine_free(engine *E) {
    if (E->be) {
        flce_model_free(&E->m);
        flce_model_free(&E->m2);
        flce_model_free(&E->m3);
    }
    flce_dataset_free(&E->ds);
    flce_partition_free(&E->part);
    free(E->train_x), free(E->entry_y), free(E->val_idx), free(E->test_x), free(E->test_y), free(E->sizes), free(E->held);
    free(E->trainable), free(E->global), free(E->states), free(E->newg), free(E->sel), free(E->protos), free(E->protos_alt), free(E->present), free(E->losses);
    free(E->omega), free(E->rc), free(E->g), free(E->has_g), free(E->contrib_sum), free(E->bx), free(E->logits), free(E->feat);
    free(E->by), free(E->perm), free(E->vcache), free(E->metrics), free(E->rep_loss), free(E->rep_acc), free(E->feat2);
    free(E->feat3), free(E->dzx), free(E->settings), free(E->aux_f), free(E->aux_d), free(E->rc_hist), free(E->rules), free(E->rules_hist), free(E->pacc), free(E->nc_slot), free(E->owner);
    if (E->fd_proto > 0) close(E->fd_proto);
    if (E->fd_proto_alt > 0) close(E->fd_proto_alt);
    if (E->fd_sel > 0) close(E->fd_sel);
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

static uint64_t file_digest(const char *path) {
    FILE *f = flce_fopen_regular(path, NULL, 0);
    if (!f) return 0;
    XXH3_state_t *s = XXH3_createState();
    XXH3_64bits_reset(s);
    unsigned char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) XXH3_64bits_update(s, buf, n);
    fclose(f);
    uint64_t d = XXH3_64bits_digest(s);
    XXH3_freeState(s);
    return d;
}

/* ---- the run -------------------------------------------------------------------------- */
/* The model (initialised from the seed), the engine's arrays and the method's state. */
static flce_status engine_alloc(engine *E, flce_err *e) {
    const flce_run_cfg *cfg = E->cfg;
    flce_status st;
    int MB = cfg->batch > cfg->eval_batch ? cfg->batch : cfg->eval_batch;
    if ((st = flce_model_create(&E->m, E->be, E->ds.train.c, E->ds.train.h, E->ds.train.w, E->C, MB, e))) return st;
    flce_model_init(&E->m, cfg->seed);
    E->S = flce_model_state_size(&E->m);
    if (!(E->trainable = malloc(E->S))) {
        return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    }
    for (int i = 0, o = 0; i < E->m.nparams; o += (int)E->m.p[i].n, i++) {
        memset(E->trainable + o, E->m.p[i].trainable ? 1 : 0, E->m.p[i].n);
        E->P += E->m.p[i].trainable ? E->m.p[i].n : 0;
    }
    int n = E->n, K = E->K, C = E->C, d = E->d;
    int64_t maxk = 0;
    for (int k = 0; k < n; k++) maxk = E->part.offsets[k + 1] - E->part.offsets[k] > maxk ? E->part.offsets[k + 1] - E->part.offsets[k] : maxk;
    E->global = malloc(E->S * 4), E->states = malloc(E->S * 4 * (size_t)K), E->newg = malloc(E->S * 4);
    E->sel = malloc(sizeof(int) * (size_t)K), E->protos = malloc(sizeof(float) * (size_t)n * C * d);
    E->protos_alt = malloc(sizeof(float) * (size_t)n * C * d);
    E->present = malloc((size_t)n * C), E->losses = malloc(sizeof(double) * (size_t)K);
    E->omega = malloc(sizeof(double) * (size_t)K), E->rc = malloc(sizeof(double) * (size_t)K);
    E->g = flce_calloc((size_t)C * d, sizeof(double)), E->has_g = flce_calloc((size_t)C, 1);
    E->contrib_sum = flce_calloc((size_t)n, sizeof(double));
    E->rc_hist = malloc(sizeof(double) * (size_t)E->T * n);
    E->bx = malloc(sizeof(float) * (size_t)MB * E->CHW), E->by = malloc(sizeof(int32_t) * (size_t)MB);
    E->logits = malloc(sizeof(float) * (size_t)MB * C), E->feat = malloc(sizeof(float) * (size_t)MB * d);
    E->perm = malloc(sizeof(int) * (size_t)(maxk + 1)), E->vcache = malloc(sizeof(double) * ((size_t)1 << (K < 21 ? K : 1)));
    E->metrics = flce_calloc((size_t)E->T, sizeof(flce_round_metrics));
    E->rep_loss = flce_calloc((size_t)K, sizeof(double)), E->rep_acc = flce_calloc((size_t)K, sizeof(double));
    E->feat2 = malloc(sizeof(float) * (size_t)MB * d), E->feat3 = malloc(sizeof(float) * (size_t)MB * d);
    size_t maxp = (size_t)MB * d;
    for (int i = 0; i < E->m.nparams; i++) maxp = 2 * E->m.p[i].n > maxp ? 2 * E->m.p[i].n : maxp;
    E->dzx = malloc(sizeof(float) * maxp);
    E->pacc = flce_calloc((size_t)K, sizeof(double)), E->nc_slot = flce_calloc((size_t)K, sizeof(int));
    if (E->algo->flags & FLCE_M_COSINE_RULES) {
        E->rules = flce_calloc((size_t)K * FLCE_NRULES, sizeof(double));
        E->rules_hist = malloc(sizeof(double) * (size_t)E->T * n * FLCE_NRULES);
        if (!E->rules || !E->rules_hist) return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
        for (size_t i = 0; i < (size_t)E->T * n * FLCE_NRULES; i++) E->rules_hist[i] = NAN;
    }
    E->owner = flce_calloc((size_t)K, sizeof(int));
    if (E->algo->state_size) E->algo->state_size(E, &E->aux_fn, &E->aux_dn);
    E->aux_f = flce_calloc(E->aux_fn ? E->aux_fn : 1, sizeof(float));
    E->aux_d = flce_calloc(E->aux_dn ? E->aux_dn : 1, sizeof(double));
    if (!E->global || !E->states || !E->newg || !E->sel || !E->protos || !E->protos_alt || !E->present || !E->losses || !E->omega || !E->rc ||
        !E->g || !E->has_g || !E->contrib_sum || !E->bx || !E->by || !E->logits || !E->feat || !E->perm || !E->vcache ||
        !E->metrics || !E->rc_hist || !E->rep_loss || !E->rep_acc || !E->feat2 || !E->feat3 || !E->dzx || !E->aux_f || !E->aux_d ||
        !E->pacc || !E->nc_slot || !E->owner) {
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
    E->fd_proto = E->fd_proto_alt = E->fd_sel = -1;
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

flce_status flce_engine_state_save(engine *E, int done, flce_err *e) { return save_state(E, done, e); }
flce_status flce_engine_state_load(engine *E, int *done, flce_err *e) { return load_state(E, done, e); }

/* The run folder's files before the first round: config.json (or, with --resume, the check
 * that it holds these settings and the state to continue from: the rounds done into *done),
 * device.txt, clients.csv, the trace of a method that uploads prototypes, the method's own
 * (open), and the state before the first round. */
static flce_status write_round_rules(engine *E, int rounds, flce_err *e);

static flce_status open_run_files(engine *E, int *done_out, flce_err *e) {
    const flce_run_cfg *cfg = E->cfg;
    int n = E->n, C = E->C, d = E->d;
    flce_status st;
    *done_out = 0;
    if (!E->writer) return E->algo->open ? E->algo->open(E, e) : FLCE_OK; /* the files are rank 0's */
    char p[1200];
    cJSON *cj = config_json(E);
    if (!cj) {
        return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    }
    int done = 0;
    { /* what a state.bin of this run says it belongs to */
        E->settings = settings_text(E, cj);
        if (!E->settings) {
            cJSON_Delete(cj);
            return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
        }
    }
    snprintf(p, sizeof p, "%s/state.bin", E->dir);
    struct stat sst;
    int fresh = cfg->resume && stat(p, &sst) != 0; /* --resume of a run that died before its first state: from round 0 */
    if (cfg->resume) {
        if (!(st = same_settings(E, cj, e)) && !fresh && !(st = load_state(E, &done, e))) E->resume_done = done;
    } else {
        snprintf(p, sizeof p, "%s/config.json", E->dir);
        st = flce_json_write(p, cj, e);
    }
    cJSON_Delete(cj);
    if (st) return st;
    snprintf(p, sizeof p, "flce %s\ncontract %d\nbackend %s\ndevice %s\ndenormals %s\n", FLCE_VERSION, FLCE_CONTRACT_VERSION,
             E->be->name, E->be->device, E->be->ftz ? "ftz" : "preserve");
    write_text(E, "device.txt", p, NULL);
    { /* the clients: samples, classes held, noisy (for data shares and reports) */
        size_t cap = 64 + (size_t)n * 40, len = 0;
        char *cs = malloc(cap);
        if (!cs) {
            return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
        }
        flce_catf(cs, cap, &len, "client,samples,classes_held,noisy\n");
        for (int k = 0; k < n; k++) flce_catf(cs, cap, &len, "%d,%.0f,%d,%d\n", k, E->sizes[k], E->held[k], E->part.noisy[k]);
        st = write_text(E, "clients.csv", cs, e);
        free(cs);
        if (st) return st;
    }

    /* the trace (methods that upload prototypes): full-size files written in place round by round */
    if ((E->algo->flags & FLCE_M_PROTOTYPES)) {
        float nan = NAN;
        uint8_t zero = 0;
        int64_t sp[4] = {E->T, n, C, d}, ss[2] = {E->T, n}, sn[1] = {n};
        if ((st = npy_prealloc(E, "prototypes.npy", FLCE_NPY_F32, 4, sp, &nan, cfg->resume, &E->fd_proto, &E->proto_off, e)))
            return st;
        /* the other reading's prototypes from the same feature pass (flce eval --proto-samples);
         * not in the trace's checksum chain: a resume rewrites every row after the rounds done */
        if ((st = npy_prealloc(E, "prototypes_alt.npy", FLCE_NPY_F32, 4, sp, &nan, cfg->resume, &E->fd_proto_alt, &E->proto_alt_off, e)))
            return st;
        if ((st = npy_prealloc(E, "selected.npy", FLCE_NPY_U8, 2, ss, &zero, cfg->resume, &E->fd_sel, &E->sel_off, e))) return st;
        int64_t *sizes = malloc(sizeof(int64_t) * (size_t)n);
        if (!sizes) return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
        for (int k = 0; k < n; k++) sizes[k] = (int64_t)E->sizes[k];
        snprintf(p, sizeof p, "%s/trace/data_sizes.npy", E->dir);
        st = flce_npy_write(p, FLCE_NPY_I64, 1, sn, sizes, e);
        free(sizes);
        if (st) return st;
        if (cfg->class_weights) {
            int64_t sc[1] = {C};
            snprintf(p, sizeof p, "%s/trace/class_weights.npy", E->dir);
            if ((st = flce_npy_write(p, FLCE_NPY_F64, 1, sc, cfg->class_weights, e))) return st;
        }
        if (cfg->resume && !fresh && (st = verify_trace(E, done, e))) return st;
    }
    if (E->algo->open && (st = E->algo->open(E, e))) return st; /* the settings and the folder are checked */
    if ((!cfg->resume || fresh) && (st = save_state(E, 0, e))) return st; /* a run killed in its first round can be resumed */
    if (cfg->resume && !fresh) { /* the per-round files hold exactly the rounds the state says are done */
        if ((st = write_metrics(E, done, e)) || (st = write_round_contributions(E, done, e))) return st;
        if (E->rules_hist && (st = write_round_rules(E, done, e))) return st;
    }
    *done_out = done;
    return FLCE_OK;
}

/* The round's files (rank 0): the trace's rows, metrics.csv, round_contributions.csv, state.bin. */
/* round_contributions_rules.csv: every reading of the cosine rule, round by round (methods
 * with FLCE_M_COSINE_RULES). */
static flce_status write_round_rules(engine *E, int rounds, flce_err *e) {
    size_t cap = 128 + (size_t)rounds * E->K * (24 + 26 * FLCE_NRULES), n = 0;
    char *b = malloc(cap);
    if (!b) return flce_fail(e, FLCE_ERR_NOMEM, "round contributions: out of memory");
    flce_catf(b, cap, &n, "round,client");
    for (int r = 0; r < FLCE_NRULES; r++) flce_catf(b, cap, &n, ",%s", FLCE_RULE_NAMES[r]);
    flce_catf(b, cap, &n, "\n");
    for (int t = 0; t < rounds; t++)
        for (int k = 0; k < E->n; k++) {
            const double *h = E->rules_hist + ((size_t)t * E->n + k) * FLCE_NRULES;
            if (isnan(h[FLCE_RULE_WEIGHT])) continue; /* not selected */
            flce_catf(b, cap, &n, "%d,%d", t + 1, k);
            for (int r = 0; r < FLCE_NRULES; r++) flce_catf(b, cap, &n, ",%.17g", h[r]);
            flce_catf(b, cap, &n, "\n");
        }
    flce_status st = write_text(E, "round_contributions_rules.csv", b, e);
    free(b);
    return st;
}

static flce_status write_round(engine *E, uint8_t *selrow, flce_err *e) {
    int n = E->n, K = E->K, C = E->C, d = E->d;
    flce_status st = FLCE_OK;
    {
        if ((E->algo->flags & FLCE_M_PROTOTYPES)) {
            for (int k = 0; k < n; k++) selrow[k] = 0;
            for (int i = 0; i < K; i++) {
                int k = E->sel[i];
                selrow[k] = 1;
                st = pwrite_all(E->fd_proto, E->protos + (size_t)k * C * d, sizeof(float) * (size_t)C * d,
                                E->proto_off + sizeof(float) * ((size_t)E->t * n + k) * C * d, "trace/prototypes.npy", e);
                if (!st) st = pwrite_all(E->fd_proto_alt, E->protos_alt + (size_t)k * C * d, sizeof(float) * (size_t)C * d,
                                         E->proto_alt_off + sizeof(float) * ((size_t)E->t * n + k) * C * d, "trace/prototypes_alt.npy", e);
                if (st) return st;
            }
            if (!st) st = pwrite_all(E->fd_sel, selrow, (size_t)n, E->sel_off + (size_t)E->t * n, "trace/selected.npy", e);
            if (st) return st;
            E->chain_proto = XXH3_64bits_withSeed(E->protos, sizeof(float) * (size_t)n * C * d, E->chain_proto);
            E->chain_sel = XXH3_64bits_withSeed(selrow, (size_t)n, E->chain_sel);
        }
        if ((st = write_metrics(E, E->t + 1, e))) return st;
        if ((st = write_round_contributions(E, E->t + 1, e))) return st;
        if (E->rules_hist && (st = write_round_rules(E, E->t + 1, e))) return st;
        st = save_state(E, E->t + 1, e);
    }
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
    flce_data_shares(E->sizes, NULL, C, n, Qd);
    for (int k = 0; k < n; k++) all[k] = 1;
    for (; E->t < E->T && !st; E->t++) {
        if (E->comm) ((flce_comm *)E->comm)->round = E->t + 1;
        flce_round_metrics *m = &E->metrics[E->t];
        memset(m, 0, sizeof *m);
        m->round = E->t + 1;
        flce_rng r;
        flce_rng_init(&r, cfg->seed, FLCE_RNG_SELECT, (uint32_t)E->t, 0);
        flce_rng_sample(&r, n, K, E->sel);
        for (int i = 1; i < K; i++) /* ascending client order: the aggregation order */
            for (int j = i; j > 0 && E->sel[j - 1] > E->sel[j]; j--) {
                int tmp = E->sel[j];
                E->sel[j] = E->sel[j - 1];
                E->sel[j - 1] = tmp;
            }
        for (size_t i = 0; i < (size_t)n * C * d; i++) E->protos[i] = E->protos_alt[i] = NAN;
        memset(E->present, 0, (size_t)n * C);
        E->nocorrect = 0;
        E->fallback = 0;
        E->personal_acc = 0;
        for (int i = 0; i < K; i++) E->pacc[i] = 0, E->nc_slot[i] = 0;
        assign_slots(E);
        double t0 = now_s();
        if ((st = client_phase(E, e))) break;
        for (int i = 0; i < K; i++) E->nocorrect += E->nc_slot[i], E->personal_acc += E->pacc[i] / E->K;
        m->client_s = now_s() - t0;
        t0 = now_s();
        flce_eng_utility_reset(E);
        if ((st = coalitions_phase(E, e))) break;
        E->rules_s = 0;
        if ((st = agree(E, E->algo->server(E, e), e))) break;
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
        m->proto_nocorrect = E->nocorrect;
        double ls = 0;
        for (int i = 0; i < K; i++) ls += E->losses[i];
        m->mean_loss = ls / K;
        flce_model_set_state(&E->m, E->global);
        if ((st = agree(E, evaluate(E, &E->m, E->test_x, E->test_y, E->n_test, &m->acc, &m->macro_f1, NULL, 1, e), e)))
            break;
        m->personal_acc = E->personal_acc;
        for (int k = 0; k < n; k++) run[k] = E->algo->flags & FLCE_M_CLAMP ? fmax(0, E->contrib_sum[k]) : E->contrib_sum[k];
        flce_normalize(run, all, n);
        m->kl = flce_kl(run, Qd, n, NULL);
        if ((st = agree(E, E->writer ? write_round(E, selrow, e) : FLCE_OK, e))) break;
        if (progress && E->writer) progress(ud, m, E->T, now_s() - t_start);
        /* fault injection for the crash tests (documented in docs/formats.md): die as a SIGKILL
         * would, after round N */
        const char *kill = getenv("FLCE_TEST_KILL_AFTER"), *kr = getenv("FLCE_TEST_KILL_RANK");
        if (kill && atoi(kill) == E->t + 1 && (!kr || (E->comm && atoi(kr) == E->comm->rank))) _exit(137);
        /* ... or stop as a SIGSTOP would (the --rank-timeout test): that rank, after round N */
        const char *stop = getenv("FLCE_TEST_STOP_AFTER"), *sr = getenv("FLCE_TEST_STOP_RANK");
        if (stop && atoi(stop) == E->t + 1 && E->comm && sr && atoi(sr) == E->comm->rank) raise(SIGSTOP);
    }
    free(Qd), free(run), free(all), free(selrow);
    return st;
}




/* The end: final contributions, the checkpoint, digests.txt and the summary. */
static flce_status finish_run(engine *E, uint64_t d_part, uint64_t d_init, flce_run_summary *sum, flce_err *e) {
    int n = E->n, C = E->C;
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
        if ((st = write_text(E, "costs.txt", ct, e))) {
            free(CE);
            return st;
        }
    }
    size_t cap = 64 + (size_t)n * 48, len = 0;
    char *csv = malloc(cap);
    flce_catf(csv, cap, &len, "client,contribution\n");
    for (int k = 0; k < n; k++) flce_catf(csv, cap, &len, "%d,%.17g\n", k, CE[k]);
    st = write_text(E, "contributions.csv", csv, e);
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
            st = write_text(E, "contributions_rules.csv", rb, e);
        }
        free(rb), free(tot), free(col), free(allk);
    }
    flce_model_set_state(&E->m, E->global);
    snprintf(p, sizeof p, "%s/model.safetensors", E->dir);
    if (!st) st = flce_model_save(&E->m, p, e);
    double *Qd2 = malloc(sizeof(double) * (size_t)n), *shares = malloc(sizeof(double) * (size_t)n);
    flce_data_shares(E->sizes, NULL, C, n, shares);
    sum->kl = flce_kl(CE, shares, n, NULL);
    flce_data_shares(E->sizes, E->held, C, n, Qd2);
    sum->kl_div = flce_kl(CE, Qd2, n, NULL);
    if (!st) {
        char dg[1024], h[6][17];
        flce_digest_hex(d_part, h[0]);
        flce_digest_hex(d_init, h[1]);
        flce_digest_hex(flce_digest(E->global, E->S * 4), h[2]);
        snprintf(p, sizeof p, "%s/trace/prototypes.npy", E->dir);
        uint64_t tp = (E->algo->flags & FLCE_M_PROTOTYPES) ? file_digest(p) : 0;
        snprintf(p, sizeof p, "%s/trace/selected.npy", E->dir);
        uint64_t ts = (E->algo->flags & FLCE_M_PROTOTYPES) ? file_digest(p) : 0;
        flce_digest_hex(tp ^ (ts * 0x9E3779B97F4A7C15ull), h[3]);
        flce_digest_hex(flce_digest(CE, sizeof(double) * (size_t)n), h[4]);
        snprintf(dg, sizeof dg,
                 "partition %s\ninitial_model %s\nfinal_model %s\ntrace %s\ncontributions %s\n", h[0], h[1], h[2],
                 (E->algo->flags & FLCE_M_PROTOTYPES) ? h[3] : "none", h[4]);
        st = write_text(E, "digests.txt", dg, e);
    }
    free(CE), free(Qd2), free(shares);
    int w = E->T < 10 ? E->T : 10;
    for (int i = E->T - w; i < E->T; i++) {
        sum->final_acc += E->metrics[i].acc / w;
        sum->final_f1 += E->metrics[i].macro_f1 / w;
    }
    for (int i = 0; i < E->T; i++) sum->server_s += E->metrics[i].server_s, sum->client_s += E->metrics[i].client_s;
    sum->server_s += comp_s; /* the whole run's server time: the rounds and the work after them */
    sum->completion_s = comp_s;
    sum->rounds_done = E->T;
    return st;
}

flce_status flce_run(const flce_run_cfg *cfg, flce_progress_fn progress, void *ud, flce_run_summary *sum, flce_err *e) {
    engine E0, *E = &E0;
    memset(E, 0, sizeof *E);
    memset(sum, 0, sizeof *sum);
    E->cfg = cfg;
    E->fd_proto = E->fd_proto_alt = E->fd_sel = -1;
    E->comm = cfg->comm;
    E->writer = !cfg->comm || cfg->comm->rank == 0;
    flce_status st = validate(cfg, &E->algo, e);
    if (st) return st;
    if ((st = setup_data(E, e))) goto out;
    if ((st = same_everywhere(E, e))) goto out;
    if ((st = agree(E, check_dir(E, e), e))) goto out;
    /* the backend after the run folder is checked and before anything is written into it: an
     * unusable --backend or --device leaves nothing behind (--force deletes nothing) */
    if (!(E->be = cfg->backend(cfg->backend_ud, e))) {
        st = FLCE_ERR_ARG; /* as every unusable --backend or --device */
        goto out;
    }
    if ((st = agree(E, make_dir(E, e), e))) goto out;
    E->n = cfg->clients, E->K = cfg->per_round, E->T = cfg->rounds, E->d = FLCE_FEAT;
    snprintf(sum->device, sizeof sum->device, "%s", E->be->device);
    if ((st = engine_alloc(E, e))) goto out;
    uint64_t d_init = flce_digest(E->global, E->S * 4), d_part = flce_partition_digest(&E->part);
    int done = 0;
    if ((st = agree(E, open_run_files(E, &done, e), e))) goto out;
    if ((st = agree(E, share_state(E, &done, e), e))) goto out;
    { /* fault injection for the crash tests (FLCE_TEST_KILL_AFTER=0: die before the first round) */
        const char *kill = getenv("FLCE_TEST_KILL_AFTER");
        if (kill && !strcmp(kill, "0") && done == 0) _exit(137);
    }
    E->t = done;
    if ((st = run_rounds(E, progress, ud, e))) goto out;
    if (E->writer) st = finish_run(E, d_part, d_init, sum, e); /* the other ranks' part is done */
out:
    engine_free(E);
    return st;
}
