/* trace_io.c: see trace_io.h. */
#include "trace_io.h"
#include "json.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

flce_status flce_read_weights(const char *path, int len, double **out, flce_err *e) {
    *out = NULL;
    if (len < 1) return flce_fail(e, FLCE_ERR_FORMAT, "%s: no weights expected", path);
    char why[96];
    FILE *f = flce_fopen_regular(path, why, sizeof why);
    if (!f) return flce_fail(e, FLCE_ERR_IO, "%s: cannot open: %s", path, why);
    char magic[6] = {0};
    size_t got = fread(magic, 1, 6, f);
    double *w = malloc((size_t)len * sizeof *w);
    if (!w) {
        fclose(f);
        return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", path);
    }
    flce_status st = FLCE_OK;
    if (got == 6 && !memcmp(magic, "\x93NUMPY", 6)) {
        fclose(f);
        flce_npy a;
        int64_t shp[1] = {len};
        if (!(st = flce_npy_read(path, &a, e))) {
            st = flce_npy_expect(path, &a, FLCE_NPY_F64, 1, shp, e);
            if (!st) memcpy(w, a.data, (size_t)len * sizeof *w);
            flce_npy_free(&a);
        }
    } else {
        rewind(f);
        int n = 0, c, tl = 0;
        char tok[128];
        for (;;) {
            c = fgetc(f);
            if (c == EOF || c == ',' || isspace(c)) {
                if (tl) {
                    tok[tl] = '\0';
                    double v = 0;
                    const char *bad = flce_number(tok, &v); /* the flags' rule for a number */
                    if (bad && (!strcmp(bad, "not a finite number") || strpbrk(tok, "xX"))) bad = "is not a number";
                    if (bad) {
                        for (char *q = tok; *q; q++) /* the file's bytes never reach the terminal raw */
                            if (!isprint((unsigned char)*q)) *q = '?';
                        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: '%s' %s", path, tok, bad);
                        break;
                    }
                    if (n == len) {
                        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: more than %d weights", path, len);
                        break;
                    }
                    w[n++] = v;
                    tl = 0;
                }
                if (c == EOF) break;
            } else if (c == '\0') { /* a NUL inside a token once cut it short and dropped the rest silently */
                st = flce_fail(e, FLCE_ERR_FORMAT, "%s: a NUL byte at byte %ld: not a text list of numbers", path, ftell(f) - 1);
                break;
            } else if (tl < (int)sizeof tok - 1) {
                tok[tl++] = (char)c;
            } else {
                st = flce_fail(e, FLCE_ERR_FORMAT, "%s: a token longer than %d characters", path, (int)sizeof tok - 1);
                break;
            }
        }
        fclose(f);
        if (!st && n != len) st = flce_fail(e, FLCE_ERR_FORMAT, "%s: %d weights, expected %d", path, n, len);
    }
    double s = 0;
    for (int i = 0; i < len && !st; i++) {
        if (!isfinite(w[i]) || w[i] < 0) st = flce_fail(e, FLCE_ERR_FORMAT, "%s: weight %d is %g (must be finite and >= 0)", path, i, w[i]);
        s += w[i];
    }
    if (!st && !(s > 0)) st = flce_fail(e, FLCE_ERR_FORMAT, "%s: all weights are 0 (at least one must be > 0)", path);
    if (!st && !isfinite(s)) /* they are relative: smaller ones give the same contributions */
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: the weights sum to more than %g: they are relative, scale them down", path, DBL_MAX);
    if (st) {
        free(w);
        return st;
    }
    *out = w;
    return FLCE_OK;
}

static int file_exists(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

void flce_trace_files_free(flce_trace_files *tf) {
    flce_npy_free(&tf->prototypes), flce_npy_free(&tf->selected), flce_npy_free(&tf->data_sizes), flce_npy_free(&tf->q);
    flce_npy_free(&tf->initial);
    free(tf->sel_from_q), free(tf->sizes), free(tf->round_weights), free(tf->class_weights);
    memset(tf, 0, sizeof *tf);
}

flce_status flce_trace_load(const char *dir, const char *rw_path, const char *cw_path, flce_trace_files *tf, int *weights_bad,
                            flce_err *e) {
    return flce_trace_load_as(dir, NULL, rw_path, cw_path, tf, weights_bad, e);
}

flce_status flce_trace_load_as(const char *dir, const char *proto_file, const char *rw_path, const char *cw_path, flce_trace_files *tf,
                               int *weights_bad, flce_err *e) {
    memset(tf, 0, sizeof *tf);
    *weights_bad = 0;
    char p[4200];
    flce_status st;
    snprintf(p, sizeof p, "%s/%s", dir, proto_file ? proto_file : "prototypes.npy");
    char qp[4200];
    snprintf(qp, sizeof qp, "%s/Q.npy", dir);
    int from_q = !file_exists(p) && file_exists(qp);
    if (from_q) { /* a run folder packed without its prototypes: the momentum it recorded */
        if ((st = flce_npy_read(qp, &tf->q, e)) || (st = flce_npy_expect(qp, &tf->q, FLCE_NPY_F64, 3, (int64_t[]){-1, -1, -1}, e)))
            goto fail;
    } else if ((st = flce_npy_read(p, &tf->prototypes, e)) ||
               (st = flce_npy_expect(p, &tf->prototypes, FLCE_NPY_F32, 4, (int64_t[]){-1, -1, -1, -1}, e)))
        goto fail;
    int64_t sh[4] = {0, 0, 0, 1};
    for (int i = 0; i < (from_q ? 3 : 4); i++) sh[i] = from_q ? tf->q.shape[i] : tf->prototypes.shape[i];
    if (from_q) snprintf(p, sizeof p, "%s", qp);
    if (sh[0] < 1 || sh[0] > 1000000 || sh[1] < 1 || sh[1] > 100000 || sh[2] < 1 || sh[2] > 10000 || sh[3] < 1 || sh[3] > 65536) {
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: shape (%lld, %lld, %lld, %lld) outside 1..1e6 rounds, 1..1e5 clients, "
                       "1..1e4 classes, 1..65536 features", p, (long long)sh[0], (long long)sh[1], (long long)sh[2], (long long)sh[3]);
        goto fail;
    }
    int T = (int)sh[0], n = (int)sh[1], C = (int)sh[2], d = from_q ? 0 : (int)sh[3];
    snprintf(p, sizeof p, "%s/selected.npy", dir);
    const uint8_t *sel;
    if (from_q && !file_exists(p)) {
        if (!(tf->sel_from_q = malloc((size_t)T * n))) {
            st = flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
            goto fail;
        }
        const double *q = tf->q.data;
        for (int64_t i = 0; i < (int64_t)T * n; i++) tf->sel_from_q[i] = !isnan(q[i * C]);
        sel = tf->sel_from_q;
    } else {
        if ((st = flce_npy_read(p, &tf->selected, e)) || (st = flce_npy_expect(p, &tf->selected, FLCE_NPY_U8, 2, (int64_t[]){T, n}, e)))
            goto fail;
        sel = tf->selected.data;
    }
    snprintf(p, sizeof p, "%s/data_sizes.npy", dir);
    if ((st = flce_npy_read(p, &tf->data_sizes, e)) || (st = flce_npy_expect(p, &tf->data_sizes, FLCE_NPY_I64, 1, (int64_t[]){n}, e)))
        goto fail;
    for (int64_t i = 0; i < (int64_t)T * n; i++)
        if (sel[i] > 1) {
            st = flce_fail(e, FLCE_ERR_FORMAT, "%s/selected.npy: entry %lld is %u (0 or 1)", dir, (long long)i, sel[i]);
            goto fail;
        }
    if (!(tf->sizes = malloc((size_t)n * sizeof *tf->sizes))) {
        st = flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (int k = 0; k < n; k++) {
        int64_t v = ((const int64_t *)tf->data_sizes.data)[k];
        if (v <= 0) {
            st = flce_fail(e, FLCE_ERR_FORMAT, "%s/data_sizes.npy: client %d holds %lld samples (must be > 0)", dir, k, (long long)v);
            goto fail;
        }
        tf->sizes[k] = (double)v;
    }
    snprintf(p, sizeof p, "%s/round_weights.npy", dir);
    if ((rw_path || file_exists(p)) && (st = flce_read_weights(rw_path ? rw_path : p, T, &tf->round_weights, e))) {
        *weights_bad = 1;
        goto fail;
    }
    snprintf(p, sizeof p, "%s/class_weights.npy", dir);
    if ((cw_path || file_exists(p)) && (st = flce_read_weights(cw_path ? cw_path : p, C, &tf->class_weights, e))) {
        *weights_bad = 1;
        goto fail;
    }
    snprintf(p, sizeof p, "%s/initial_prototypes.npy", dir);
    if (!from_q && file_exists(p) &&
        ((st = flce_npy_read(p, &tf->initial, e)) || (st = flce_npy_expect(p, &tf->initial, FLCE_NPY_F64, 2, (int64_t[]){C, d}, e))))
        goto fail;
    tf->tr = (flce_trace){T, n, C, d, from_q ? NULL : tf->prototypes.data, sel, tf->round_weights, tf->class_weights,
                          from_q ? tf->q.data : NULL, NULL, tf->initial.data};
    return FLCE_OK;
fail:
    flce_trace_files_free(tf);
    return st;
}

flce_status flce_completion_parse(const char *rank, const char *mu, const char *solver, const char *completion,
                                  flce_completion_cfg *cc, flce_err *e) {
    if (rank) {
        char *end;
        long r = strtol(rank, &end, 10);
        if (!strcmp(rank, "auto")) cc->rank_auto = 1, cc->rank = 0;
        else if (!strcmp(rank, "rule") || !strcmp(rank, "default")) /* "default": the rule's name until it stopped being the default */
            cc->rank_auto = 0, cc->rank = 0;
        else if (*rank && !*end && r >= 1 && r <= 1000) cc->rank_auto = 0, cc->rank = (int)r;
        else return flce_fail(e, FLCE_ERR_ARG, "--rank %s: auto, rule or a whole number from 1 to 1000", rank);
    }
    if (mu) {
        double m = 0;
        const char *why = strcmp(mu, "auto") ? flce_number(mu, &m) : NULL;
        if (!strcmp(mu, "auto")) cc->mu_auto = 1;
        else if (why) return flce_fail(e, FLCE_ERR_ARG, "--mu '%s': %s; auto or a number > 0", mu, why);
        else if (m > 0) cc->mu_auto = 0, cc->mu = m;
        else return flce_fail(e, FLCE_ERR_ARG, "--mu %s: auto or a finite number > 0", mu);
    }
    if (solver) {
        if (!strcmp(solver, "als")) cc->gradient = 0;
        else if (!strcmp(solver, "gd")) cc->gradient = 1;
        else return flce_fail(e, FLCE_ERR_ARG, "--solver '%s': als or gd", solver);
    }
    if (completion) {
        if (!strcmp(completion, "masked")) cc->literal = 0;
        else if (!strcmp(completion, "literal")) cc->literal = 1;
        else return flce_fail(e, FLCE_ERR_ARG, "--completion '%s': masked or literal", completion);
    }
    if (cc->literal) { /* the literal reading has no held-out entries to choose by: the rule's rank, no ridge */
        if ((rank && !strcmp(rank, "auto")) || (mu && !strcmp(mu, "auto")))
            return flce_fail(e, FLCE_ERR_ARG, "--completion literal takes a fixed rank (no --rank auto or --mu auto)");
        cc->rank_auto = cc->mu_auto = 0;
    }
    return FLCE_OK;
}

int flce_completion_settings_add(cJSON *o, const flce_completion_cfg *cc) {
    int ok = cJSON_AddStringToObject(o, "completion", cc->literal ? "literal" : "masked") &&
             cJSON_AddStringToObject(o, "solver", cc->gradient ? "gd" : "als");
    if (cc->rank_auto) ok = ok && cJSON_AddStringToObject(o, "rank", "auto");
    else if (cc->rank > 0) ok = ok && flce_json_add_number(o, "rank", cc->rank);
    else ok = ok && cJSON_AddStringToObject(o, "rank", "rule");
    if (cc->mu_auto) ok = ok && cJSON_AddStringToObject(o, "mu", "auto");
    else ok = ok && flce_json_add_number(o, "mu", cc->mu);
    return ok && flce_json_add_number(o, "folds", cc->folds) && flce_json_add_number(o, "completion_version", cc->version) &&
           cJSON_AddStringToObject(o, "missing", cc->missing_unobserved ? "unobserved" : "zero") &&
           cJSON_AddStringToObject(o, "prototypes", cc->proto_first ? "first" : cc->proto_all ? "all" : "correct") &&
           (!cc->initial_model || cJSON_AddStringToObject(o, "initial_prototypes", "initial-model")); /* only where set */
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

uint64_t flce_trace_digest(const char *trace_dir) {
    char p[1200];
    snprintf(p, sizeof p, "%s/prototypes.npy", trace_dir);
    uint64_t tp = file_digest(p);
    snprintf(p, sizeof p, "%s/selected.npy", trace_dir);
    return tp ^ (file_digest(p) * 0x9E3779B97F4A7C15ull);
}

flce_status flce_completion_record(const char *path, const flce_completion_cfg *cc, const char *ablate, int C,
                                   const flce_eval_result *res, const char *trace_digest, flce_err *e) {
    cJSON *o = cJSON_CreateObject(), *classes = NULL;
    /* the round's rules beside the completion's settings (config.json has them from FLCE's own
     * settings table) */
    int ok = o && flce_json_add_number(o, "seed", (double)cc->seed) && cJSON_AddStringToObject(o, "ablate", ablate) &&
             flce_completion_settings_add(o, cc) &&
             cJSON_AddStringToObject(o, "velocity", cc->rules.velocity_distance ? "distance" : "squared") &&
             cJSON_AddStringToObject(o, "absent_class", cc->rules.forget_absent ? "forget" : "keep") &&
             (!(cc->rules.proto_clip > 0) || flce_json_add_number(o, "prototype_clip", cc->rules.proto_clip)) && /* only where set */
             (!res || flce_json_add_number(o, "seconds", res->seconds)) &&
             (!trace_digest || cJSON_AddStringToObject(o, "trace_digest", trace_digest)) &&
             (classes = cJSON_AddArrayToObject(o, "classes"));
    for (int c = 0; ok && c < C && res; c++) {
        cJSON *k = cJSON_CreateObject();
        ok = k && cJSON_AddItemToArray(classes, k) && flce_json_add_number(k, "class", c) &&
             flce_json_add_number(k, "rank", res->rank[c]) && flce_json_add_number(k, "mu", isnan(res->mu[c]) ? 0.0 : res->mu[c]);
        if (!ok || isnan(res->cv_error[c])) continue;
        cJSON *grid = NULL;
        ok = flce_json_add_number(k, "heldout_mse", res->cv_error[c]) && (grid = cJSON_AddArrayToObject(k, "grid"));
        for (int a = 0; ok && a < FLCE_CV_NRANKS; a++)
            for (int m = 0; ok && m < FLCE_CV_NMUS; m++) {
                double v = res->cv_grid[((size_t)c * FLCE_CV_NRANKS + a) * FLCE_CV_NMUS + m];
                if (isnan(v)) continue;
                cJSON *g = cJSON_CreateObject();
                ok = g && cJSON_AddItemToArray(grid, g) &&
                     flce_json_add_number(g, "rank", cc->rank_auto ? FLCE_CV_RANKS[a] : res->rank[c]) &&
                     flce_json_add_number(g, "mu", cc->mu_auto ? FLCE_CV_MUS[m] : cc->mu) &&
                     flce_json_add_number(g, "heldout_mse", v);
            }
    }
    flce_status st = ok ? flce_json_write(path, o, e) : flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", path);
    cJSON_Delete(o);
    return st;
}

flce_status flce_completion_read(const char *path, flce_completion_file *cf, flce_err *e) {
    memset(cf, 0, sizeof *cf);
    flce_status st;
    cJSON *o = flce_json_read(path, 16 << 20, &st, e);
    if (!o) return st;
    const cJSON *seed = cJSON_GetObjectItemCaseSensitive(o, "seed");
    if (cJSON_IsNumber(seed) && seed->valuedouble >= 0 && seed->valuedouble <= 9007199254740992.0 &&
        seed->valuedouble == (double)(uint64_t)seed->valuedouble)
        cf->has_seed = 1, cf->seed = (uint64_t)seed->valuedouble;
    else if (seed) st = flce_fail(e, FLCE_ERR_FORMAT, "%s: \"seed\" is not a whole number from 0 to 2^53", path);
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(o, "completion_version");
    if (!ver) cf->version = 1; /* recorded before completion versions were: version 1 */
    else if (cJSON_IsNumber(ver) && ver->valuedouble >= 1 && ver->valuedouble <= 1000 && ver->valuedouble == (int)ver->valuedouble)
        cf->version = (int)ver->valuedouble;
    else if (!st) st = flce_fail(e, FLCE_ERR_FORMAT, "%s: \"completion_version\" is not a whole number from 1 to 1000", path);
    const cJSON *clip = cJSON_GetObjectItemCaseSensitive(o, "prototype_clip");
    if (cJSON_IsNumber(clip) && clip->valuedouble >= 1 && clip->valuedouble <= 1000) cf->proto_clip = clip->valuedouble;
    else if (clip && !st) st = flce_fail(e, FLCE_ERR_FORMAT, "%s: \"prototype_clip\" is not a number from 1 to 1000", path);
    const char *ab = flce_json_str(o, "ablate");
    if (ab) snprintf(cf->ablate, sizeof cf->ablate, "%s", ab);
    const char *keys[9] = {"completion", "solver", "rank", "mu", "missing", "prototypes", "velocity", "absent_class", "initial_prototypes"};
    char *out[9] = {cf->completion, cf->solver, cf->rank, cf->mu, cf->missing, cf->prototypes, cf->velocity, cf->absent_class,
                    cf->initial_prototypes};
    /* the words each rule may hold (the first four are checked where they are parsed): a word
     * this build does not know is refused, never read as the default */
    const char *words[9] = {NULL, NULL, NULL, NULL, "zero unobserved", "correct all first", "squared distance", "keep forget", "none initial-model"};
    for (int i = 0; i < 9 && !st; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, keys[i]);
        if (cJSON_IsString(v)) snprintf(out[i], sizeof cf->mu, "%.39s", v->valuestring);
        else if (cJSON_IsNumber(v)) snprintf(out[i], sizeof cf->mu, "%.17g", v->valuedouble);
        else if (v) st = flce_fail(e, FLCE_ERR_FORMAT, "%s: \"%s\" is neither a string nor a number", path, keys[i]);
        if (!st && v && words[i]) {
            size_t n = strchr(out[i], ' ') ? 0 : strlen(out[i]); /* one word: "squared distance" is none of them */
            const char *w = words[i], *hit = NULL;
            for (const char *q = w; n && (q = strstr(q, out[i])); q++)
                if ((q == w || q[-1] == ' ') && (q[n] == ' ' || !q[n])) hit = q;
            if (!hit) st = flce_fail(e, FLCE_ERR_FORMAT, "%s: \"%s\" is '%s': not one of %s (a newer build's, or a damaged record)", path, keys[i], out[i], w);
        }
    }
    cJSON_Delete(o);
    return st;
}
