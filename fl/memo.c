/* memo.c: work reused across the runs of one configuration (flce_memo, engine.h).
 *
 * A selected client's update is a function of the model it receives, the round, the client and
 * the training seed, for a method without client hooks or client state and without strategic
 * clients (its upload, mean loss and the batches it counts: a slot's bundle, processes.c); a test
 * evaluation is a function of the model alone. Runs that differ only in the clients they select
 * (flce truth's coalitions: every coalition's first round starts from the same initial model)
 * repeat such work; the memo keeps each result with a copy of the model it came from, and a run
 * takes it where the model is the same bytes (digest, then memcmp), so the results are the same
 * bits as the work redone. Within its byte budget it keeps the entries of the earliest rounds
 * (where runs share models), the least recently used first out among those of one round. */
#include "engine.h"
#include "method.h"
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "engine_int.h"

typedef struct {
    uint64_t id, dig; /* id: never reused (updates name their model by it); dig: flce_digest of w */
    int level;        /* the rounds behind the model */
    float *w;         /* [S] */
    int evaluated, has_loss;
    double acc, f1, loss;
    uint64_t used;
} memo_model;

typedef struct {
    uint64_t model, seed; /* the model received (its id), the training seed */
    int t, k;
    unsigned char *bundle; /* the slot's bundle (eng_slot_bundle) */
    int64_t bn[32];        /* the BatchNorm batch counters' increments */
    uint64_t used;
} memo_update;

struct flce_memo {
    size_t budget, bytes, S, bundle;
    uint64_t fp, next_id, clock;
    memo_model *models;
    memo_update *ups;
    int nmodels, capm, nups, capu;
    long counts[4]; /* updates reused, trained; evaluations reused, run */
};

flce_memo *flce_memo_new(size_t budget_bytes) {
    flce_memo *m = flce_calloc(1, sizeof *m);
    if (m) m->budget = budget_bytes;
    return m;
}

static void clear(flce_memo *m) {
    for (int i = 0; i < m->nmodels; i++) free(m->models[i].w);
    for (int i = 0; i < m->nups; i++) free(m->ups[i].bundle);
    m->nmodels = m->nups = 0, m->bytes = 0;
}

void flce_memo_free(flce_memo *m) {
    if (!m) return;
    clear(m);
    free(m->models), free(m->ups), free(m);
}

void flce_memo_counts(const flce_memo *m, long counts[4]) {
    for (int i = 0; i < 4; i++) counts[i] = m ? m->counts[i] : 0;
}

static void drop_update(flce_memo *m, int i) {
    free(m->ups[i].bundle);
    m->bytes -= m->bundle;
    m->ups[i] = m->ups[--m->nups];
}

static void drop_model(flce_memo *m, int i) {
    for (int j = m->nups - 1; j >= 0; j--)
        if (m->ups[j].model == m->models[i].id) drop_update(m, j);
    free(m->models[i].w);
    m->bytes -= m->S * 4;
    m->models[i] = m->models[--m->nmodels];
}

/* Over the budget: out go the entries of the latest round (an update counts as its round's end),
 * the least recently used first among them, a model with the updates made from it. */
static void trim(flce_memo *m) {
    while (m->bytes > m->budget && (m->nmodels || m->nups)) {
        int bm = -1, bu = -1;
        for (int i = 0; i < m->nmodels; i++)
            if (bm < 0 || m->models[i].level > m->models[bm].level ||
                (m->models[i].level == m->models[bm].level && m->models[i].used < m->models[bm].used))
                bm = i;
        for (int i = 0; i < m->nups; i++)
            if (bu < 0 || m->ups[i].t > m->ups[bu].t || (m->ups[i].t == m->ups[bu].t && m->ups[i].used < m->ups[bu].used)) bu = i;
        if (bu >= 0 && (bm < 0 || m->ups[bu].t + 1 >= m->models[bm].level)) drop_update(m, bu);
        else drop_model(m, bm);
    }
}

/* The settings a client's update and a test evaluation depend on: config.json less what only
 * selects (members, per_round), the training seed (in the updates' key) and the rounds tested;
 * and beside it the backend and the evaluation batch (config.json has neither: the contract makes
 * them the same bits, the memo does not lean on it for a caller that shares one across runs). */
static uint64_t fingerprint(engine *E) {
    cJSON *cj = eng_config_json(E);
    if (!cj) return 0;
    static const char *const keys[] = {"members", "per_round", "train_seed", "test_from"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) cJSON_DeleteItemFromObjectCaseSensitive(cj, keys[i]);
    char *txt = eng_settings_text(E, cj);
    cJSON_Delete(cj);
    char run[160];
    int n = snprintf(run, sizeof run, "backend %s eval_batch %d size %zu", E->be ? E->be->name : "none", E->cfg->eval_batch,
                     (size_t)E->S);
    uint64_t d = txt ? flce_digest(txt, strlen(txt)) ^ flce_digest(run, (size_t)n) : 0;
    free(txt);
    return d; /* 0: out of memory (the memo is then not used) */
}

flce_memo *eng_memo_attach(engine *E) {
    flce_memo *m = E->cfg->memo;
    if (!m || !m->budget || (E->comm && E->comm->size > 1)) return NULL;
    uint64_t fp = fingerprint(E);
    if (!fp) return NULL;
    if (fp != m->fp) clear(m), m->fp = fp, m->S = E->S, m->bundle = eng_slot_bundle(E, 0, NULL, 1);
    return m;
}

static int updates_pure(const engine *E) {
    const flce_method *M = E->algo;
    return !M->client_begin && !M->local_step && !M->client_end && !(M->flags & (FLCE_M_CLIENT_STATE | FLCE_M_PROTOTYPES)) &&
           !E->cfg->nattacks;
}

/* The entry of model w (level: the rounds behind it), made when absent and add is set; -1 when
 * none (or out of memory: the memo then does without). */
static int find_model(flce_memo *m, const float *w, int level, int add) {
    uint64_t dig = flce_digest(w, m->S * 4);
    for (int i = 0; i < m->nmodels; i++)
        if (m->models[i].dig == dig && !memcmp(m->models[i].w, w, m->S * 4)) {
            m->models[i].used = ++m->clock;
            return i;
        }
    if (!add) return -1;
    if (m->nmodels == m->capm) {
        int cap = m->capm ? 2 * m->capm : 64;
        memo_model *p = realloc(m->models, sizeof *p * (size_t)cap);
        if (!p) return -1;
        m->models = p, m->capm = cap;
    }
    float *copy = malloc(m->S * 4);
    if (!copy) return -1;
    memcpy(copy, w, m->S * 4);
    memo_model *x = &m->models[m->nmodels++];
    memset(x, 0, sizeof *x);
    x->id = ++m->next_id, x->dig = dig, x->level = level, x->w = copy, x->used = ++m->clock;
    m->bytes += m->S * 4;
    return m->nmodels - 1;
}

int eng_memo_update(engine *E, int slot, int64_t *bn, int nbn) {
    flce_memo *m = E->memo;
    if (!m || !updates_pure(E)) return 0;
    int i = find_model(m, E->global, E->t, 0);
    if (i < 0) return 0;
    uint64_t id = m->models[i].id, seed = flce_train_seed(E->cfg);
    for (int j = 0; j < m->nups; j++) {
        memo_update *u = &m->ups[j];
        if (u->model == id && u->seed == seed && u->t == E->t && u->k == E->sel[slot]) {
            eng_slot_bundle(E, slot, u->bundle, 0);
            for (int l = 0; l < nbn; l++) bn[l] = u->bn[l];
            u->used = ++m->clock;
            m->counts[0]++;
            return 1;
        }
    }
    return 0;
}

void eng_memo_keep_update(engine *E, int slot, const int64_t *bn, int nbn) {
    flce_memo *m = E->memo;
    if (!m || !updates_pure(E)) return;
    m->counts[1]++;
    int i = find_model(m, E->global, E->t, 1);
    if (i < 0 || nbn > 32) { /* the model's copy may be new */
        trim(m);
        return;
    }
    if (m->nups == m->capu) {
        int cap = m->capu ? 2 * m->capu : 64;
        memo_update *p = realloc(m->ups, sizeof *p * (size_t)cap);
        if (!p) {
            trim(m);
            return;
        }
        m->ups = p, m->capu = cap;
    }
    unsigned char *b = malloc(m->bundle);
    if (!b) {
        trim(m);
        return;
    }
    eng_slot_bundle(E, slot, b, 1);
    memo_update *u = &m->ups[m->nups++];
    memset(u, 0, sizeof *u);
    u->model = m->models[i].id, u->seed = flce_train_seed(E->cfg), u->t = E->t, u->k = E->sel[slot], u->bundle = b;
    for (int l = 0; l < nbn; l++) u->bn[l] = bn[l];
    u->used = ++m->clock;
    m->bytes += m->bundle;
    trim(m);
}

flce_status eng_memo_evaluate(engine *E, double *acc, double *f1, double *loss, flce_err *e) {
    flce_memo *m = E->memo;
    int i = m ? find_model(m, E->global, E->t + 1, 1) : -1;
    if (i >= 0 && m->models[i].evaluated && (!loss || m->models[i].has_loss)) {
        *acc = m->models[i].acc, *f1 = m->models[i].f1;
        if (loss) *loss = m->models[i].loss;
        m->counts[2]++;
        return FLCE_OK;
    }
    flce_status st = eng_evaluate(E, &E->m, E->test_x, E->test_y, E->n_test, acc, f1, loss, 1, e);
    if (!m) return st;
    m->counts[3]++;
    if (!st && i >= 0) {
        memo_model *x = &m->models[i];
        x->evaluated = 1, x->acc = *acc, x->f1 = *f1, x->has_loss = loss != NULL, x->loss = loss ? *loss : 0;
    }
    trim(m);
    return st;
}
