/* attacks.c: strategic clients (--attack KIND:CLIENT[:STRENGTH]; docs/attacks.md, issue 85). Every
 * attack is applied here, by the engine, to the attacker's data before training or to what it
 * uploads after it; no method knows that attacks exist. Without an attack nothing here runs, and
 * every run's bytes are those of a build without this file. Each draw an attack makes comes from
 * its own stream (FLCE_RNG_ATTACK, keyed by kind and client; the free-rider's noise by round). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attacks.h"
#include "engine_int.h"
#include "method.h"

static const struct {
    const char *name;
    double lo, hi, def; /* the strength's range and its default */
    int integer;
    const char *strength; /* what the strength is, for the messages */
} KINDS[] = {
    [FLCE_ATTACK_REPLICATE] = {"replicate", 1, 100, 2, 1, "the copies of its data, a whole number from 1 to 100"},
    [FLCE_ATTACK_RANDOM_DATA] = {"random-data", 0, 1, 1, 0, "the fraction of its samples, 0 to 1"},
    [FLCE_ATTACK_SHUFFLE_LABELS] = {"shuffle-labels", 0, 1, 1, 0, "the fraction of its samples, 0 to 1"},
    [FLCE_ATTACK_FLIP_LABELS] = {"flip-labels", 0, 1, 1, 0, "the fraction of its samples, 0 to 1"},
    [FLCE_ATTACK_FREE_RIDER] = {"free-rider", 0, 10, 0, 0, "the noise's standard deviation, 0 to 10"},
    [FLCE_ATTACK_INFLATE_COUNT] = {"inflate-count", 1, 1000, 2, 0, "the factor on its sample count, 1 to 1000"},
    [FLCE_ATTACK_FORGE_PROTOTYPES] = {"forge-prototypes", 0, 1000, 2, 0, "the factor on its prototypes, above 0 and at most 1000"},
};
#define NKINDS ((int)(sizeof KINDS / sizeof KINDS[0]))

const char *flce_attack_name(int kind) { return kind > 0 && kind < NKINDS ? KINDS[kind].name : "?"; }

const char *flce_attack_kinds(void) {
    return "replicate, random-data, shuffle-labels, flip-labels, free-rider, inflate-count, forge-prototypes";
}

/* a plain decimal whole number (no sign, space or leading zero), at most 9 digits; -1 if not */
static long plain_int(const char *s, size_t len) {
    if (!len || len > 9 || (s[0] == '0' && len > 1)) return -1;
    long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

int flce_attack_parse(const char *spec, flce_attack *a, char *why, size_t cap) {
    const char *c1 = strchr(spec, ':');
    if (!c1) return snprintf(why, cap, "KIND:CLIENT[:STRENGTH], the kind one of %s", flce_attack_kinds()), -1;
    memset(a, 0, sizeof *a);
    for (int k = 1; k < NKINDS; k++)
        if (strlen(KINDS[k].name) == (size_t)(c1 - spec) && !strncmp(spec, KINDS[k].name, (size_t)(c1 - spec))) a->kind = k;
    if (!a->kind) return snprintf(why, cap, "'%.*s' is not a kind of attack (%s)", (int)(c1 - spec), spec, flce_attack_kinds()), -1;
    const char *c2 = strchr(c1 + 1, ':');
    size_t clen = c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1);
    long cl = plain_int(c1 + 1, clen);
    if (cl < 0) return snprintf(why, cap, "the client '%.*s' is not a plain decimal index", (int)clen, c1 + 1), -1;
    a->client = (int)cl;
    a->strength = KINDS[a->kind].def;
    if (c2) {
        char *end;
        const char *s = c2 + 1;
        double v = strtod(s, &end);
        int bad = !*s || *end || !isfinite(v), dots = 0; /* a plain decimal: digits and one point at most */
        for (const char *q = s; *q && !bad; q++) bad = !(*q >= '0' && *q <= '9') && (*q != '.' || dots++ || q == s || !q[1]);
        if (!bad && KINDS[a->kind].integer && v != floor(v)) bad = 1;
        int lo_open = a->kind == FLCE_ATTACK_FORGE_PROTOTYPES;
        if (bad || v > KINDS[a->kind].hi || (lo_open ? v <= KINDS[a->kind].lo : v < KINDS[a->kind].lo))
            return snprintf(why, cap, "%s's strength '%s': %s", KINDS[a->kind].name, s, KINDS[a->kind].strength), -1;
        a->strength = v;
    }
    return 0;
}

flce_status flce_attacks_check(const flce_run_cfg *c, flce_err *e) {
    for (int i = 0; i < c->nattacks; i++) {
        const flce_attack *a = &c->attacks[i];
        if (a->client < 0 || a->client >= c->clients)
            return flce_fail(e, FLCE_ERR_ARG, "--attack %s:%d: no client %d of 0..%d", flce_attack_name(a->kind), a->client, a->client,
                             c->clients - 1);
        for (int j = 0; j < i; j++)
            if (c->attacks[j].client == a->client)
                return flce_fail(e, FLCE_ERR_ARG, "--attack: client %d named twice (%s and %s): one attack a client", a->client,
                                 flce_attack_name(c->attacks[j].kind), flce_attack_name(a->kind));
        if (c->part.duplicate && (a->client == c->part.dup_from || a->client == c->part.dup_to))
            return flce_fail(e, FLCE_ERR_ARG, "--attack %s:%d: client %d is also named by --duplicate %d:%d (its data would be two clients')",
                             flce_attack_name(a->kind), a->client, a->client, c->part.dup_from, c->part.dup_to);
    }
    return FLCE_OK;
}

int flce_attack_felt(int kind, unsigned method_flags) {
    if (kind == FLCE_ATTACK_FORGE_PROTOTYPES) return (method_flags & FLCE_M_PROTOTYPES) != 0;
    if (kind == FLCE_ATTACK_INFLATE_COUNT) return (method_flags & FLCE_M_COUNTS) != 0;
    return 1; /* its data or its model: every method trains on them */
}

const flce_attack *flce_attack_on(const flce_run_cfg *c, int client) {
    for (int i = 0; i < c->nattacks; i++)
        if (c->attacks[i].client == client) return &c->attacks[i];
    return NULL;
}

/* the strength in the fewest digits (6 to 17) that read back as the same double: the record
 * names the strength the run used, never a rounding of it */
void flce_attack_words(const flce_attack *a, char *o, size_t cap) {
    char num[40];
    for (int p = 6; p <= 17; p++) {
        snprintf(num, sizeof num, "%.*g", p, a->strength);
        if (strtod(num, NULL) == a->strength) break;
    }
    snprintf(o, cap, "%s:%d:%s", flce_attack_name(a->kind), a->client, num);
}

/* m = round(f n) of the n entries, drawn by the attack's stream, into pick [m] (ascending) */
static int draw_entries(const flce_run_cfg *c, const flce_attack *a, int64_t n, double f, int *pick) {
    int m = (int)floor(f * (double)n + 0.5);
    if (m > n) m = (int)n;
    flce_rng r;
    flce_rng_init(&r, c->seed, FLCE_RNG_ATTACK, (uint32_t)a->kind, (uint32_t)a->client);
    flce_rng_sample(&r, (int)n, m, pick);
    for (int i = 1; i < m; i++) /* ascending: the labels are changed in the data's order */
        for (int j = i; j > 0 && pick[j - 1] > pick[j]; j--) {
            int t = pick[j];
            pick[j] = pick[j - 1], pick[j - 1] = t;
        }
    return m;
}

flce_status flce_attacks_partition(flce_partition *p, const flce_run_cfg *c, flce_err *e) {
    for (int i = 0; i < c->nattacks; i++) {
        const flce_attack *a = &c->attacks[i];
        int k = a->client, C = p->classes;
        int64_t lo = p->offsets[k], nk = p->offsets[k + 1] - lo;
        if (a->kind == FLCE_ATTACK_FLIP_LABELS || a->kind == FLCE_ATTACK_SHUFFLE_LABELS) {
            int *pick = malloc(sizeof *pick * (size_t)(nk + 1)), *perm = malloc(sizeof *perm * (size_t)(nk + 1));
            uint8_t *lab = malloc((size_t)nk + 1);
            if (!pick || !perm || !lab) {
                free(pick), free(perm), free(lab);
                return flce_fail(e, FLCE_ERR_NOMEM, "--attack: out of memory");
            }
            int m = draw_entries(c, a, nk, a->strength, pick);
            if (a->kind == FLCE_ATTACK_FLIP_LABELS)
                for (int j = 0; j < m; j++) p->labels[lo + pick[j]] = (uint8_t)(C - 1 - p->labels[lo + pick[j]]);
            else { /* the chosen samples' labels, permuted among them */
                flce_rng r;
                flce_rng_init(&r, c->seed, FLCE_RNG_ATTACK, (uint32_t)a->kind + 100u, (uint32_t)k);
                flce_rng_permutation(&r, m, perm);
                for (int j = 0; j < m; j++) lab[j] = p->labels[lo + pick[perm[j]]];
                for (int j = 0; j < m; j++) p->labels[lo + pick[j]] = lab[j];
            }
            free(pick), free(perm), free(lab);
        } else if (a->kind == FLCE_ATTACK_REPLICATE && a->strength > 1) { /* its entries, then copies of them */
            int n = p->n_clients, r = (int)a->strength;
            int64_t N = p->offsets[n], extra = nk * (r - 1);
            int64_t *off = malloc(sizeof *off * ((size_t)n + 1));
            int32_t *idx = malloc(sizeof *idx * (size_t)(N + extra + 1));
            uint8_t *lab = malloc((size_t)(N + extra + 1));
            if (!off || !idx || !lab) {
                free(off), free(idx), free(lab);
                return flce_fail(e, FLCE_ERR_NOMEM, "--attack replicate: out of memory");
            }
            off[0] = 0;
            for (int q = 0; q < n; q++) {
                int64_t m = p->offsets[q + 1] - p->offsets[q];
                for (int copy = 0; copy < (q == k ? r : 1); copy++) {
                    memcpy(idx + off[q] + copy * m, p->index + p->offsets[q], sizeof *idx * (size_t)m);
                    memcpy(lab + off[q] + copy * m, p->labels + p->offsets[q], (size_t)m);
                }
                off[q + 1] = off[q] + m * (q == k ? r : 1);
            }
            free(p->offsets), free(p->index), free(p->labels);
            p->offsets = off, p->index = idx, p->labels = lab;
        }
    }
    return FLCE_OK;
}

flce_status flce_attacks_data(engine *E, flce_err *e) {
    const flce_run_cfg *c = E->cfg;
    const flce_split *tr = &E->ds.train;
    for (int i = 0; i < c->nattacks; i++) {
        const flce_attack *a = &c->attacks[i];
        int k = a->client;
        int64_t lo = E->part.offsets[k], nk = E->part.offsets[k + 1] - lo;
        if (a->kind == FLCE_ATTACK_RANDOM_DATA) { /* the pixels of the chosen samples: uniform on 0..255 */
            int *pick = malloc(sizeof *pick * (size_t)(nk + 1));
            uint8_t *px = malloc((size_t)E->CHW);
            if (!pick || !px) {
                free(pick), free(px);
                return flce_fail(e, FLCE_ERR_NOMEM, "--attack random-data: out of memory");
            }
            int m = draw_entries(c, a, nk, a->strength, pick);
            for (int j = 0; j < m; j++) {
                int s = E->part.index[lo + pick[j]];
                flce_rng r;
                flce_rng_init(&r, c->seed, FLCE_RNG_ATTACK, (uint32_t)a->kind + 200u, (uint32_t)s);
                for (int q = 0; q < E->CHW; q++) px[q] = (uint8_t)flce_rng_below(&r, 256);
                flce_dataset_pixels_f32(&E->ds, tr->c, (size_t)tr->h * tr->w, px, E->train_x + (size_t)s * E->CHW);
            }
            free(pick), free(px);
        } else if (a->kind == FLCE_ATTACK_INFLATE_COUNT) { /* the methods read the count it reports */
            if (!E->data_sizes) { /* (the data are laid out before E->n is set: the clients are c's) */
                if (!(E->data_sizes = malloc(sizeof(double) * (size_t)c->clients))) return flce_fail(e, FLCE_ERR_NOMEM, "--attack: out of memory");
                memcpy(E->data_sizes, E->sizes, sizeof(double) * (size_t)c->clients);
            }
            E->sizes[k] = E->data_sizes[k] * a->strength;
        }
    }
    return FLCE_OK;
}

int flce_attack_free_ride(engine *E, int k) {
    const flce_attack *a = flce_attack_on(E->cfg, k);
    if (!a || a->kind != FLCE_ATTACK_FREE_RIDER) return 0;
    if (a->strength > 0) { /* Fraboni et al.'s disguised free-rider: noise of std sigma t^-1 on the parameters */
        float *w = malloc(sizeof(float) * E->S);
        if (!w) return -1;
        flce_model_get_state(&E->m, w);
        flce_rng r;
        flce_rng_init(&r, flce_train_seed(E->cfg), FLCE_RNG_ATTACK, (uint32_t)E->t, (uint32_t)k);
        double sd = a->strength / (E->t + 1);
        for (size_t j = 0; j < E->S; j++)
            if (E->trainable[j]) w[j] = (float)(w[j] + sd * flce_rng_normal(&r));
        flce_model_set_state(&E->m, w);
        free(w);
    }
    return 1;
}

void flce_attack_upload(engine *E, int slot) {
    int k = E->sel[slot];
    const flce_attack *a = flce_attack_on(E->cfg, k);
    if (!a || a->kind != FLCE_ATTACK_FORGE_PROTOTYPES || !(E->algo->flags & FLCE_M_PROTOTYPES)) return;
    size_t o = (size_t)k * E->C * E->d, n = (size_t)E->C * E->d;
    float s = (float)a->strength;
    for (size_t j = 0; j < n; j++) { /* every reading of its prototypes (absent classes are NaN, and stay) */
        E->protos[o + j] *= s;
        E->protos_alt[o + j] *= s;
        E->protos_first[o + j] *= s;
    }
}
