/* eval_dir.c: a trace folder evaluated as `flce eval` evaluates it (docs/formats.md): the
 * trace read and checked, the settings its completion.json records taken where the caller
 * gives none, the prototype reading chosen (prototypes_alt.npy holds the other), the first R
 * rounds, then flce_eval_trace. `flce eval` and the C API of libflce (fl/flce_api.c, for the
 * Python package) both call this, so that they give the same bits. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "eval_dir.h"

void flce_eval_opts_default(flce_eval_opts *o) {
    memset(o, 0, sizeof *o);
    o->max_iter = 500;
    o->rounds = -1;
}

flce_status flce_ablation_word(const char *w, flce_ablation *ab, int *cl, flce_err *e) {
    int *flag = !strcasecmp(w, "M") ? &ab->no_mass : !strcasecmp(w, "V") ? &ab->no_velocity
              : !strcasecmp(w, "Q") ? &ab->no_momentum : !strcasecmp(w, "CMC") ? &ab->no_completion
              : !strcasecmp(w, "CL") ? cl : NULL;
    if (!flag && !strcasecmp(w, "CL"))
        return flce_fail(e, FLCE_ERR_ARG, "--ablate CL changes local training: use it with flce run, not on a trace");
    if (!flag) return flce_fail(e, FLCE_ERR_ARG, "--ablate '%s': unknown (M, V, Q, %sCMC)", w, cl ? "CL, " : "");
    if (*flag) return flce_fail(e, FLCE_ERR_ARG, "--ablate %s given twice", w);
    *flag = 1;
    return FLCE_OK;
}

/* "M V Q CMC" (spaces or commas) into ab; FLCE_ERR_ARG on another word */
static flce_status parse_ablate(const char *s, flce_ablation *ab, flce_err *e) {
    char w[64];
    flce_status st;
    while (s && *s) {
        size_t k = strcspn(s, " ,");
        if (k) {
            snprintf(w, sizeof w, "%.*s", (int)(k < 63 ? k : 63), s);
            if ((st = flce_ablation_word(w, ab, NULL, e))) return st;
        }
        s += k;
        while (*s == ' ' || *s == ',') s++;
    }
    return FLCE_OK;
}

/* The shape of an .npy file as its header writes it ("(3, 4, 10, 64)"), read from the header alone;
 * 0 where the file or its header cannot be read (the loader then says why). */
static int npy_shape_text(const char *path, char *out, size_t cap) {
    unsigned char h[4096];
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(h, 1, sizeof h - 1, f) : 0;
    if (f) fclose(f);
    if (got < 10 || memcmp(h, "\x93NUMPY", 6)) return 0;
    size_t len = h[6] == 1 ? (size_t)h[8] | (size_t)h[9] << 8 : 0, start = 10;
    if (!len || start + len > got) return 0;
    h[start + len] = '\0';
    const char *s = strstr((const char *)h + start, "'shape': ("), *t = s ? strchr(s, ')') : NULL;
    if (!s || !t) return 0;
    snprintf(out, cap, "%.*s", (int)(t - s - 8), s + 9); /* "(3, 4, 10, 64)" */
    return 1;
}

static flce_status eval_dir_locked(const char *dir, const flce_eval_opts *o, flce_eval_run *r, flce_err *e);

/* The trace folder at dir, open and share-locked (flock) while it is read: a writer of a trace
 * (the C API, the Python package) takes that folder's lock exclusively and swaps a finished folder
 * in under it, so a reader holding the lock reads one trace, never a mix of the old and the new.
 * The folder locked is checked to be the one dir names (a writer that swapped meanwhile: the new
 * one is locked instead). Waits up to 600 s for a writer; the fd, -1 where the folder cannot be
 * opened (the read then says why), or -2 when a writer holds it that long. A file system without
 * flock() reads unlocked. */
static int lock_trace(const char *dir) {
    for (int tries = 0; tries < 12000; tries++) {
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) return -1;
        if (flock(fd, LOCK_SH | LOCK_NB) != 0) {
            int er = errno;
            if (er != EWOULDBLOCK) return fd; /* no locks here (ENOLCK, EOPNOTSUPP): unlocked */
            close(fd);
            struct timespec ts = {0, 50000000};
            nanosleep(&ts, NULL);
            continue;
        }
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(dir, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) return fd;
        close(fd); /* swapped while being locked: the folder there now */
    }
    return -2;
}

flce_status flce_eval_dir(const char *dir, const flce_eval_opts *o, flce_eval_run *r, flce_err *e) {
    int fd = dir ? lock_trace(dir) : -1;
    if (fd == -2) {
        memset(r, 0, sizeof *r);
        return flce_fail(e, FLCE_ERR_IO, "%s: another process has been writing this trace for 600 s: try again when it has finished", dir);
    }
    flce_status st = eval_dir_locked(dir, o, r, e);
    if (fd >= 0) close(fd); /* the lock: released */
    return st;
}

/* What an evaluation takes from its options and from the trace's record (completion.json). */
typedef struct {
    flce_completion_cfg cc;
    flce_ablation ab;
    uint64_t seed;
    int version, ablate_given;
    int recorded_initial;             /* completion.json: round 1 from the initial model */
    int recorded_all, recorded_first; /* the reading of the trace's prototypes.npy (a record without one: correct) */
    char cj[1200];                    /* DIR/completion.json */
} eval_setup;

/* The options, checked, into S (before the trace is looked at). */
static flce_status eval_options(const char *dir, const flce_eval_opts *o, eval_setup *S, flce_err *e) {
    flce_completion_cfg_default(&S->cc);
    S->ablate_given = o->ablate != NULL, S->version = FLCE_COMPLETION_VERSION;
    S->seed = o->has_seed ? o->seed : 1;
    flce_status st;
    if ((st = parse_ablate(o->ablate, &S->ab, e))) return st;
    if (S->ab.no_completion && (o->rank || o->mu || o->solver || o->completion || o->missing || o->has_seed || o->tol != 0))
        return flce_fail(e, FLCE_ERR_ARG, "--rank, --mu, --solver, --completion, --missing, --seed, --tol: settings of the completion, and "
                         "--ablate CMC runs none");
    if ((st = flce_completion_parse(o->rank, o->mu, o->solver, o->completion, &S->cc, e))) return st;
    if (o->max_iter < 1) return flce_fail(e, FLCE_ERR_ARG, "--max-iter %d: must be at least 1", o->max_iter);
    if (S->seed > ((uint64_t)1 << 53)) /* completion_eval.json records it as a JSON number: exact up to 2^53 */
        return flce_fail(e, FLCE_ERR_ARG, "--seed %llu: at most 2^53 = 9007199254740992", (unsigned long long)S->seed);
    struct stat sb;
    if (!dir || stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) return flce_fail(e, FLCE_ERR_ARG, "%s: no such trace directory", dir ? dir : "(none)");
    if (o->proto_samples && strcmp(o->proto_samples, "correct") && strcmp(o->proto_samples, "all") && strcmp(o->proto_samples, "first"))
        return flce_fail(e, FLCE_ERR_ARG, "--proto-samples '%s': correct, all or first", o->proto_samples);
    if (o->missing && strcmp(o->missing, "zero") && strcmp(o->missing, "unobserved"))
        return flce_fail(e, FLCE_ERR_ARG, "--missing '%s': zero or unobserved", o->missing);
    if (o->missing) S->cc.missing_unobserved = !strcmp(o->missing, "unobserved");
    if (o->velocity && strcmp(o->velocity, "squared") && strcmp(o->velocity, "distance"))
        return flce_fail(e, FLCE_ERR_ARG, "--velocity '%s': squared (the text) or distance (the released code)", o->velocity);
    if (o->absent_class && strcmp(o->absent_class, "keep") && strcmp(o->absent_class, "forget"))
        return flce_fail(e, FLCE_ERR_ARG, "--absent-class '%s': keep (the text) or forget (the released code)", o->absent_class);
    if ((o->velocity || o->absent_class) && (S->ab.no_velocity || S->ab.no_momentum))
        return flce_fail(e, FLCE_ERR_ARG, "--velocity, --absent-class: rules of the velocity, and --ablate %s leaves it out",
                         S->ab.no_velocity ? "V" : "Q");
    if (o->velocity) S->cc.rules.velocity_distance = !strcmp(o->velocity, "distance");
    if (o->absent_class) S->cc.rules.forget_absent = !strcmp(o->absent_class, "forget");
    const char *ip = o->initial_prototypes;
    if (ip && strcmp(ip, "none") && strcmp(ip, "initial-model"))
        return flce_fail(e, FLCE_ERR_ARG, "--initial-prototypes '%s': none (the text) or initial-model (the released code)", ip);
    if (ip && !strcmp(ip, "initial-model") && (S->ab.no_velocity || S->ab.no_momentum))
        return flce_fail(e, FLCE_ERR_ARG, "--initial-prototypes: round 1's reference of the velocity, and --ablate %s leaves it out",
                         S->ab.no_velocity ? "V" : "Q");
    return FLCE_OK;
}

/* A trace written by `flce run` records its completion seed, settings and ablations: taken
 * where the caller does not give them. */
static flce_status eval_record(const char *dir, const flce_eval_opts *o, eval_setup *S, flce_err *e) {
    struct stat sb;
    snprintf(S->cj, sizeof S->cj, "%s/completion.json", dir);
    if (lstat(S->cj, &sb) != 0) return FLCE_OK;
    flce_completion_file cf;
    flce_status st;
    if ((st = flce_completion_read(S->cj, &cf, e))) return st == FLCE_ERR_ARG ? FLCE_ERR_FORMAT : st; /* damaged: like any trace file */
    if (cf.has_seed && !o->has_seed) S->seed = cf.seed;
    S->version = cf.version;
    if (cf.missing[0] && !o->missing) S->cc.missing_unobserved = !strcmp(cf.missing, "unobserved");
    if (cf.velocity[0] && !o->velocity) S->cc.rules.velocity_distance = !strcmp(cf.velocity, "distance");
    if (cf.absent_class[0] && !o->absent_class) S->cc.rules.forget_absent = !strcmp(cf.absent_class, "forget");
    S->recorded_initial = !strcmp(cf.initial_prototypes, "initial-model");
    S->cc.rules.proto_clip = cf.proto_clip; /* the guard: as the run had it (no flag changes it) */
    { /* and as the run's config.json beside the trace records it, where there is one: an edited
       * completion.json would otherwise evaluate another guard in silence */
        char cp[1200];
        snprintf(cp, sizeof cp, "%s/../config.json", dir);
        if (stat(cp, &sb) == 0 && S_ISREG(sb.st_mode)) {
            flce_status js;
            flce_err je = {{0}};
            cJSON *cfg = flce_json_read(cp, 1 << 20, &js, &je);
            const cJSON *k = cfg ? cJSON_GetObjectItemCaseSensitive(cfg, "prototype_clip") : NULL;
            double want = cJSON_IsNumber(k) ? k->valuedouble : 0;
            int algo_flce = cfg && flce_json_str(cfg, "algo") && !strcmp(flce_json_str(cfg, "algo"), "flce");
            cJSON_Delete(cfg);
            if (algo_flce && want != cf.proto_clip)
                return flce_fail(e, FLCE_ERR_FORMAT, "%s: prototype_clip %g, the run's config.json %g (%s): one of them edited", S->cj,
                                 cf.proto_clip, want, cp);
        }
    }
    if (cf.prototypes[0]) S->recorded_all = !strcmp(cf.prototypes, "all"), S->recorded_first = !strcmp(cf.prototypes, "first");
    const char *given[4] = {o->completion, o->solver, o->rank, o->mu}, *vals[4] = {cf.completion, cf.solver, cf.rank, cf.mu};
    const char *got_v[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < 4; i++)
        if (vals[i][0] && !given[i]) got_v[i] = vals[i];
    flce_err ce;
    if (flce_completion_parse(got_v[2], got_v[3], got_v[1], got_v[0], &S->cc, &ce)) return flce_fail(e, FLCE_ERR_FORMAT, "%s: %s", S->cj, ce.msg);
    if (!S->ablate_given && (st = parse_ablate(cf.ablate, &S->ab, e))) return FLCE_ERR_FORMAT;
    return FLCE_OK;
}

/* The reading asked for, and the file that holds it (*proto_file; NULL: prototypes.npy):
 * prototypes.npy the recorded one, prototypes_first.npy the released code's first correct
 * sample, prototypes_alt.npy the other of correct and all (correct where the recorded reading is
 * first). */
static flce_status eval_reading(const char *dir, const flce_eval_opts *o, eval_setup *S, const char **proto_file, flce_err *e) {
    const char *rec = S->recorded_first ? "first" : S->recorded_all ? "all" : "correct";
    const char *want = o->proto_samples ? o->proto_samples : rec;
    *proto_file = !strcmp(want, rec) ? NULL : !strcmp(want, "first") ? "prototypes_first.npy" : S->recorded_first && !strcmp(want, "all") ? "" : "prototypes_alt.npy";
    if (*proto_file && !**proto_file)
        return flce_fail(e, FLCE_ERR_ARG, "--proto-samples all: %s holds the first reading and the correct one (a run with --proto-samples first "
                         "records no means of all samples)", dir);
    S->cc.proto_all = !strcmp(want, "all"), S->cc.proto_first = !strcmp(want, "first");
    if (*proto_file) {
        char pa[1300];
        struct stat sb;
        snprintf(pa, sizeof pa, "%s/%s", dir, *proto_file);
        if (stat(pa, &sb) != 0)
            return flce_fail(e, FLCE_ERR_ARG, "--proto-samples %s: %s holds the %s reading and no %s (%s)", o->proto_samples, dir, rec, *proto_file,
                             !strcmp(want, "first") ? "written before runs recorded the released code's first correct sample: rerun to have it"
                                                    : "a run of this harness records both; this trace was written without the other");
    }
    if (S->version != FLCE_COMPLETION_VERSION)
        return flce_fail(e, FLCE_ERR_ARG, "%s: completion version %d: this build knows version %d only (a newer build wrote it)", S->cj, S->version,
                         FLCE_COMPLETION_VERSION);
    if (o->tol < 0 || !isfinite(o->tol) || o->tol >= 1) return flce_fail(e, FLCE_ERR_ARG, "--tol %g: must be from 0 to below 1", o->tol);
    if (o->threads < 0 || o->threads > 64) return flce_fail(e, FLCE_ERR_ARG, "--threads %d: must be 0 (one per CPU) to 64", o->threads);
    S->cc.version = S->version, S->cc.tol = o->tol, S->cc.threads = o->threads;
    return FLCE_OK;
}

/* The trace loaded, checked against what is asked of it: a Q.npy without prototypes takes no
 * rule of the velocity and no ablation M, V or Q (its own are in it); an unfinished run's
 * rounds not run yet are never completed; --rounds R keeps the first R rounds. */
static flce_status eval_loaded(const char *dir, const flce_eval_opts *o, flce_eval_run *r, eval_setup *S, flce_err *e) {
    if (!r->tf.tr.prototypes && (o->velocity || o->absent_class || o->initial_prototypes)) /* the rules make Q from prototypes */
        return flce_fail(e, FLCE_ERR_ARG, "%s: %s has Q.npy but no prototypes.npy; its Q holds the run's own rules",
                         o->initial_prototypes ? "--initial-prototypes" : "--velocity, --absent-class", dir);
    const char *ip = o->initial_prototypes;
    if (ip && !strcmp(ip, "initial-model") && !r->tf.tr.initial_g)
        return flce_fail(e, FLCE_ERR_ARG, "--initial-prototypes initial-model: %s has no initial_prototypes.npy (a run records it with "
                         "--initial-prototypes initial-model)", dir);
    if (!ip && S->recorded_initial && r->tf.tr.prototypes && !r->tf.tr.initial_g) /* never the text's round 1 in silence where the run
                                                                                        took the other (a Q.npy holds the run's own) */
        return flce_fail(e, FLCE_ERR_FORMAT, "%s: its completion.json records round 1's prototypes from the initial model, and "
                         "initial_prototypes.npy is missing (--initial-prototypes none evaluates it with the text's round 1)", dir);
    if (ip && !strcmp(ip, "none")) r->tf.tr.initial_g = NULL; /* the text's round 1, on the run's trajectory */
    S->cc.initial_model = r->tf.tr.initial_g != NULL;
    if (!r->tf.tr.prototypes) { /* a run's Q.npy: its own ablations M, V, Q are in it already */
        if (S->ablate_given) {
            flce_ablation given = {0};
            parse_ablate(o->ablate, &given, e);
            if (given.no_mass || given.no_velocity || given.no_momentum)
                return flce_fail(e, FLCE_ERR_ARG, "--ablate M, V or Q: %s has Q.npy but no prototypes.npy; its Q holds the run's own ablation", dir);
        }
        r->ab_rec = S->ab; /* recorded as the run's */
        S->ab.no_mass = S->ab.no_velocity = S->ab.no_momentum = 0;
    } else r->ab_rec = S->ab;
    /* an unfinished run's trace: its rounds not run yet hold no selection (every round of a run
     * selects K >= 1 clients), and completing them would invent rounds that never happened */
    const flce_trace *tr = &r->tf.tr;
    int done = 0, later = 0;
    for (int t = 0; t < tr->T; t++) {
        int any = 0;
        for (int k = 0; k < tr->n && !any; k++) any = tr->selected[(size_t)t * tr->n + k] != 0;
        if (any && done == t) done = t + 1;
        else if (any) later = t + 1;
    }
    if (later) return flce_fail(e, FLCE_ERR_FORMAT, "%s: round %d selects no client but round %d does: a damaged trace", dir, done + 1, later);
    if (done < tr->T && (o->rounds < 0 || o->rounds > done))
        return flce_fail(e, FLCE_ERR_ARG,
                         done ? "%s: rounds %d..%d of %d were not run (an unfinished run): evaluate the rounds done with --rounds %d"
                              : "%s: no round was run (rounds %d..%d of %d select no client)",
                         dir, done + 1, tr->T, tr->T, done);
    if (o->rounds >= 0) {
        if (o->rounds < 1 || o->rounds > r->tf.tr.T)
            return flce_fail(e, FLCE_ERR_ARG, "--rounds %d: must be from 1 to %d (the trace's rounds)", o->rounds, r->tf.tr.T);
        r->tf.tr.T = o->rounds; /* every array is round-major: the first R rounds are its prefix */
        if (r->tf.tr.round_weights) { /* weights 0 in all of them gave the uniform shares, silently */
            double s = 0;
            for (int t = 0; t < o->rounds; t++) s += r->tf.tr.round_weights[t];
            if (!(s > 0))
                return flce_fail(e, FLCE_ERR_ARG, "round weights: rounds 1..%d all weigh 0, and --rounds %d evaluates those only",
                                 o->rounds, o->rounds);
        }
    }
    return FLCE_OK;
}

static flce_status eval_dir_locked(const char *dir, const flce_eval_opts *o, flce_eval_run *r, flce_err *e) {
    memset(r, 0, sizeof *r);
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    eval_setup S = {0};
    const char *proto_file = NULL;
    flce_status st;
    if ((st = eval_options(dir, o, &S, e)) || (st = eval_record(dir, o, &S, e)) || (st = eval_reading(dir, o, &S, &proto_file, e))) return st;
    int weights_bad = 0;
    if ((st = flce_trace_load_as(dir, proto_file, o->round_weights, o->class_weights, &r->tf, &weights_bad, e))) {
        if (st == FLCE_ERR_FORMAT && proto_file && strstr(e->msg, "/selected.npy: shape")) /* the shapes come from proto_file */
            return flce_fail(e, st, "%s/%s: its rounds and clients are not those of %s/selected.npy: not this trace's", dir, proto_file, dir);
        return weights_bad ? FLCE_ERR_ARG : st; /* a weight file that does not fit the trace: a usage error */
    }
    if (proto_file && r->tf.tr.prototypes) { /* the other reading: of this trace's shape, as its prototypes.npy */
        char pp[1300], pa[1300], sa[200], sb[200];
        snprintf(pp, sizeof pp, "%s/prototypes.npy", dir), snprintf(pa, sizeof pa, "%s/%s", dir, proto_file);
        if (npy_shape_text(pp, sb, sizeof sb) && npy_shape_text(pa, sa, sizeof sa) && strcmp(sa, sb))
            return flce_fail(e, FLCE_ERR_FORMAT, "%s: its shape %s is not that of %s, %s: not this trace's", pa, sa, pp, sb);
    }
    if ((st = eval_loaded(dir, o, r, &S, e))) return st;
    S.cc.max_iter = o->max_iter;
    S.cc.seed = S.seed;
    r->cc = S.cc, r->ab = S.ab;
    st = flce_eval_trace(&r->tf.tr, &S.ab, &S.cc, &r->res, e);
    if (st && proto_file && !strncmp(e->msg, "prototypes.npy:", 15)) { /* the evaluator names the array it was given: here another file */
        char m[sizeof e->msg];
        snprintf(m, sizeof m, "%s", e->msg + 15);
        flce_fail(e, st, "%s/%s:%.900s", dir, proto_file, m);
    }
    return st;
}

void flce_eval_run_free(flce_eval_run *r) {
    flce_eval_result_free(&r->res);
    flce_trace_files_free(&r->tf);
}

void flce_eval_default_out(const char *dir, char *buf, size_t cap) {
    size_t l = strlen(dir);
    while (l > 1 && dir[l - 1] == '/') l--;
    snprintf(buf, cap, "%.*s-eval", (int)l, dir);
}

flce_status flce_eval_out_check(const char *out, const char *trace_dir, flce_err *e) {
    char p[4200];
    struct stat sb;
    if (trace_dir && flce_path_within(out, trace_dir))
        return flce_fail(e, FLCE_ERR_ARG, "--out %s: %s the trace folder it reads: an evaluation never writes into its input: give another "
                         "folder", out, flce_path_within(trace_dir, out) ? "is" : "inside");
    snprintf(p, sizeof p, "%s/config.json", out);
    if (stat(p, &sb) == 0)
        return flce_fail(e, FLCE_ERR_ARG, "--out %s: a run folder (its contributions.csv is the run's result): give another folder", out);
    snprintf(p, sizeof p, "%s/../config.json", out);
    char q[4200];
    snprintf(q, sizeof q, "%s/selected.npy", out);
    if (stat(p, &sb) == 0 && stat(q, &sb) == 0)
        return flce_fail(e, FLCE_ERR_ARG,
                         "--out %s: the trace folder of a run (its Q.npy and X_completed.npy are the run's record): give another folder", out);
    snprintf(p, sizeof p, "%s/contributions.csv", out);
    snprintf(q, sizeof q, "%s/completion_eval.json", out);
    if (stat(p, &sb) == 0 && stat(q, &sb) != 0)
        return flce_fail(e, FLCE_ERR_ARG, "--out %s: holds a contributions.csv that no flce eval wrote (no completion_eval.json): give another folder",
                         out);
    static const char *const files[] = {"Q.npy", "X_completed.npy", "contributions.csv", "completion_eval.json"};
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", out, files[i]);
        if (lstat(p, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISLNK(sb.st_mode))
            return flce_fail(e, FLCE_ERR_IO, "%s: cannot replace: %s, not a file", p, S_ISDIR(sb.st_mode) ? "a folder" : "something");
    }
    /* the folder, or the nearest one above it that exists (where it would be made), takes files */
    if (flce_path_writable(out, p, sizeof p) != 0)
        return flce_fail(e, FLCE_ERR_ARG, "--out %s: cannot write into %s: %s", out, p, strerror(errno));
    return FLCE_OK;
}

flce_status flce_eval_write(const char *out, const flce_eval_run *r, flce_err *e) {
    const flce_eval_result *res = &r->res;
    int T = r->tf.tr.T, n = r->tf.tr.n, C = r->tf.tr.C;
    char p[4200];
    struct stat osb;
    int made = stat(out, &osb) != 0;
    if (!made && !S_ISDIR(osb.st_mode)) return flce_fail(e, FLCE_ERR_ARG, "--out %s: not a directory", out);
    flce_status st = flce_eval_out_check(out, r->dir[0] ? r->dir : NULL, e);
    if (st) return st;
    int64_t shp[3] = {T, n, C};
    if (flce_mkdirs(out) != 0) return flce_fail(e, FLCE_ERR_IO, "--out %s: cannot create", out);
    snprintf(p, sizeof p, "%s/Q.npy", out);
    st = flce_npy_write(p, FLCE_NPY_F64, 3, shp, res->Q, e);
    snprintf(p, sizeof p, "%s/X_completed.npy", out);
    if (!st) st = flce_npy_write(p, FLCE_NPY_F64, 3, shp, res->X, e);
    size_t cap = 64 + (size_t)n * 48, len = 0;
    char *csv = st ? NULL : malloc(cap);
    if (!st && !csv) st = flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    if (!st) {
        flce_catf(csv, cap, &len, "client,contribution\n");
        for (int k = 0; k < n; k++) flce_catf(csv, cap, &len, "%d,%.17g\n", k, res->CE[k]); /* 48 bytes a line is enough */
        snprintf(p, sizeof p, "%s/contributions.csv", out);
        st = flce_write_file_atomic(p, csv, len, e);
    }
    free(csv);
    if (!st) {
        char ablate_s[32];
        snprintf(ablate_s, sizeof ablate_s, "%s%s%s%s", r->ab_rec.no_mass ? "M " : "", r->ab_rec.no_velocity ? "V " : "",
                 r->ab_rec.no_momentum ? "Q " : "", r->ab_rec.no_completion ? "CMC" : "");
        char td[17] = ""; /* the trace evaluated, named by digests.txt's digest of it */
        if (r->dir[0]) flce_digest_hex(flce_trace_digest(r->dir), td);
        snprintf(p, sizeof p, "%s/completion_eval.json", out);
        st = flce_completion_record(p, &r->cc, ablate_s, C, res, r->dir[0] ? td : NULL, e);
    }
    if (st) { /* the four files, whole or not at all: a failed write (a full disk) removes them all, and the folder where
                 this call made it */
        static const char *files[] = {"Q.npy", "X_completed.npy", "contributions.csv", "completion_eval.json"};
        for (int i = 0; i < 4; i++) {
            snprintf(p, sizeof p, "%s/%s", out, files[i]);
            if (lstat(p, &osb) == 0 && S_ISREG(osb.st_mode)) remove(p);
        }
        if (made) rmdir(out);
        snprintf(e->msg + strlen(e->msg), sizeof e->msg - strlen(e->msg), " (nothing written)");
    }
    return st;
}
