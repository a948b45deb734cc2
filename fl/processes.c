/* processes.c: a run spread over several processes (flce_comm, engine.h): statuses agreed,
 * the same program and data checked everywhere, the round's slots assigned to ranks, every
 * slot's upload sent to all, the Shapley utilities spread, a resumed state shared. */
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
#include "engine_int.h"

/* Every rank's status agreed: when any rank failed, every rank fails with the message of the
 * lowest failing rank, prefixed with its number (rank 0's own message as it is). */
flce_status eng_agree(engine *E, flce_status st, flce_err *e) {
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

flce_status flce_eng_agree(engine *E, flce_status st, flce_err *e) { return eng_agree(E, st, e); }

/* Every rank runs the same program, contract and data: rank 0's fingerprint against each
 * rank's own; a rank that differs is named. */
flce_status eng_same_everywhere(engine *E, flce_err *e) {
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
    if ((st = eng_agree(E, st, e))) return st;
    /* and the same settings, every one that decides the results (config.json as it will be
     * written, the partition drawn): a rank with another --lr once ended with exit 0 and other
     * digests, one with another --seed or --rounds waited forever in a collective */
    cJSON *cj = eng_config_json(E);
    char *mytext = cj ? eng_settings_text(E, cj) : NULL;
    cJSON_Delete(cj);
    if (!mytext) return eng_agree(E, flce_fail(e, FLCE_ERR_NOMEM, "out of memory"), e);
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
    return eng_agree(E, st, e);
}

/* Each slot of the round to a rank, balanced by the clients' samples: the largest first, each
 * to the least loaded rank (ties: the lower slot, the lower rank). */
void eng_assign_slots(engine *E) {
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
size_t eng_slot_bundle(engine *E, int i, unsigned char *b, int pack) {
    int k = b ? E->sel[i] : 0, C = E->C, d = E->d; /* no bundle: its size alone (before any selection) */
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
    FIELD(&E->slot_value[i], 8);
    if (E->algo->flags & FLCE_M_PROTOTYPES) {
        FIELD(E->protos + (size_t)k * C * d, sizeof(float) * (size_t)C * d);
        FIELD(E->protos_alt + (size_t)k * C * d, sizeof(float) * (size_t)C * d);
        FIELD(E->protos_first + (size_t)k * C * d, sizeof(float) * (size_t)C * d);
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
flce_status eng_client_phase(engine *E, flce_err *e) {
    const flce_comm *c = E->comm;
    flce_status st = FLCE_OK;
    flce_bn_l *bn[32];
    int nbn = eng_bn_layers(&E->m, bn);
    int64_t before[32], delta[32];
    for (int l = 0; l < nbn; l++) before[l] = bn[l]->tracked;
    if (!c || c->size < 2) { /* one process: an update the memo holds is taken from it (fl/memo.c) */
        for (int i = 0; i < E->K && !st; i++) {
            if (eng_memo_update(E, i, delta, nbn)) {
                for (int l = 0; l < nbn; l++) bn[l]->tracked += delta[l];
                continue;
            }
            int64_t b0[32];
            for (int l = 0; l < nbn; l++) b0[l] = bn[l]->tracked;
            if ((st = eng_client_update(E, i, e))) break;
            for (int l = 0; l < nbn; l++) delta[l] = bn[l]->tracked - b0[l];
            eng_memo_keep_update(E, i, delta, nbn);
        }
        return st;
    }
    for (int i = 0; i < E->K && !st; i++)
        if (E->owner[i] == c->rank) st = eng_client_update(E, i, e);
    if ((st = eng_agree(E, st, e))) return st;
    size_t bytes = eng_slot_bundle(E, 0, NULL, 1);
    unsigned char *b = malloc(bytes);
    st = eng_agree(E, b ? FLCE_OK : flce_fail(e, FLCE_ERR_NOMEM, "out of memory"), e);
    for (int i = 0; i < E->K && !st; i++) {
        if (E->owner[i] == c->rank) eng_slot_bundle(E, i, b, 1);
        if (!(st = c->bcast((flce_comm *)c, b, bytes, E->owner[i], e)) && E->owner[i] != c->rank) eng_slot_bundle(E, i, b, 0);
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
    if ((st = eng_agree(E, st ? st : u.failed ? FLCE_ERR_NUMERIC : FLCE_OK, e))) {
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

/* --resume spread over processes: rank 0 read the state; every rank gets it. */
flce_status eng_share_state(engine *E, int *done, flce_err *e) {
    const flce_comm *c = E->comm;
    if (!c || c->size < 2) return FLCE_OK;
    int64_t d = c->rank == 0 ? *done : 0;
    flce_status st = c->sum_i64((flce_comm *)c, &d, 1, e); /* only rank 0's is not 0 */
    *done = (int)d;
    state_field f[64];
    for (int i = 0, nf = eng_state_fields(E, *done, f); i < nf && !st; i++)
        if (f[i].bytes) st = c->bcast((flce_comm *)c, f[i].p, f[i].bytes, 0, e);
    return st;
}
