/* run_files.c: the run folder (docs/formats.md): config.json and the --resume comparison of
 * settings, the per-round files (metrics.csv, round_contributions*.csv), the trace's .npy files
 * written in place round by round and checked on --resume, the folder's checks before a run. */
#include "engine.h"
#include "attacks.h"
#include "baselines.h"
#include "method.h"
#include "trace_io.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>
#include "json.h"
#include "npy.h"
#include "ops.h"
#include "engine_int.h"

static flce_status write_round_rules(engine *E, int rounds, flce_err *e);

flce_status eng_write_text(engine *E, const char *name, const char *text, flce_err *e) {
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", E->dir, name);
    return flce_write_file_atomic(p, text, strlen(text), e);
}

/* A method's setting as a member of config.json: the flag with '_' for '-'; a number, or its word. */
static int add_setting(cJSON *o, const flce_setting *s, double v) {
    char key[64], txt[64];
    snprintf(key, sizeof key, "%s", s->flag);
    for (char *q = key; *q; q++)
        if (*q == '-') *q = '_';
    if (s->choices) return cJSON_AddStringToObject(o, key, flce_setting_text(s, v, txt, sizeof txt)) != NULL;
    return flce_json_add_number(o, key, v) != NULL;
}

/* config.json: every setting that decides the results (not the backend: all backends give the
 * same bits), in this order. NULL when out of memory. */
cJSON *eng_config_json(engine *E) {
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
    NUM("epochs", c->epochs), NUM("batch", c->batch), NUM("lr", c->lr);
    /* the released code's local training and schedule: only where set, so that older records stay
     * comparable (as quantity_skew) */
    if (c->local_steps) NUM("local_steps", c->local_steps);
    if (c->momentum != 0) NUM("momentum", c->momentum);
    if (c->weight_decay != 0) NUM("weight_decay", c->weight_decay);
    if (c->clip_norm != 0) NUM("clip_norm", c->clip_norm);
    if (c->schedule_sweep) STR("schedule", "sweep");
    if (c->schedule_window) STR("schedule", "window");
    if (c->nmembers) { /* a coalition alone (flce truth): only where set */
        double mv[64];
        for (int i = 0; i < c->nmembers; i++) mv[i] = c->members[i];
        ok = ok && cJSON_AddItemToObject(o, "members", flce_json_numbers(mv, c->nmembers));
    }
    if (c->part.balance) STR("dirichlet_balance", "yes");
    if (c->part.noisy_last) STR("noisy_choice", "last");
    if (c->part.label_next) STR("label_noise_map", "next");
    if (c->part.noise_data_std) STR("feature_noise_std", "data");
    if (c->nattacks) { /* strategic clients (fl/attacks.c): only where set */
        cJSON *arr = cJSON_CreateArray();
        ok = ok && arr && cJSON_AddItemToObject(o, "attacks", arr);
        for (int i = 0; i < c->nattacks && ok; i++) {
            char w[64];
            flce_attack_words(&c->attacks[i], w, sizeof w);
            cJSON *x = cJSON_CreateString(w);
            ok = x && cJSON_AddItemToArray(arr, x);
        }
    }
    if (c->part.duplicate) { /* only where set */
        char dup[40];
        snprintf(dup, sizeof dup, "%d:%d", c->part.dup_from, c->part.dup_to);
        STR("duplicate", dup);
    }
    /* every method's settings (from their tables: the run's method's own, and the others at the
     * values given or their defaults, so that runs of several methods compare member by member) */
    for (int i = 0, n = flce_setting_count(); i <= n && ok; i++) {
        const flce_setting *st = i < n ? flce_setting_at(i) : NULL;
        if (!st) { /* a method given directly (not in the registry): its settings last */
            for (const flce_setting *const *q = E->algo->settings; q && *q && ok; q++)
                if (!flce_setting_find((*q)->flag)) ok = add_setting(o, *q, flce_run_cfg_get(c, *q));
            break;
        }
        /* settings added after the records were fixed (the released code's rules, issue 62): written
         * only where not at their default, so that older records stay comparable (--resume, the
         * report's configurations), as quantity_skew above */
        static const char *const later[] = {"velocity", "absent-class", "cl-scale", "aggregation", "initial-prototypes", "utility-set", "players", "next-model", "prototype-clip"};
        int skip = 0;
        for (size_t j = 0; j < sizeof later / sizeof later[0]; j++)
            skip |= !strcmp(st->flag, later[j]) && flce_run_cfg_get(c, st) == st->def;
        if (!skip) ok = add_setting(o, st, flce_run_cfg_get(c, st));
    }
    NUM("train_subset", c->train_subset), NUM("test_subset", c->test_subset), NUM("val_size", E->n_val);
    NUM("seed", c->seed); /* seed <= 2^53: exact */
    if (c->has_train_seed) NUM("train_seed", c->train_seed); /* only where set (flce truth's seeds) */
    if (c->test_loss) STR("test_loss", "yes");
    if (c->test_from > 1) NUM("test_from", c->test_from); /* only where set (flce truth's window) */
    ok = ok && flce_completion_settings_add(o, &c->completion);
    NUM("contract", FLCE_CONTRACT_VERSION), STR("denormals", E->be ? (E->be->ftz ? "ftz" : "preserve") : c->denormals ? c->denormals : "auto"); /* before the backend: as asked */
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
        /* the field that differs: one set now and not as recorded, else one recorded and not set now
         * (a train seed of another truth's coalition, say) */
        const char *which = NULL, *how = "";
        for (const cJSON *m = now->child; m && !which; m = m->next)
            if (!flce_json_equal(cJSON_GetObjectItemCaseSensitive(old, m->string), m)) which = m->string;
        for (const cJSON *m = old->child; m && !which; m = m->next)
            if (m->string && !cJSON_GetObjectItemCaseSensitive(now, m->string)) which = m->string, how = ": recorded there, not set now";
        st = flce_fail(e, FLCE_ERR_ARG, "--resume: the settings differ from those of the run in %s (%s%s; see its config.json)",
                       E->dir, which ? which : "a field given twice", how);
    }
    cJSON_Delete(old);
    return st;
}

static flce_status write_metrics(engine *E, int rounds, flce_err *e) {
    size_t cap = 256 + (size_t)rounds * 256, n = 0;
    char *b = malloc(cap);
    if (!b) return flce_fail(e, FLCE_ERR_NOMEM, "metrics: out of memory");
    flce_catf(b, cap, &n, "round,accuracy,macro_f1,mean_local_loss,kl,server_seconds,client_seconds,bytes_up,"
                          "bytes_down,fallback,prototypes_none_correct,personal_accuracy%s\n", E->test_loss ? ",test_loss" : "");
    for (int i = 0; i < rounds; i++) {
        flce_round_metrics *m = &E->metrics[i];
        char pa[32] = "";
        if (E->algo->flags & FLCE_M_PERSONAL) snprintf(pa, sizeof pa, "%.6f", m->personal_acc);
        char tl[40] = "", acc[40] = "", f1[40] = "";
        int tested = i + 1 >= E->cfg->test_from; /* empty fields: a round not evaluated */
        if (E->test_loss) snprintf(tl, sizeof tl, ",%.9g", E->test_loss[i]);
        if (E->test_loss && !tested) tl[1] = '\0';
        if (tested) snprintf(acc, sizeof acc, "%.6f", m->acc), snprintf(f1, sizeof f1, "%.6f", m->macro_f1);
        flce_catf(b, cap, &n, "%d,%s,%s,%.6f,%.6f,%.6f,%.6f,%lld,%lld,%d,%d,%s%s\n", m->round, acc, f1, m->mean_loss, m->kl,
                  m->server_s, m->client_s, (long long)m->bytes_up, (long long)m->bytes_down, m->fallback, m->proto_nocorrect, pa,
                  tl);
    }
    flce_status st = eng_write_text(E, "metrics.csv", b, e);
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
    flce_status st = eng_write_text(E, "round_contributions.csv", b, e);
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

/* A run inside the folder of a run of several methods (summary.csv, or a sub-folder holding a
 * run) mixes the two: `flce report` on the folder then read one and left out the others, status
 * 0. The first such sub-folder's name into sub (empty when there is none). */
int flce_holds_runs(const char *dir, char *sub, size_t cap) {
    char p[1200];
    struct stat sb;
    sub[0] = '\0';
    snprintf(p, sizeof p, "%s/summary.csv", dir);
    if (stat(p, &sb) == 0) {
        snprintf(sub, cap, "summary.csv");
        return 1;
    }
    DIR *d = opendir(dir);
    for (struct dirent *de; d && (de = readdir(d));) {
        if (de->d_name[0] == '.') continue;
        snprintf(p, sizeof p, "%s/%s/config.json", dir, de->d_name);
        if (stat(p, &sb) == 0) {
            snprintf(sub, cap, "%s/", de->d_name);
            break;
        }
    }
    if (d) closedir(d);
    return sub[0] != '\0';
}

/* The run folder, checked (nothing written): an existing run is refused unless --force (start
 * over) or --resume (continue). eng_make_dir then makes it (under --force, emptied of the old run). */
flce_status eng_check_dir(engine *E, flce_err *e) {
    const flce_run_cfg *c = E->cfg;
    /* every file of a run is E->dir plus at most 40 characters, in buffers of 1,200: a longer
     * --out is refused rather than written to a truncated path */
    if (!c->out || strlen(c->out) > FLCE_MAX_OUT_PATH)
        return flce_fail(e, FLCE_ERR_ARG, "--out: a path of %zu characters; at most %d", c->out ? strlen(c->out) : 0, FLCE_MAX_OUT_PATH);
    snprintf(E->dir, sizeof E->dir, "%s", c->out);
    if (!E->writer) return FLCE_OK; /* rank 0's folder */
    struct stat sb;
    if (stat(E->dir, &sb) == 0 && !S_ISDIR(sb.st_mode)) return flce_fail(e, FLCE_ERR_ARG, "--out %s: a file, not a folder", E->dir);
    char p[1200], sub[300];
    if (flce_holds_runs(E->dir, sub, sizeof sub))
        return flce_fail(e, FLCE_ERR_ARG, "--out %s is the folder of a run of several methods (it holds %s): a run goes into a folder of its own",
                         E->dir, sub);
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
    /* every file a run writes is a file where it exists (a folder in its place once stopped the
     * run after its last round, its model not written), and the folder, or the nearest existing
     * one above it, takes files: said before the data are read */
    static const char *const files[] = {"config.json", "device.txt", "clients.csv", "state.bin", "metrics.csv", "contributions.csv",
                                        "contributions_rules.csv", "round_contributions.csv", "round_contributions_rules.csv",
                                        "digests.txt", "model.safetensors", "costs.txt", "trace/prototypes.npy",
                                        "trace/prototypes_alt.npy", "trace/prototypes_first.npy", "trace/selected.npy", "trace/Q.npy", "trace/X_completed.npy",
                                        "trace/contributions.csv", "trace/class_weights.npy", "trace/completion.json",
                                        "trace/data_sizes.npy"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", E->dir, files[i]);
        if (lstat(p, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISLNK(sb.st_mode))
            return flce_fail(e, FLCE_ERR_IO, "%s: cannot replace: %s, not a file", p, S_ISDIR(sb.st_mode) ? "a folder" : "something");
    }
    snprintf(p, sizeof p, "%s/trace", E->dir);
    if (lstat(p, &sb) == 0 && !S_ISDIR(sb.st_mode)) return flce_fail(e, FLCE_ERR_IO, "%s: a file where the trace folder goes", p);
    if (flce_path_writable(E->dir, p, sizeof p) != 0)
        return flce_fail(e, FLCE_ERR_ARG, "--out %s: cannot write into %s: %s", E->dir, p, strerror(errno));
    return FLCE_OK;
}

flce_status eng_make_dir(engine *E, flce_err *e) {
    const flce_run_cfg *c = E->cfg;
    if (!E->writer) return FLCE_OK;
    char p[1200];
    if (flce_mkdirs(E->dir) != 0) return flce_fail(e, FLCE_ERR_ARG, "--out %s: cannot create: %s", E->dir, strerror(errno));
    /* one process at a time in a run folder: a second `flce run` on the same --out (with --resume,
     * --force or neither) would interleave its files with the first's and both end with status 0.
     * The lock is taken before anything is removed or written and held until the engine is freed;
     * the checks are then made again, since another run may have written the folder meanwhile. A
     * file system without flock() (ENOLCK, EOPNOTSUPP) runs unlocked, as before. */
    if ((E->fd_lock = open(E->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return flce_fail(e, FLCE_ERR_IO, "--out %s: cannot open: %s", E->dir, strerror(errno));
    if (flock(E->fd_lock, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK)
            return flce_fail(e, FLCE_ERR_ARG, "--out %s: another flce run is writing this folder now (wait for it to end, or use another --out)",
                             E->dir);
        if (errno != ENOLCK && errno != EOPNOTSUPP && errno != EINVAL)
            return flce_fail(e, FLCE_ERR_IO, "--out %s: cannot lock: %s", E->dir, strerror(errno));
    }
    flce_status st = eng_check_dir(E, e);
    if (st) return st;
    snprintf(p, sizeof p, "%s/trace", E->dir);
    if (mkdir(p, 0755) != 0 && errno != EEXIST) return flce_fail(e, FLCE_ERR_IO, "%s: cannot create: %s", p, strerror(errno));
    if (c->force && !c->resume) { /* start over: nothing of the old run may survive */
        const char *old[] = {"state.bin", "metrics.csv", "contributions.csv", "digests.txt", "model.safetensors", "costs.txt",
                             "round_contributions.csv", "round_contributions_rules.csv", "contributions_rules.csv",
                             "trace/prototypes.npy", "trace/prototypes_alt.npy", "trace/prototypes_first.npy", "trace/selected.npy", "trace/Q.npy",
                             "trace/X_completed.npy", "trace/contributions.csv", "trace/class_weights.npy", "trace/completion.json",
                             "trace/data_sizes.npy"};
        for (size_t i = 0; i < sizeof old / sizeof old[0]; i++) {
            snprintf(p, sizeof p, "%s/%s", E->dir, old[i]);
            remove(p);
        }
    }
    return FLCE_OK;
}

/* The run folder's files before the first round: config.json (or, with --resume, the check
 * that it holds these settings and the state to continue from: the rounds done into *done),
 * device.txt, clients.csv, the trace of a method that uploads prototypes, the method's own
 * (open), and the state before the first round. */
flce_status eng_open_run_files(engine *E, int *done_out, flce_err *e) {
    const flce_run_cfg *cfg = E->cfg;
    int n = E->n, C = E->C, d = E->d;
    flce_status st;
    *done_out = 0;
    if (!E->writer) return E->algo->open ? E->algo->open(E, e) : FLCE_OK; /* the files are rank 0's */
    char p[1200];
    cJSON *cj = eng_config_json(E);
    if (!cj) {
        return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    }
    int done = 0;
    { /* what a state.bin of this run says it belongs to */
        E->settings = eng_settings_text(E, cj);
        if (!E->settings) {
            cJSON_Delete(cj);
            return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
        }
    }
    snprintf(p, sizeof p, "%s/state.bin", E->dir);
    struct stat sst;
    int fresh = cfg->resume && stat(p, &sst) != 0; /* --resume of a run that died before its first state: from round 0 */
    if (fresh) { /* a finished run without its state.bin (as an archive carries it) would have run again from round 0 */
        snprintf(p, sizeof p, "%s/digests.txt", E->dir);
        if (stat(p, &sst) == 0) {
            cJSON_Delete(cj);
            return flce_fail(e, FLCE_ERR_ARG,
                             "--resume: %s is a finished run without its state.bin (as an archive carries it): nothing to continue (--force runs it again)",
                             E->dir);
        }
    }
    if (cfg->resume) {
        if (!(st = same_settings(E, cj, e)) && !fresh && !(st = eng_load_state(E, &done, e))) E->resume_done = done;
    } else {
        snprintf(p, sizeof p, "%s/config.json", E->dir);
        st = flce_json_write(p, cj, e);
    }
    cJSON_Delete(cj);
    if (st) return st;
    /* --resume of a finished run (every round done, digests.txt written): its files are checked
     * (the trace against the state's checksums) and left as they are; flce_run reads its summary.
     * device.txt, completion.json and the per-round files were rewritten, the first naming a
     * machine that did none of the run's work, the second losing the completion's choices. */
    snprintf(p, sizeof p, "%s/digests.txt", E->dir);
    int finished = cfg->resume && !fresh && done == E->T && stat(p, &sst) == 0;
    snprintf(p, sizeof p, "flce %s\ncontract %d\nbackend %s\ndevice %s\ndenormals %s\n", FLCE_VERSION, FLCE_CONTRACT_VERSION,
             E->be->name, E->be->device, E->be->ftz ? "ftz" : "preserve");
    if (!finished) eng_write_text(E, "device.txt", p, NULL);
    if (!finished) { /* the clients: samples, classes held, noisy (for data shares and reports) */
        size_t cap = 64 + (size_t)n * 104, len = 0;
        char *cs = malloc(cap);
        if (!cs) {
            return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
        }
        /* the samples each client holds (not a count it reports); an attacked run marks its
         * attackers in a last column (only then: an honest run's file is as before) */
        const double *held = E->data_sizes ? E->data_sizes : E->sizes;
        flce_catf(cs, cap, &len, "client,samples,classes_held,noisy%s\n", cfg->nattacks ? ",attack" : "");
        for (int k = 0; k < n; k++) {
            flce_catf(cs, cap, &len, "%d,%.0f,%d,%d", k, held[k], E->held[k], E->part.noisy[k]);
            const flce_attack *a = cfg->nattacks ? flce_attack_on(cfg, k) : NULL;
            char w[64] = "";
            if (a) flce_attack_words(a, w, sizeof w);
            flce_catf(cs, cap, &len, "%s%s\n", cfg->nattacks ? "," : "", w);
        }
        st = eng_write_text(E, "clients.csv", cs, e);
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
        /* and the released code's first-correct-sample prototypes (flce eval --proto-samples first), likewise */
        snprintf(p, sizeof p, "%s/trace/prototypes_first.npy", E->dir);
        struct stat fsb; /* a run begun before this file was recorded resumes with it made anew: its rounds done NaN */
        int keep_first = cfg->resume && stat(p, &fsb) == 0;
        if ((st = npy_prealloc(E, "prototypes_first.npy", FLCE_NPY_F32, 4, sp, &nan, keep_first, &E->fd_proto_first, &E->proto_first_off, e)))
            return st;
        if ((st = npy_prealloc(E, "selected.npy", FLCE_NPY_U8, 2, ss, &zero, cfg->resume, &E->fd_sel, &E->sel_off, e))) return st;
        int64_t *sizes = malloc(sizeof(int64_t) * (size_t)n);
        if (!sizes) return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
        for (int k = 0; k < n; k++) sizes[k] = (int64_t)E->sizes[k];
        snprintf(p, sizeof p, "%s/trace/data_sizes.npy", E->dir);
        st = finished ? FLCE_OK : flce_npy_write(p, FLCE_NPY_I64, 1, sn, sizes, e);
        free(sizes);
        if (st) return st;
        if (cfg->class_weights && !finished) {
            int64_t sc[1] = {C};
            snprintf(p, sizeof p, "%s/trace/class_weights.npy", E->dir);
            if ((st = flce_npy_write(p, FLCE_NPY_F64, 1, sc, cfg->class_weights, e))) return st;
        }
        if (cfg->resume && !fresh && (st = verify_trace(E, done, e))) return st;
    }
    *done_out = done;
    if (finished) return FLCE_OK;
    if (E->algo->open && (st = E->algo->open(E, e))) return st; /* the settings and the folder are checked */
    if ((!cfg->resume || fresh) && (st = eng_save_state(E, 0, e))) return st; /* a run killed in its first round can be resumed */
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
    flce_status st = eng_write_text(E, "round_contributions_rules.csv", b, e);
    free(b);
    return st;
}

flce_status eng_write_round(engine *E, uint8_t *selrow, flce_err *e) {
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
                if (!st) st = pwrite_all(E->fd_proto_first, E->protos_first + (size_t)k * C * d, sizeof(float) * (size_t)C * d,
                                         E->proto_first_off + sizeof(float) * ((size_t)E->t * n + k) * C * d, "trace/prototypes_first.npy", e);
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
        st = eng_save_state(E, E->t + 1, e);
    }
    return st;
}
