/* state_file.c: state.bin, what --resume continues from (docs/formats.md): its fields in one
 * list, written atomically, read back and checked (the settings it belongs to, sizes, checksum). */
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

/* state.bin: what --resume needs: the rounds done, the global model, the server state, the
 * metrics so far, the BatchNorm batch counters of the model that trains, and the checksums
 * of the trace's rows written so far; the whole file ends with its own xxh3-64, so that a
 * flipped bit, a NaN written in, an edited round count or a truncation is refused, never
 * continued from. Written atomically after every round (and before the first). */
#define STATE_MAGIC 0x35534c46u  /* "FLS5": the contribution rules' history with the L2 update-norm rule (5 columns) */
#define STATE_MAGIC4 0x34534c46u /* "FLS4": FLCE's global prototypes in its method state, 4 rules: refused */
#define STATE_MAGIC3 0x33534c46u /* "FLS3": the settings in its header, FLCE's prototypes in fields of every run: refused */
#define STATE_MAGIC2 0x32534c46u /* "FLS2": before; refused (it does not say whose it is) */

int eng_bn_layers(flce_model *m, flce_bn_l **out) {
    int k = 0;
    out[k++] = &m->bn1;
    for (int i = 0; i < 9; i++) {
        out[k++] = &m->blk[i].b1, out[k++] = &m->blk[i].b2;
        if (m->blk[i].has_sc) out[k++] = &m->blk[i].sb;
    }
    return k;
}


int eng_state_fields(engine *E, int done, state_field *f) {
    flce_bn_l *bn[32];
    int nbn = eng_bn_layers(&E->m, bn), k = 0;
    f[k++] = (state_field){E->global, E->S * 4};
    f[k++] = (state_field){E->contrib_sum, (size_t)E->n * 8};
    f[k++] = (state_field){E->aux_f, E->aux_fn * 4};
    f[k++] = (state_field){E->aux_d, E->aux_dn * 8};
    f[k++] = (state_field){E->rc_hist, (size_t)E->T * E->n * 8};
    if (E->rules_hist) f[k++] = (state_field){E->rules_hist, (size_t)E->T * E->n * FLCE_NRULES * 8};
    f[k++] = (state_field){E->metrics, (size_t)done * sizeof(flce_round_metrics)};
    if (E->test_loss) f[k++] = (state_field){E->test_loss, (size_t)done * 8}; /* only where asked: older states stay readable */
    for (int i = 0; i < nbn; i++) f[k++] = (state_field){&bn[i]->tracked, 8};
    f[k++] = (state_field){&E->chain_proto, 8};
    f[k++] = (state_field){&E->chain_sel, 8};
    return k;
}

/* header, fields, and the checksum of all before it */
/* The settings a state belongs to: config.json as this run writes it (compact) and the digest of
 * the partition drawn (which the subset and the seed decide): what must be equal for a state to
 * be this run's. Computed once, at eng_open_run_files. */
static size_t settings_len(const engine *E) { return E->settings ? strlen(E->settings) : 0; }

size_t eng_state_size(engine *E, int done) {
    state_field f[64];
    size_t sz = 16 + 4 + settings_len(E) + 8;
    for (int i = 0, n = eng_state_fields(E, done, f); i < n; i++) sz += f[i].bytes;
    return sz;
}

flce_status eng_save_state(engine *E, int done, flce_err *e) {
    size_t sz = eng_state_size(E, done);
    unsigned char *b = malloc(sz), *p = b;
    if (!b) return flce_fail(e, FLCE_ERR_NOMEM, "state: out of memory");
    uint32_t hdr[4] = {STATE_MAGIC, (uint32_t)done, (uint32_t)E->S, (uint32_t)E->n}, sl = (uint32_t)settings_len(E);
    memcpy(p, hdr, 16), p += 16;
    memcpy(p, &sl, 4), p += 4;
    if (sl) memcpy(p, E->settings, sl), p += sl;
    state_field f[64];
    for (int i = 0, n = eng_state_fields(E, done, f); i < n; i++)
        if (f[i].bytes) memcpy(p, f[i].p, f[i].bytes), p += f[i].bytes;
    uint64_t sum = flce_digest(b, (size_t)(p - b));
    memcpy(p, &sum, 8);
    char path[1200];
    snprintf(path, sizeof path, "%s/state.bin", E->dir);
    flce_status st = flce_write_file_atomic(path, b, sz, e);
    free(b);
    return st;
}

/* The first setting in which two settings texts (eng_settings_text) differ, as "its lr is 0.02, this
 * run's 0.01", into out. */
void flce_settings_diff(const char *theirs, const char *mine, char *out, size_t cap) {
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
        cJSON_ArrayForEach(x, ja) /* one of theirs that this run has not (an attack, say) */
            if (!found && x->string && !cJSON_GetObjectItemCaseSensitive(jb, x->string)) {
                char *vx = cJSON_PrintUnformatted(x);
                snprintf(out, cap, "its %s is %.60s, this run's absent", x->string, vx ? vx : "set");
                found = 1, free(vx);
            }
    }
    if (!found && nl1 && nl2 && strcmp(nl1, nl2)) snprintf(out, cap, "another partition of the data: %.40s against %.40s", nl1 + 1, nl2 + 1);
    cJSON_Delete(ja), cJSON_Delete(jb);
    free(a), free(b);
}

flce_status eng_load_state(engine *E, int *done, flce_err *e) {
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
    if (got && (hdr[0] == STATE_MAGIC2 || hdr[0] == STATE_MAGIC3 || hdr[0] == STATE_MAGIC4))
        st = flce_fail(e, FLCE_ERR_ARG, "--resume: %s was written by an older build (state format FLS%c, this one reads FLS5): "
                       "resume it with that build, or rerun without --resume (--force)", path,
                       hdr[0] == STATE_MAGIC2 ? '2' : hdr[0] == STATE_MAGIC3 ? '3' : '4');
    else if (!got || hdr[0] != STATE_MAGIC)
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: not a state file (no FLS5 header)", path);
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
    } else if ((size_t)fs != eng_state_size(E, (int)hdr[1]))
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: %ld bytes, but %d rounds done need %zu: damaged", path, fs, (int)hdr[1],
                       eng_state_size(E, (int)hdr[1]));
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
    for (int i = 0, n = eng_state_fields(E, *done, fl); i < n; i++)
        if (fl[i].bytes) memcpy(fl[i].p, p, fl[i].bytes), p += fl[i].bytes;
    free(b);
    return FLCE_OK;
}

/* The settings a run's results depend on, as text (malloc'd; NULL when out of memory): config.json
 * cj compact, a newline, the digest of the partition drawn. What a state.bin belongs to and what
 * every rank must share. */
char *eng_settings_text(engine *E, const cJSON *cj) {
    char *txt = cJSON_PrintUnformatted(cj), *out = NULL;
    size_t tl = txt ? strlen(txt) + 40 : 0;
    if (txt && (out = malloc(tl))) snprintf(out, tl, "%s\npartition %016llx", txt, (unsigned long long)flce_partition_digest(&E->part));
    free(txt);
    return out;
}

flce_status flce_engine_state_save(engine *E, int done, flce_err *e) { return eng_save_state(E, done, e); }

flce_status flce_engine_state_load(engine *E, int *done, flce_err *e) { return eng_load_state(E, done, e); }
