/* run_job.c: `flce run`'s command line parsed into a job (flce_run_job, run_job.h), for `flce
 * run` and for the programs on top of it (`flce truth`): the option table, then one check of a
 * kind of setting a function, in the order the messages come. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attacks.h"
#include "backend_select.h"
#include "cli.h"
#include "comm.h"
#include "commands.h"
#include "engine.h"
#include "eval_dir.h"
#include "method.h"
#include "run_job.h"
#include "trace_io.h"

static const char *USAGE =
    "usage: flce run --algo METHOD[,...]|all [--ablate M|V|Q|CL|CMC]... [--dataset D] [--data DIR]\n"
    "                [--clients 50] [--per-round 10] [--rounds T] [--dirichlet 0.5 | --iid | --quantity-skew A]\n"
    "                [--label-noise R] [--feature-noise S] [--noisy-clients F] [--noisy-choice draw|last]\n"
    "                [--label-noise-map other|next] [--feature-noise-std given|data] [--dirichlet-balance]\n"
    "                [--attack KIND:CLIENT[:STRENGTH]]...\n"
    "                [--epochs 1] [--batch 64] [--lr 0.01]\n"
    "                [--local-steps S] [--momentum M] [--weight-decay W] [--clip-norm G]\n"
    "                [--schedule random|sweep|window]\n"
    "                [--as-released] [--class-weights FILE] [--train-subset N] [--test-subset N] [--val-size N]\n"
    "                [--backend auto|cpu|vulkan|reference] [--device D]\n"
    "                --seed S --out DIR [--resume] [--force] [--quiet]\n"
    "                [--rank auto|rule|R] [--mu auto|MU] [--solver als|gd] [--completion masked|literal]\n"
    "                [--proto-samples correct|all|first] [--missing zero|unobserved]\n"
    "                [--denormals auto|preserve|ftz] [--mpi-timeout 1800]\n"
    "                [METHOD SETTINGS (below)]\n"
    "With several methods (comma-separated), each runs into DIR/<method> on the same partition and seed;\n"
    "`all`: every one of them. METHOD:\n";

flce_backend *flce_backend_req_open(void *ud, flce_err *e) {
    flce_backend_req *r = ud;
    if (!r->be) r->be = flce_backend_open(r->name, r->device, r->mode, e);
    return r->be;
}

/* The list of methods, each checked before any work starts: no empty name, no unknown one,
 * none twice, at most 16 (pointers into list); how many, or -1 after a usage error. */
static int parse_methods(const char *prog, const char *algos, char *list, size_t cap, char **names) {
    int nm = 0;
    if (strlen(algos) >= cap) return cli_usage_error(prog, "--algo: the list is too long"), -1;
    snprintf(list, cap, "%s", algos);
    for (char *a = list, *next; a; a = next) {
        next = strchr(a, ',');
        if (next) *next++ = '\0';
        if (!*a) return cli_usage_error(prog, "--algo '%s': an empty method name (%s, or all)", algos, flce_method_names()), -1;
        if (!strcmp(a, "all")) return cli_usage_error(prog, "--algo '%s': all stands alone (it names every method)", algos), -1;
        if (!flce_algo_known(a)) return cli_usage_error(prog, "--algo '%s': unknown (%s, or all)", a, flce_method_names()), -1;
        for (int j = 0; j < nm; j++)
            if (!strcmp(names[j], a)) return cli_usage_error(prog, "--algo: '%s' is named twice", a), -1;
        if (nm == 16) return cli_usage_error(prog, "--algo: at most 16 methods in one run"), -1;
        names[nm++] = a;
    }
    return nm;
}


/* The settings given as words (--ablate) and the sizes that must be positive when given; 0, or 2
 * after a usage error. */
static int settings_from_flags(const char *prog, cli_opt *opts, flce_run_cfg *cp, const cli_list *ablate) {
    flce_run_cfg c = *cp;
    flce_err e = {{0}};
    for (int i = 0; i < ablate->n; i++)
        if (flce_ablation_word(ablate->items[i], &c.ablate, &c.ablate_cl, &e)) return cli_usage_error(prog, "%s", e.msg);
    if (cli_find(opts, "train-subset")->seen && c.train_subset < 1) return cli_usage_error(prog, "--train-subset %d: must be at least 1", c.train_subset);
    if (cli_find(opts, "test-subset")->seen && c.test_subset < 1) return cli_usage_error(prog, "--test-subset %d: must be at least 1", c.test_subset);
    if (cli_find(opts, "val-size")->seen && c.val_size < 1) return cli_usage_error(prog, "--val-size %d: must be at least 1", c.val_size);
    *cp = c;
    return 0;
}

/* --seeds A-B or A,B,...: whole numbers up to 2^53, at most 64, none twice, into v; how many, or
 * -1 after a usage error. */
static int parse_seeds(const char *prog, const char *seeds_s, uint64_t *v) {
    int ns = 0;
    char *end;
    const char *q = seeds_s;
    if (strchr(seeds_s, '-')) {
        unsigned long long a = strtoull(q, &end, 10), b;
        if (end == q || *end != '-' || (b = strtoull(end + 1, &end, 10), *end) || b < a || b - a >= 64 || b > (1ull << 53))
            return cli_usage_error(prog, "--seeds '%s': A-B with A <= B, at most 64 seeds, at most 2^53", seeds_s), -1;
        for (unsigned long long s = a; s <= b; s++) v[ns++] = s;
        return ns;
    }
    for (;;) {
        unsigned long long s = strtoull(q, &end, 10);
        if (end == q || (*end && *end != ',') || s > (1ull << 53) || ns == 64 || *q == '-')
            return cli_usage_error(prog, "--seeds '%s': A-B or A,B,... (whole numbers up to 2^53, at most 64)", seeds_s), -1;
        for (int i = 0; i < ns; i++)
            if (v[i] == s) return cli_usage_error(prog, "--seeds: %llu is named twice", s), -1;
        v[ns++] = s;
        if (!*end) return ns;
        q = end + 1;
    }
}

/* --members A,B,... (ascending clients, each once) into c, and --per-round as the coalition makes
 * it: every member with --participation full, else at most their number; 0, or 2 after a usage
 * error. */
static int parse_members(const char *prog, const char *members_s, const char *participation, int per_round_given, flce_run_cfg *c) {
    const char *q = members_s;
    for (;;) {
        char *end;
        long v = strtol(q, &end, 10);
        /* plain decimal indices only: strtol's own '+', '-', spaces and leading zeros are refused */
        int plain = *q >= '0' && *q <= '9' && !(*q == '0' && q[1] >= '0' && q[1] <= '9');
        if (!plain || end == q || (*end && *end != ',') || v < 0 || v >= c->clients || c->nmembers == 64 ||
            (c->nmembers && v <= c->members[c->nmembers - 1]))
            return cli_usage_error(prog, "--members '%s': clients 0..%d, ascending, each once, at most 64, as plain decimal numbers", members_s,
                                   c->clients - 1);
        c->members[c->nmembers++] = (int)v;
        if (!*end) break;
        q = end + 1;
    }
    int full = participation && !strcmp(participation, "full");
    if (full && per_round_given && c->per_round < c->nmembers) /* one at least |S| says the same (a truth's recorded flags) */
        return cli_usage_error(prog, "--participation full: every member every round, and --per-round %d is below the %d members",
                               c->per_round, c->nmembers);
    if (full) c->per_round = c->nmembers;
    else if (c->per_round > c->nmembers) c->per_round = c->nmembers; /* min(K, |S|) */
    return 0;
}

/* The words and switches of `flce run`'s command line that are not settings of flce_run_cfg
 * itself, the option table that reads them, and the usage text. */
#define RUN_MAX_FIXED 64
typedef struct {
    const char *algos, *out, *cw_path, *device, *comp_rank, *comp_mu, *comp_solver, *comp_kind, *denorm, *backend, *proto_s,
        *missing_s, *schedule, *noisy_choice, *label_map, *seeds_s, *members_s, *participation, *duplicate_s, *noise_std;
    cli_list ablate, attack;
    int iid, quiet, as_released, test_loss;
    double rank_timeout;
    flce_denorm_mode dmode;
    cli_opt opts[RUN_MAX_FIXED + FLCE_MAX_SETTINGS + 1];
    int nfixed, nset;
    const char *setw[FLCE_MAX_SETTINGS]; /* a method setting given as a word */
    double setx[FLCE_MAX_SETTINGS];      /* ... as a number */
    char set_help[FLCE_MAX_SETTINGS][200], dataset_help[200];
    char usage[8192]; /* the methods and their settings from the registry */
} run_flags;

static int seen(const run_flags *w, const char *name) { return cli_find((cli_opt *)w->opts, name)->seen; }

/* The option table: the fixed flags (into w and c), then one option for each method setting of
 * the registry's tables (fl/methods/); the usage text beside it. */
static void flag_table(run_flags *w, flce_run_cfg *c) {
    snprintf(w->dataset_help, sizeof w->dataset_help, "%s (default fmnist; flce data --help)", flce_dataset_names());
    cli_opt fixed[] = {
        {"algo", CLI_STR, &w->algos, "a method, a comma-separated list, or all", 0},
        {"ablate", CLI_LIST, &w->ablate, "FLCE ablation M, V, Q, CL or CMC (repeatable)", 0},
        {"dataset", CLI_STR, &c->dataset, w->dataset_help, 0},
        {"data", CLI_STR, &c->data_dir, "dataset folder", 0},
        {"clients", CLI_INT, &c->clients, "clients n (default 50)", 0},
        {"per-round", CLI_INT, &c->per_round, "clients selected per round K (default 10)", 0},
        {"rounds", CLI_INT, &c->rounds, "rounds T (default 100)", 0},
        {"dirichlet", CLI_DOUBLE, &c->part.dirichlet, "Dirichlet label skew delta (default 0.5)", 0},
        {"iid", CLI_FLAG, &w->iid, "IID partition", 0},
        {"quantity-skew", CLI_DOUBLE, &c->part.quantity_skew, "quantity skew A: labels IID, client sizes from a Dirichlet(A) draw", 0},
        {"min-samples", CLI_INT, &c->part.min_samples, "minimum samples per client (default 10)", 0},
        {"label-noise", CLI_DOUBLE, &c->part.label_noise, "label flip rate of noisy clients", 0},
        {"feature-noise", CLI_DOUBLE, &c->part.feature_noise, "feature noise std of noisy clients", 0},
        {"noisy-clients", CLI_DOUBLE, &c->part.noisy_frac, "fraction of noisy clients (default 1)", 0},
        {"noisy-choice", CLI_STR, &w->noisy_choice, "which clients are noisy: draw (seeded, default) or last (the released code: the last ones)", 0},
        {"label-noise-map", CLI_STR, &w->label_map, "a flipped label becomes: other (a uniformly drawn other class, default) or next ((y + 1) mod C, the released code)", 0},
        {"feature-noise-std", CLI_STR, &w->noise_std, "given (the std is --feature-noise, added to the normalised pixels; default) or data (--feature-noise times the client's own pixels' std, added to its pixels, then min-max rescaled to 0..255: the released code)", 0},
        {"attack", CLI_LIST, &w->attack, "a strategic client KIND:CLIENT[:STRENGTH] (repeatable, one a client; docs/attacks.md): replicate, random-data, shuffle-labels, flip-labels, free-rider, inflate-count or forge-prototypes", 0},
        {"duplicate", CLI_STR, &w->duplicate_s, "A:B: client B holds a copy of client A's data (labels and noise too; B's own samples are left out)", 0},
        {"dirichlet-balance", CLI_FLAG, &c->part.balance, "Dirichlet: a client holding N/n samples gets no share of later classes (the released code's balancing step)", 0},
        {"epochs", CLI_INT, &c->epochs, "local epochs E (default 1)", 0},
        {"batch", CLI_INT, &c->batch, "local batch (default 64)", 0},
        {"lr", CLI_DOUBLE, &c->lr, "learning rate (default 0.01)", 0},
        {"local-steps", CLI_INT, &c->local_steps, "S local steps of a batch each instead of epochs, the data reshuffled where they run out (the released code: 50)", 0},
        {"momentum", CLI_DOUBLE, &c->momentum, "SGD momentum, restarted each round (default 0; the released code: 0.9)", 0},
        {"weight-decay", CLI_DOUBLE, &c->weight_decay, "SGD weight decay, coupled (default 0; the released code: 1e-5)", 0},
        {"clip-norm", CLI_DOUBLE, &c->clip_norm, "the gradients' total L2 norm clipped to it (default 0: none; the released code: 100)", 0},
        {"schedule", CLI_STR, &w->schedule, "selection: random (default), sweep (the released FLCE's: the first n/K rounds take clients 0..K-1, K..2K-1, ...) or window (the released FedSV's: a window of K/2 clients moving on by K/2 a round, and K/2 at random from the others); with --as-released: each method's released one", 0},
        {"as-released", CLI_FLAG, &w->as_released, "every departure of the authors' released code that this harness has as a setting (docs/flce.md, \"The released code\"); a flag given beside it wins", 0},
        {"proto-samples", CLI_STR, &w->proto_s, "FLCE: a prototype averages the samples classified right (correct, the paper's text; default) or all of its class (all, its equation), or is the first sample classified right (first, the released code)", 0},
        {"missing", CLI_STR, &w->missing_s, "FLCE completion: a selected client's missing prototype is an observed zero (zero, default) or unobserved (filled by the completion)", 0},
        {"class-weights", CLI_STR, &w->cw_path, "FLCE: b_c per class (.npy float64 [C] or a text list)", 0},
        {"train-subset", CLI_INT, &c->train_subset, "seeded stratified training subset", 0},
        {"test-subset", CLI_INT, &c->test_subset, "seeded stratified test subset", 0},
        {"val-size", CLI_INT, &c->val_size, "server validation set (default min(1000, 10% of training))", 0},
        {"denormals", CLI_STR, &w->denorm, "float contract mode: auto (what the device does), preserve or ftz", 0},
        {"rank", CLI_STR, &w->comp_rank, "FLCE completion rank: auto (default: held-out choice), rule (min(4, obs / (2 (T + n)))) or R", 0},
        {"mu", CLI_STR, &w->comp_mu, "FLCE completion ridge weight: auto (default: held-out choice) or MU", 0},
        {"solver", CLI_STR, &w->comp_solver, "FLCE completion solver: als (default) or gd", 0},
        {"completion", CLI_STR, &w->comp_kind, "masked (default: observed entries only) or literal (the paper's equation as written)", 0},
        {"backend", CLI_STR, &w->backend, "auto (vulkan on a GPU, else cpu; the default, or $FLCE_BACKEND where set), cpu, vulkan or reference", 0},
        {"device", CLI_STR, &w->device, "Vulkan device: index or part of its name, or `rank`: the process's rank on its machine under mpirun (default: FLCE_VK_DEVICE, else the best)", 0},
        {"seed", CLI_U64, &c->seed, "the seed that fixes everything", 0},
        {"train-seed", CLI_U64, &c->train_seed, "the training's own seed (initial model, selection, batch order, Monte-Carlo draws; default: --seed): the data and partition stay --seed's", 0},
        {"test-loss", CLI_FLAG, &w->test_loss, "each round also the global model's test loss (metrics.csv's test_loss column; flce truth's utilities)", 0},
        {"members", CLI_STR, &w->members_s, "train this coalition alone: clients A,B,... (ascending); only they are selected, --per-round of them a round (at most their number) by the run's seeded stream", 0},
        {"participation", CLI_STR, &w->participation, "with --members: k (default: --per-round of them a round) or full (every member every round)", 0},
        {"seeds", CLI_STR, &w->seeds_s, "several seeds, A-B or A,B,...: each into OUT/sSEED, one job (--resume continues it, the seeds not started yet start)", 0},
        {"out", CLI_STR, &w->out, "run directory", 0},
        {"resume", CLI_FLAG, &c->resume, "continue the run in --out", 0},
        {"force", CLI_FLAG, &c->force, "overwrite the run in --out", 0},
        {"quiet", CLI_FLAG, &w->quiet, "no size line and no progress lines (stderr: on a terminal one line per round; elsewhere every 10 s or more)", 0},
        {"mpi-timeout", CLI_DOUBLE, &w->rank_timeout, "under mpirun: seconds a rank waits for the others in one exchange before it names the ranks that do not answer and ends the job (default 1800; 0: forever)", 0},
    };
    _Static_assert(sizeof fixed / sizeof fixed[0] <= RUN_MAX_FIXED, "RUN_MAX_FIXED: the fixed flags outgrew it");
    w->nfixed = (int)(sizeof fixed / sizeof fixed[0]);
    w->nset = flce_setting_count();
    memcpy(w->opts, fixed, sizeof fixed);
    size_t ul = 0;
    flce_catf(w->usage, sizeof w->usage, &ul, "%s%s\nMETHOD SETTINGS (each applies to the methods named):\n", USAGE, flce_method_help());
    for (int i = 0; i < w->nset; i++) {
        const flce_setting *s = flce_setting_at(i);
        char d[64], who[200];
        flce_setting_text(s, NAN, d, sizeof d);
        if (s->choices) snprintf(w->set_help[i], sizeof w->set_help[i], "%s: %s (default %s)", s->help, s->choices, d);
        else snprintf(w->set_help[i], sizeof w->set_help[i], "%s (default %s)", s->help, d);
        w->opts[w->nfixed + i] = s->choices ? (cli_opt){s->flag, CLI_STR, &w->setw[i], w->set_help[i], 0}
                                            : (cli_opt){s->flag, CLI_DOUBLE, &w->setx[i], w->set_help[i], 0};
        flce_catf(w->usage, sizeof w->usage, &ul, "  --%-20s %-13s %s\n", s->flag, d, flce_setting_methods(s, who, sizeof who));
    }
    memset(&w->opts[w->nfixed + w->nset], 0, sizeof w->opts[0]);
    if (ul && w->usage[ul - 1] == '\n') w->usage[ul - 1] = '\0'; /* cli_parse ends the text itself */
}

/* What every run needs (--algo, --out, the seeds), the devices, the partition's kind, --resume
 * against --force and the ranks' wait; 0, or 2 after a usage error. */
static int check_job(const char *prog, run_flags *w, flce_run_cfg *c, flce_comm *comm, int say_fd, flce_run_job *J) {
    char why[1024];
    if (!flce_backend_check_flags(w->backend, w->device, why, sizeof why)) return cli_usage_error(prog, "%s", why);
    if (!w->algos) return cli_usage_error(prog, "--algo is required (%s, or all)", flce_method_names());
    if (!strcmp(w->algos, "all")) { /* the registry's order */
        size_t n = 0;
        for (int i = 0; i < flce_method_count(); i++) flce_catf(J->every, sizeof J->every, &n, "%s%s", i ? "," : "", flce_method_name(i));
        w->algos = J->every;
    }
    if (!w->out) return cli_usage_error(prog, "--out DIR is required");
    if (w->seeds_s && seen(w, "seed")) return cli_usage_error(prog, "--seed and --seeds exclude each other");
    if (w->seeds_s && (J->ns = parse_seeds(prog, w->seeds_s, J->seedv)) < 0) return 2;
    if (!seen(w, "seed") && !J->ns) return cli_usage_error(prog, "--seed is required (one seed fixes everything; several: --seeds 1-3)");
    if (w->iid && seen(w, "dirichlet")) return cli_usage_error(prog, "--iid and --dirichlet exclude each other");
    if (seen(w, "quantity-skew")) {
        if (w->iid || seen(w, "dirichlet")) return cli_usage_error(prog, "--quantity-skew excludes --iid and --dirichlet (its labels are IID)");
        if (!(c->part.quantity_skew > 0 && c->part.quantity_skew < 1e6))
            return cli_usage_error(prog, "--quantity-skew %g: must be a number > 0", c->part.quantity_skew);
    }
    if (seen(w, "noisy-clients") && !seen(w, "label-noise") && !seen(w, "feature-noise"))
        return cli_usage_error(prog, "--noisy-clients %g: says which clients get --label-noise or --feature-noise, and neither is given", c->part.noisy_frac);
    if (c->resume && c->force) return cli_usage_error(prog, "--resume and --force exclude each other");
    if (!(w->rank_timeout >= 0 && w->rank_timeout <= 1e7)) return cli_usage_error(prog, "--mpi-timeout %g: seconds, 0 to 1e7", w->rank_timeout);
    if (seen(w, "mpi-timeout") && !(comm && comm->size > 1)) /* it would do nothing */
        return cli_usage_error(prog, "--mpi-timeout: applies to a job of several processes under mpirun, and this is one process");
#ifdef FLCE_HAVE_MPI
    if (comm) flce_comm_set_wait(comm, w->rank_timeout, say_fd);
#else
    (void)say_fd;
#endif
    return 0;
}

/* The training's settings: the float contract, the completion's words, --ablate, the schedule,
 * and --as-released's training values where no flag says otherwise (docs/flce.md); 0 or 2. */
static int check_training(const char *prog, run_flags *w, flce_run_cfg *c) {
    if (!flce_denorm_parse(w->denorm, &w->dmode)) return cli_usage_error(prog, "--denormals '%s': auto, preserve or ftz", w->denorm);
    c->denormals = w->denorm;
    flce_err ce;
    if (flce_completion_parse(w->comp_rank, w->comp_mu, w->comp_solver, w->comp_kind, &c->completion, &ce)) return cli_usage_error(prog, "%s", ce.msg);
    if (settings_from_flags(prog, w->opts, c, &w->ablate)) return 2;
    if (w->schedule && strcmp(w->schedule, "random") && strcmp(w->schedule, "sweep") && strcmp(w->schedule, "window"))
        return cli_usage_error(prog, "--schedule '%s': random, sweep or window", w->schedule);
    if (seen(w, "local-steps") && seen(w, "epochs")) /* --epochs 1, the default's value, was taken and ignored */
        return cli_usage_error(prog, "--local-steps and --epochs: give one (steps replace epochs)");
    if (seen(w, "local-steps") && c->local_steps == 0) /* 0 is the engine's "epochs": never a value given for it */
        return cli_usage_error(prog, "--local-steps 0: must be 1..1000000 (without the flag, --epochs counts the local training)");
    if (w->as_released) {
        if (!seen(w, "local-steps") && !seen(w, "epochs")) c->local_steps = 50;
        if (!seen(w, "momentum")) c->momentum = 0.9;
        if (!seen(w, "weight-decay")) c->weight_decay = 1e-5;
        if (!seen(w, "clip-norm")) c->clip_norm = 100;
        if (!w->schedule) c->schedule_released = 1; /* each method's own (flce run: flce_method.released_schedule) */
        if (!w->comp_rank && !w->comp_mu && !w->comp_solver && !w->comp_kind && !w->missing_s) c->ablate.no_completion = 1; /* no completion */
    }
    c->schedule_sweep = w->schedule && !strcmp(w->schedule, "sweep");
    c->schedule_window = w->schedule && !strcmp(w->schedule, "window");
    return 0;
}

/* The federation's data: --duplicate, the coalition (--members, --participation), which clients
 * are noisy and where a flipped label goes, the Dirichlet balancing step (with --as-released's
 * values where no flag says otherwise); 0 or 2. */
static int check_partition(const char *prog, run_flags *w, flce_run_cfg *c) {
    const char *participation = w->participation, *noisy_choice = w->noisy_choice, *label_map = w->label_map;
    int qskew = seen(w, "quantity-skew");
    c->part.iid = w->iid;
    if (w->duplicate_s && flce_parse_duplicate(w->duplicate_s, &c->part)) return cli_usage_error(prog, "--duplicate '%s': A:B, two clients", w->duplicate_s);
    if (participation && !w->members_s) return cli_usage_error(prog, "--participation: applies to a coalition (--members), and none is given");
    if (participation && strcmp(participation, "k") && strcmp(participation, "full"))
        return cli_usage_error(prog, "--participation '%s': k or full", participation);
    if (w->members_s && parse_members(prog, w->members_s, participation, seen(w, "per-round"), c)) return 2;
    if (noisy_choice && strcmp(noisy_choice, "draw") && strcmp(noisy_choice, "last")) return cli_usage_error(prog, "--noisy-choice '%s': draw or last", noisy_choice);
    if (label_map && strcmp(label_map, "other") && strcmp(label_map, "next")) return cli_usage_error(prog, "--label-noise-map '%s': other or next", label_map);
    int noise = c->part.label_noise > 0 || c->part.feature_noise > 0;
    if (noisy_choice && !noise) return cli_usage_error(prog, "--noisy-choice: says which clients are noisy, and no --label-noise or --feature-noise is given");
    if (label_map && !(c->part.label_noise > 0)) return cli_usage_error(prog, "--label-noise-map: says where a flipped label goes, and no --label-noise is given");
    if (w->as_released && !noisy_choice && noise) noisy_choice = "last";
    if (w->as_released && !label_map && c->part.label_noise > 0) label_map = "next";
    if (w->as_released && !w->iid && !qskew) c->part.balance = 1;
    const char *noise_std = w->noise_std;
    if (noise_std && strcmp(noise_std, "given") && strcmp(noise_std, "data")) return cli_usage_error(prog, "--feature-noise-std '%s': given or data", noise_std);
    if (noise_std && !(c->part.feature_noise > 0))
        return cli_usage_error(prog, "--feature-noise-std: says how the feature noise is made, and no --feature-noise is given");
    if (w->as_released && !noise_std && c->part.feature_noise > 0) noise_std = "data";
    c->part.noise_data_std = noise_std && !strcmp(noise_std, "data");
    c->part.noisy_last = noisy_choice && !strcmp(noisy_choice, "last");
    c->part.label_next = label_map && !strcmp(label_map, "next");
    if (c->part.balance && (w->iid || qskew))
        return cli_usage_error(prog, "--dirichlet-balance: a step of the Dirichlet partition, and --%s draws none", w->iid ? "iid" : "quantity-skew");
    return 0;
}

/* --attack (fl/attacks.c): each spec read, its client in range and named once, none that --duplicate
 * names, and each kind felt by some method of the run (forge-prototypes by one that takes
 * prototypes, inflate-count by one that reads counts); 0 or 2. */
static int check_attacks(const char *prog, run_flags *w, flce_run_cfg *c, char **names, int nm) {
    if (w->attack.n > FLCE_MAX_ATTACKS) return cli_usage_error(prog, "--attack: %d given, at most %d", w->attack.n, FLCE_MAX_ATTACKS);
    for (int i = 0; i < w->attack.n; i++) {
        char why[1024];
        if (flce_attack_parse(w->attack.items[i], &c->attacks[i], why, sizeof why))
            return cli_usage_error(prog, "--attack '%s': %s", w->attack.items[i], why);
        c->nattacks = i + 1;
        unsigned felt = 0;
        /* FLCE without a momentum (--ablate Q, or M and V: Q uniform) reads no prototype's length */
        int no_q = c->ablate.no_momentum || (c->ablate.no_mass && c->ablate.no_velocity);
        for (int m = 0; m < nm; m++) {
            const flce_method *M = flce_method_find(names[m]);
            felt |= M && flce_attack_felt(c->attacks[i].kind, M->flags) && !(c->attacks[i].kind == FLCE_ATTACK_FORGE_PROTOTYPES && no_q);
        }
        if (!felt)
            return cli_usage_error(prog, "--attack '%s': no method of the run feels it (%s: %s)", w->attack.items[i],
                                   flce_attack_name(c->attacks[i].kind),
                                   c->attacks[i].kind != FLCE_ATTACK_FORGE_PROTOTYPES ? "only a method that reads the clients' sample counts"
                                   : no_q ? "only FLCE's momentum, and --ablate leaves it out"
                                          : "only a method that takes prototypes, FLCE");
    }
    /* recorded in client order: the same attacks given in another order are the same run (each
     * attack's draws are its client's, not its position's) */
    for (int i = 1; i < c->nattacks; i++)
        for (int j = i; j > 0 && c->attacks[j - 1].client > c->attacks[j].client; j--) {
            flce_attack t = c->attacks[j];
            c->attacks[j] = c->attacks[j - 1], c->attacks[j - 1] = t;
        }
    flce_err e = {{0}};
    if (flce_attacks_check(c, &e)) return cli_usage_error(prog, "%s", e.msg);
    return 0;
}

/* Each method setting given: its value checked, and a method run that has it; with
 * --as-released, the released code's word where none is given; 0 or 2. */
static int check_method_settings(const char *prog, run_flags *w, flce_run_cfg *c, char **names, int nm) {
    static const char *const rel[][2] = {{"velocity", "distance"}, {"absent-class", "forget"}, {"cl-scale", "tau"}, {"aggregation", "mean"},
                                             {"initial-prototypes", "initial-model"}, {"utility-set", "test"}, {"players", "drawn"},
                                             {"next-model", "best"}};
    for (int i = 0; i < w->nset; i++) {
        const flce_setting *s = flce_setting_at(i);
        int given = w->opts[w->nfixed + i].seen, used = 0;
        for (int j = 0; j < nm; j++) used |= flce_method_has_setting(names[j], s);
        flce_err se;
        if (!given && w->as_released) { /* every method's, run or not: a method's config.json is the same whichever
                                            methods run beside it (a method without the setting never reads it) */
            for (size_t j = 0; j < sizeof rel / sizeof rel[0]; j++)
                if (!strcmp(s->flag, rel[j][0]) && flce_run_cfg_set(c, s, rel[j][1], &se)) return cli_usage_error(prog, "%s", se.msg);
            continue;
        }
        if (!given) continue;
        if (s->choices ? flce_run_cfg_set(c, s, w->setw[i], &se) : flce_run_cfg_set_value(c, s, w->setx[i], &se))
            return cli_usage_error(prog, "%s", se.msg);
        char who[200];
        if (!used)
            return cli_usage_error(prog, "--%s: a setting of %s, and --algo '%s' does not run it", s->flag, flce_setting_methods(s, who, sizeof who), w->algos);
    }
    return 0;
}

/* FLCE's own flags: refused where no FLCE runs, the completion's where none runs (as
 * --mc-perms with exact Shapley), the prototype's samples and the missing entries; 0 or 2. */
static int check_flce_flags(const char *prog, run_flags *w, flce_run_cfg *c, char **names, int nm) {
    int has_flce = 0, completion = w->comp_rank || w->comp_mu || w->comp_solver || w->comp_kind || w->missing_s;
    for (int i = 0; i < nm; i++) has_flce |= !strcmp(names[i], "flce");
    if ((completion || w->proto_s || w->cw_path) && !has_flce)
        return cli_usage_error(prog, "--rank, --mu, --solver, --completion, --proto-samples, --missing, --class-weights: apply to FLCE only, and --algo '%s' does not run it",
                               w->algos);
    if (c->ablate.no_completion && completion)
        return cli_usage_error(prog, "--rank, --mu, --solver, --completion, --missing: settings of the completion, and --ablate CMC runs none");
    const char *proto_s = w->proto_s;
    if (w->as_released && !proto_s) proto_s = "first"; /* the released code's first correct sample (recorded whichever methods run) */
    if (proto_s && strcmp(proto_s, "correct") && strcmp(proto_s, "all") && strcmp(proto_s, "first"))
        return cli_usage_error(prog, "--proto-samples '%s': correct, all or first", proto_s);
    if (w->missing_s && strcmp(w->missing_s, "zero") && strcmp(w->missing_s, "unobserved"))
        return cli_usage_error(prog, "--missing '%s': zero or unobserved", w->missing_s);
    c->proto_all = c->completion.proto_all = proto_s && !strcmp(proto_s, "all");
    c->proto_first = c->completion.proto_first = proto_s && !strcmp(proto_s, "first");
    c->completion.missing_unobserved = w->missing_s && !strcmp(w->missing_s, "unobserved");
    if (w->ablate.n > 0 && !has_flce) return cli_usage_error(prog, "--ablate: applies to FLCE only, and --algo '%s' does not run it", w->algos);
    return 0;
}

void flce_run_job_method_cfg(flce_run_cfg *t, const char *algo) {
    t->algo = algo;
    if (strcmp(algo, "flce")) t->ablate = (flce_ablation){0}, t->ablate_cl = 0;
    int rs = flce_method_released_schedule(algo);
    if (t->schedule_released) t->schedule_sweep = rs == 1, t->schedule_window = rs == 2;
}

int flce_run_job_released_selection(const char *prog, const flce_run_cfg *c, const char *algo, const char *what) {
    int rs = c->schedule_released ? flce_method_released_schedule(algo) : 0;
    if (!rs) return 0;
    return cli_usage_error(prog, "--as-released: %s's released selection (--schedule %s) takes clients outside %s; "
                           "give --schedule random to select only its members", algo, rs == 1 ? "sweep" : "window", what);
}

int flce_run_job_parse(const char *prog, int argc, char **argv, flce_comm *comm, int say_fd, flce_run_job *J) {
    memset(J, 0, sizeof *J);
    run_flags *w = calloc(1, sizeof *w);
    if (!w) return fprintf(stderr, "%s: out of memory\n", prog), 2;
    w->denorm = "auto", w->backend = flce_backend_default(), w->rank_timeout = FLCE_RANK_TIMEOUT_DEFAULT;
    flce_run_cfg c;
    flce_run_cfg_default(&c);
    flag_table(w, &c);
    const char *pos[1];
    int np, rc = cli_parse(prog, w->usage, w->opts, argc, argv, pos, 0, &np);
    if (rc) rc = rc == 1 ? -1 : rc;
    else {
        c.has_train_seed = seen(w, "train-seed");
        c.test_loss = w->test_loss;
        rc = check_job(prog, w, &c, comm, say_fd, J);
    }
    if (!rc) rc = check_training(prog, w, &c);
    if (!rc) rc = check_partition(prog, w, &c);
    int nm = rc ? 0 : parse_methods(prog, w->algos, J->list, sizeof J->list, J->names);
    if (nm < 0) rc = 2;
    if (!rc) rc = check_method_settings(prog, w, &c, J->names, nm);
    if (!rc) rc = check_flce_flags(prog, w, &c, J->names, nm);
    if (!rc) rc = check_attacks(prog, w, &c, J->names, nm);
    for (int i = 0; !rc && c.nmembers && i < nm; i++) rc = flce_run_job_released_selection(prog, &c, J->names[i], "the coalition (--members)");
    if (!rc && c.per_round > c.clients) rc = cli_usage_error(prog, "--per-round %d exceeds --clients %d", c.per_round, c.clients);
    if (!rc && !w->iid && !(c.part.dirichlet > 0)) rc = cli_usage_error(prog, "--dirichlet %g: must be > 0", c.part.dirichlet);
    if (!rc && !flce_dataset_classes(c.dataset)) rc = cli_usage_error(prog, "--dataset '%s': unknown (%s)", c.dataset, flce_dataset_names());
    flce_err e = {{0}};
    if (!rc && w->cw_path) {
        int classes = flce_dataset_classes(c.dataset);
        if (flce_read_weights(w->cw_path, classes, &c.class_weights, &e)) rc = cli_usage_error(prog, "--class-weights: %s (%d classes)", e.msg, classes);
    }
    if (rc) {
        free(c.class_weights);
        free(w);
        return rc;
    }
    const char *device = w->device;
    if (device && !strcmp(device, "rank")) { /* mpirun: one device per process of a machine */
        const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
        snprintf(J->local, sizeof J->local, "%d", lr ? atoi(lr) : 0);
        device = J->local;
    }
    J->breq = (flce_backend_req){w->backend, device, w->dmode, NULL};
    c.backend = flce_backend_req_open, c.backend_ud = &J->breq;
    c.comm = comm;
    c.estimate = !w->quiet; /* the size line says what the run will take */
    J->c = c, J->nm = nm, J->out = w->out, J->quiet = w->quiet;
    free(w);
    return 0;
}

void flce_run_job_free(flce_run_job *J) {
    free(J->c.class_weights);
    J->c.class_weights = NULL;
    if (J->breq.be) J->breq.be->destroy(J->breq.be);
    J->breq.be = NULL;
}

