/* cmd_run.c: `flce run`: a federated experiment (or several methods one after another on
 * the same partition and seed), with a progress line on a terminal and a summary table. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend_select.h"
#include "comm.h"
#include "cli.h"
#include "trace_io.h"
#include "commands.h"
#include "engine.h"
#include "eval_dir.h"
#include "npy.h"
#include "run_job.h"

static const char *USAGE =
    "usage: flce run --algo METHOD[,...]|all [--ablate M|V|Q|CL|CMC]... [--dataset D] [--data DIR]\n"
    "                [--clients 50] [--per-round 10] [--rounds T] [--dirichlet 0.5 | --iid | --quantity-skew A]\n"
    "                [--label-noise R] [--feature-noise S] [--noisy-clients F] [--noisy-choice draw|last]\n"
    "                [--label-noise-map other|next] [--dirichlet-balance] [--epochs 1] [--batch 64] [--lr 0.01]\n"
    "                [--local-steps S] [--momentum M] [--weight-decay W] [--clip-norm G] [--schedule random|sweep]\n"
    "                [--as-released] [--class-weights FILE] [--train-subset N] [--test-subset N] [--val-size N]\n"
    "                [--backend auto|cpu|vulkan|reference] [--device D]\n"
    "                --seed S --out DIR [--resume] [--force] [--quiet]\n"
    "                [--rank auto|rule|R] [--mu auto|MU] [--solver als|gd] [--completion masked|literal]\n"
    "                [--proto-samples correct|all] [--missing zero|unobserved]\n"
    "                [--denormals auto|preserve|ftz] [--rank-timeout 1800]\n"
    "                [METHOD SETTINGS (below)]\n"
    "With several methods (comma-separated), each runs into DIR/<method> on the same partition and seed;\n"
    "`all`: every one of them. METHOD:\n";

typedef struct {
    const char *algo;
    const flce_run_cfg *cfg; /* the method's run */
    int tty, quiet;
    const flce_comm *comm; /* under mpirun */
    int lines;             /* off a terminal: progress lines printed for this method */
    double last;           /* ... the elapsed seconds at the last one */
} prog_ctx;

/* Under mpirun, rank 0's last words when the job is ended because another process died: the
 * line is made after every round (a signal handler may only write it). */
static char stop_line[300];
static volatile sig_atomic_t stop_len;

static void on_stop(int sig) {
    (void)sig;
    if (stop_len > 0 && write(2, stop_line, (size_t)stop_len) < 0) { /* nothing more to do */ }
    _exit(1);
}

static void progress(void *ud, const flce_round_metrics *m, int rounds, double elapsed) {
    prog_ctx *p = ud;
    if (elapsed < 0) { /* the start: the run's size (a bare run is hours on a CPU), once its settings are checked */
        const flce_run_cfg *t = p->cfg;
        if (p->quiet || !t || (p->comm && p->comm->rank != 0)) return;
        char data[64], local[64];
        if (t->train_subset) snprintf(data, sizeof data, "%d training images", t->train_subset);
        else snprintf(data, sizeof data, "the whole training set");
        if (t->local_steps) snprintf(local, sizeof local, "%d local steps", t->local_steps);
        else snprintf(local, sizeof local, "%d local epoch%s", t->epochs, t->epochs == 1 ? "" : "s");
        fprintf(stderr, "flce run: %s: %d clients, %d a round, %d rounds%s, %s, %s of batch %d (the time it takes: after its first round)\n",
                p->algo, t->clients, t->per_round, rounds, m->round ? " (continued)" : "", data, local, t->batch);
        fflush(stderr);
        return;
    }
    if (p->comm) {
        int n = snprintf(stop_line, sizeof stop_line, "%sflce run: %s: a process stopped during round %d (mpirun names it above); "
                         "rounds 1..%d are written: --resume continues\n", p->tty && !p->quiet ? "\n" : "", p->algo, m->round + 1,
                         m->round);
        stop_len = n > 0 && n < (int)sizeof stop_line ? n : 0;
    }
    if (p->quiet || (p->comm && p->comm->rank != 0)) return;
    double eta = elapsed / m->round * (rounds - m->round);
    if (!p->tty) { /* a log, nohup, CI: a line at the first round this process ran (the time the run will
                    * take, measured), then every 10 s or more, and at the last */
        if (p->lines && elapsed - p->last < 10 && m->round != rounds) return;
        fprintf(stderr, "flce run: %s round %d/%d  acc %.4f  elapsed %.0f s  %s %.0f s\n", p->algo, m->round, rounds, m->acc, elapsed,
                p->lines ? "ETA" : "the rest will take about", eta);
        fflush(stderr);
        p->lines++, p->last = elapsed;
        return;
    }
    fprintf(stderr, "\r%-7s round %d/%d  acc %.4f  F1 %.4f  KL %.4f  elapsed %.0fs  ETA %.0fs   ", p->algo, m->round, rounds,
            m->acc, m->macro_f1, m->kl, elapsed, eta);
    if (m->round == rounds) fputc('\n', stderr);
    fflush(stderr);
}


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

/* Every method of the list into OUT/<method> (OUT itself for one), then the summary table
 * and summary.csv; the exit status. */
static int run_methods(const char *prog, const flce_run_cfg *c, char **names, int nm, const char *out, int quiet) {
    flce_err e = {{0}};
    prog_ctx pc = {NULL, NULL, isatty(2), quiet, c->comm, 0, 0};
    flce_run_summary sums[16];
    int status = 0;
    char dirs[16][1100];
    if (nm > 1) { /* OUT/<method> inside another run's folder (see eng_check_dir); every rank ends alike */
        char p[1200];
        struct stat sb;
        snprintf(p, sizeof p, "%s/config.json", out);
        int64_t nested = (!c->comm || c->comm->rank == 0) && stat(p, &sb) == 0;
        if (c->comm && c->comm->sum_i64(c->comm, &nested, 1, &e)) {
            fprintf(stderr, "%s: %s\n", prog, e.msg);
            return 1;
        }
        if (nested) {
            if (!c->comm || c->comm->rank == 0)
                fprintf(stderr, "%s: --out %s is the folder of a run (config.json): the methods' runs would go into its sub-folders; use another folder\n",
                        prog, out);
            return 2;
        }
    }
    for (int i = 0; i < nm; i++) { /* every method's settings before the first runs (Ditto refuses momentum, say) */
        flce_run_cfg t = *c;
        t.algo = names[i];
        if (strcmp(t.algo, "flce")) t.ablate = (flce_ablation){0}, t.ablate_cl = 0;
        if (flce_run_check(&t, &e)) {
            if (!c->comm || c->comm->rank == 0) fprintf(stderr, "%s: %s\n", prog, e.msg);
            return 2;
        }
    }
    for (int i = 0; i < nm; i++) {
        flce_run_cfg t = *c;
        t.algo = names[i];
        if (strcmp(t.algo, "flce")) t.ablate = (flce_ablation){0}, t.ablate_cl = 0;
        if (nm > 1) snprintf(dirs[i], sizeof dirs[i], "%s/%s", out, names[i]);
        else snprintf(dirs[i], sizeof dirs[i], "%s", out);
        t.out = dirs[i];
        pc.algo = names[i], pc.cfg = &t, pc.lines = 0, pc.last = 0;
        if (t.resume && nm > 1) { /* continuing several methods: those not started yet start now (rank 0's folder says) */
            char p[1200];
            struct stat sb;
            snprintf(p, sizeof p, "%s/config.json", dirs[i]);
            int64_t fresh = (!c->comm || c->comm->rank == 0) && stat(p, &sb) != 0;
            if (c->comm && c->comm->sum_i64(c->comm, &fresh, 1, &e)) {
                fprintf(stderr, "%s: %s\n", prog, e.msg);
                return 1;
            }
            if (fresh) t.resume = 0;
        }
        flce_status st = flce_run(&t, progress, &pc, &sums[i], &e);
        if (!st && sums[i].already_finished && (!c->comm || c->comm->rank == 0))
            fprintf(stderr, "%s: %s: finished already (%d rounds): its files are left as they are\n", prog, dirs[i], sums[i].rounds_done);
        if (st) {
            if (pc.tty && !quiet) fputc('\n', stderr);
            fprintf(stderr, "%s: %s\n", prog, e.msg);
            return st == FLCE_ERR_ARG ? 2 : 1;
        }
    }
    /* under mpirun the one writer (rank 0) prints the table and writes summary.csv: every rank did,
     * racing for summary.csv.tmp (a rank's rename then failed: status 1 after all the work) */
    if (c->comm && c->comm->rank != 0) return status;
    printf("%-8s %8s %8s %9s %9s %10s %10s  %s\n", "method", "accuracy", "macro-F1", "KL", "KL(div)", "server s",
           "client s", "results");
    char summary[8192];
    size_t sl = (size_t)snprintf(summary, sizeof summary, "method,accuracy,macro_f1,kl,kl_diversity,server_seconds,client_seconds,dir\n");
    for (int i = 0; i < nm; i++) {
        printf("%-8s %8.4f %8.4f %9.5f %9.5f %10.2f %10.2f  %s\n", names[i], sums[i].final_acc, sums[i].final_f1, sums[i].kl,
               sums[i].kl_div, sums[i].server_s, sums[i].client_s, dirs[i]);
        flce_catf(summary, sizeof summary, &sl, "%s,%.6f,%.6f,%.6f,%.6f,%.4f,%.4f,%s\n", names[i], sums[i].final_acc,
                  sums[i].final_f1, sums[i].kl, sums[i].kl_div, sums[i].server_s, sums[i].client_s, dirs[i]);
    }
    printf("(accuracy and macro-F1: mean of the last min(10, T) rounds; KL: final contributions to data shares; "
           "device: %s)\n", nm ? sums[0].device : "");
    if (nm > 1) {
        char p[1200];
        snprintf(p, sizeof p, "%s/summary.csv", out);
        if (flce_write_file_atomic(p, summary, sl, &e)) fprintf(stderr, "%s: %s\n", prog, e.msg), status = 1;
        else printf("summary: %s\n", p);
    }
    return status;
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
        if (end == q || (*end && *end != ',') || v < 0 || v >= c->clients || c->nmembers == 64 || *q == '-' ||
            (c->nmembers && v <= c->members[c->nmembers - 1]))
            return cli_usage_error(prog, "--members '%s': clients 0..%d, ascending, each once, at most 64", members_s, c->clients - 1);
        c->members[c->nmembers++] = (int)v;
        if (!*end) break;
        q = end + 1;
    }
    int full = participation && !strcmp(participation, "full");
    if (full && per_round_given)
        return cli_usage_error(prog, "--participation full: every member every round, and --per-round says otherwise");
    if (full) c->per_round = c->nmembers;
    else if (c->per_round > c->nmembers) c->per_round = c->nmembers; /* min(K, |S|) */
    return 0;
}

int flce_run_job_parse(const char *prog, int argc, char **argv, flce_comm *comm, int say_fd, flce_run_job *J) {
    const char *algos = NULL, *out = NULL, *cw_path = NULL, *device = NULL, *comp_rank = NULL,
               *comp_mu = NULL, *comp_solver = NULL, *comp_kind = NULL,
               *denorm = "auto", *backend = "auto", *proto_s = NULL, *missing_s = NULL, *schedule = NULL, *noisy_choice = NULL, *label_map = NULL, *seeds_s = NULL, *members_s = NULL, *participation = NULL, *duplicate_s = NULL;
    cli_list ablate = {{0}, 0};
    int iid = 0, quiet = 0, as_released = 0;
    double rank_timeout = FLCE_RANK_TIMEOUT_DEFAULT;
    memset(J, 0, sizeof *J);
    flce_run_cfg c;
    flce_run_cfg_default(&c);
    int test_loss = 0;
    char dataset_help[200]; /* the names from the dataset table (data/dataset.c) */
    snprintf(dataset_help, sizeof dataset_help, "%s (default fmnist; flce data --help)", flce_dataset_names());
    cli_opt fixed[] = {
        {"algo", CLI_STR, &algos, "a method, a comma-separated list, or all", 0},
        {"ablate", CLI_LIST, &ablate, "FLCE ablation M, V, Q, CL or CMC (repeatable)", 0},
        {"dataset", CLI_STR, &c.dataset, dataset_help, 0},
        {"data", CLI_STR, &c.data_dir, "dataset folder", 0},
        {"clients", CLI_INT, &c.clients, "clients n (default 50)", 0},
        {"per-round", CLI_INT, &c.per_round, "clients selected per round K (default 10)", 0},
        {"rounds", CLI_INT, &c.rounds, "rounds T (default 100)", 0},
        {"dirichlet", CLI_DOUBLE, &c.part.dirichlet, "Dirichlet label skew delta (default 0.5)", 0},
        {"iid", CLI_FLAG, &iid, "IID partition", 0},
        {"quantity-skew", CLI_DOUBLE, &c.part.quantity_skew, "quantity skew A: labels IID, client sizes from a Dirichlet(A) draw", 0},
        {"min-samples", CLI_INT, &c.part.min_samples, "minimum samples per client (default 10)", 0},
        {"label-noise", CLI_DOUBLE, &c.part.label_noise, "label flip rate of noisy clients", 0},
        {"feature-noise", CLI_DOUBLE, &c.part.feature_noise, "feature noise std of noisy clients", 0},
        {"noisy-clients", CLI_DOUBLE, &c.part.noisy_frac, "fraction of noisy clients (default 1)", 0},
        {"noisy-choice", CLI_STR, &noisy_choice, "which clients are noisy: draw (seeded, default) or last (the released code: the last ones)", 0},
        {"label-noise-map", CLI_STR, &label_map, "a flipped label becomes: other (a uniformly drawn other class, default) or next ((y + 1) mod C, the released code)", 0},
        {"duplicate", CLI_STR, &duplicate_s, "A:B: client B holds a copy of client A's data (labels and noise too; B's own samples are left out)", 0},
        {"dirichlet-balance", CLI_FLAG, &c.part.balance, "Dirichlet: a client holding N/n samples gets no share of later classes (the released code's balancing step)", 0},
        {"epochs", CLI_INT, &c.epochs, "local epochs E (default 1)", 0},
        {"batch", CLI_INT, &c.batch, "local batch (default 64)", 0},
        {"lr", CLI_DOUBLE, &c.lr, "learning rate (default 0.01)", 0},
        {"local-steps", CLI_INT, &c.local_steps, "S local steps of a batch each instead of epochs, the data reshuffled where they run out (the released code: 50)", 0},
        {"momentum", CLI_DOUBLE, &c.momentum, "SGD momentum, restarted each round (default 0; the released code: 0.9)", 0},
        {"weight-decay", CLI_DOUBLE, &c.weight_decay, "SGD weight decay, coupled (default 0; the released code: 1e-5)", 0},
        {"clip-norm", CLI_DOUBLE, &c.clip_norm, "the gradients' total L2 norm clipped to it (default 0: none; the released code: 100)", 0},
        {"schedule", CLI_STR, &schedule, "selection: random (default) or sweep (the released code: the first n/K rounds take clients 0..K-1, K..2K-1, ...)", 0},
        {"as-released", CLI_FLAG, &as_released, "every departure of the authors' released code that this harness has as a setting (docs/flce.md, \"The released code\"); a flag given beside it wins", 0},
        {"proto-samples", CLI_STR, &proto_s, "FLCE: a prototype averages the samples classified right (correct, the paper's text; default) or all of its class (all, its equation), or is the first sample classified right (first, the released code)", 0},
        {"missing", CLI_STR, &missing_s, "FLCE completion: a selected client's missing prototype is an observed zero (zero, default) or unobserved (filled by the completion)", 0},
        {"class-weights", CLI_STR, &cw_path, "FLCE: b_c per class (.npy float64 [C] or a text list)", 0},
        {"train-subset", CLI_INT, &c.train_subset, "seeded stratified training subset", 0},
        {"test-subset", CLI_INT, &c.test_subset, "seeded stratified test subset", 0},
        {"val-size", CLI_INT, &c.val_size, "server validation set (default min(1000, 10% of training))", 0},
        {"denormals", CLI_STR, &denorm, "float contract mode: auto (what the device does), preserve or ftz", 0},
        {"rank", CLI_STR, &comp_rank, "FLCE completion rank: auto (default: held-out choice), rule (min(4, obs / (2 (T + n)))) or R", 0},
        {"mu", CLI_STR, &comp_mu, "FLCE completion ridge weight: auto (default: held-out choice) or MU", 0},
        {"solver", CLI_STR, &comp_solver, "FLCE completion solver: als (default) or gd", 0},
        {"completion", CLI_STR, &comp_kind, "masked (default: observed entries only) or literal (the paper's equation as written)", 0},
        {"backend", CLI_STR, &backend, "auto (default: vulkan on a GPU, else cpu), cpu, vulkan or reference", 0},
        {"device", CLI_STR, &device, "Vulkan device: index or part of its name, or `rank`: the process's rank on its machine under mpirun (default: FLCE_VK_DEVICE, else the best)", 0},
        {"seed", CLI_U64, &c.seed, "the seed that fixes everything", 0},
        {"train-seed", CLI_U64, &c.train_seed, "the training's own seed (initial model, selection, batch order, Monte-Carlo draws; default: --seed): the data and partition stay --seed's", 0},
        {"test-loss", CLI_FLAG, &test_loss, "each round also the global model's test loss (metrics.csv's test_loss column; flce truth's utilities)", 0},
        {"members", CLI_STR, &members_s, "train this coalition alone: clients A,B,... (ascending); only they are selected, --per-round of them a round (at most their number) by the run's seeded stream", 0},
        {"participation", CLI_STR, &participation, "with --members: k (default: --per-round of them a round) or full (every member every round)", 0},
        {"seeds", CLI_STR, &seeds_s, "several seeds, A-B or A,B,...: each into OUT/sSEED, one job (--resume continues it, the seeds not started yet start)", 0},
        {"out", CLI_STR, &out, "run directory", 0},
        {"resume", CLI_FLAG, &c.resume, "continue the run in --out", 0},
        {"force", CLI_FLAG, &c.force, "overwrite the run in --out", 0},
        {"quiet", CLI_FLAG, &quiet, "no size line and no progress lines (stderr: on a terminal one line per round; elsewhere every 10 s or more)", 0},
        {"rank-timeout", CLI_DOUBLE, &rank_timeout, "under mpirun: seconds a rank waits for the others in one exchange before it names the ranks that do not answer and ends the job (default 1800; 0: forever)", 0},
        {0},
    };
    /* the methods' own settings, from their tables (fl/methods/): one option each */
    enum { NFIXED = sizeof fixed / sizeof fixed[0] - 1 };
    cli_opt opts[NFIXED + FLCE_MAX_SETTINGS + 1];
    const char *setw[FLCE_MAX_SETTINGS] = {0}; /* a word */
    double setx[FLCE_MAX_SETTINGS] = {0};      /* a number */
    char set_help[FLCE_MAX_SETTINGS][200];
    int nset = flce_setting_count();
    memcpy(opts, fixed, sizeof(cli_opt) * NFIXED);
    for (int i = 0; i < nset; i++) {
        const flce_setting *s = flce_setting_at(i);
        char d[64];
        flce_setting_text(s, NAN, d, sizeof d);
        if (s->choices) snprintf(set_help[i], sizeof set_help[i], "%s: %s (default %s)", s->help, s->choices, d);
        else snprintf(set_help[i], sizeof set_help[i], "%s (default %s)", s->help, d);
        opts[NFIXED + i] = s->choices ? (cli_opt){s->flag, CLI_STR, &setw[i], set_help[i], 0} : (cli_opt){s->flag, CLI_DOUBLE, &setx[i], set_help[i], 0};
    }
    memset(&opts[NFIXED + nset], 0, sizeof opts[0]);
    const char *pos[1];
    char usage[8192]; /* the methods and their settings from the registry */
    size_t ul = 0;
    flce_catf(usage, sizeof usage, &ul, "%s%s\nMETHOD SETTINGS (each applies to the methods named):\n", USAGE, flce_method_help());
    for (int i = 0; i < nset; i++) {
        const flce_setting *s = flce_setting_at(i);
        char d[64], who[200];
        flce_catf(usage, sizeof usage, &ul, "  --%-13s %-10s %s\n", s->flag, flce_setting_text(s, NAN, d, sizeof d),
                  flce_setting_methods(s, who, sizeof who));
    }
    if (ul && usage[ul - 1] == '\n') usage[ul - 1] = '\0'; /* cli_parse ends the text itself */
    int np, rc = cli_parse(prog, usage, opts, argc, argv, pos, 0, &np);
    if (rc) return rc == 1 ? -1 : rc;
    c.has_train_seed = cli_find(opts, "train-seed")->seen;
    c.test_loss = test_loss;
    if (device && !flce_backend_have_vulkan()) return cli_usage_error(prog, "--device: this build has no Vulkan backend");
    if (device && !flce_backend_list_takes_device(backend)) return cli_usage_error(prog, "--device %s: names a Vulkan device, and --backend %s opens none", device, backend);
    if (!algos) return cli_usage_error(prog, "--algo is required (%s, or all)", flce_method_names());
    if (!strcmp(algos, "all")) { /* the registry's order */
        size_t n = 0;
        for (int i = 0; i < flce_method_count(); i++) flce_catf(J->every, sizeof J->every, &n, "%s%s", i ? "," : "", flce_method_name(i));
        algos = J->every;
    }
    if (!out) return cli_usage_error(prog, "--out DIR is required");
    uint64_t *seedv = J->seedv;
    int ns = 0;
    if (seeds_s && cli_find(opts, "seed")->seen) return cli_usage_error(prog, "--seed and --seeds exclude each other");
    if (seeds_s && (ns = parse_seeds(prog, seeds_s, seedv)) < 0) return 2;
    if (!cli_find(opts, "seed")->seen && !ns) return cli_usage_error(prog, "--seed is required (one seed fixes everything; several: --seeds 1-3)");
    if (iid && cli_find(opts, "dirichlet")->seen) return cli_usage_error(prog, "--iid and --dirichlet exclude each other");
    if (cli_find(opts, "quantity-skew")->seen) {
        if (iid || cli_find(opts, "dirichlet")->seen)
            return cli_usage_error(prog, "--quantity-skew excludes --iid and --dirichlet (its labels are IID)");
        if (!(c.part.quantity_skew > 0 && c.part.quantity_skew < 1e6))
            return cli_usage_error(prog, "--quantity-skew %g: must be a number > 0", c.part.quantity_skew);
    }
    if (cli_find(opts, "noisy-clients")->seen && !cli_find(opts, "label-noise")->seen && !cli_find(opts, "feature-noise")->seen)
        return cli_usage_error(prog, "--noisy-clients %g: says which clients get --label-noise or --feature-noise, and neither is given", c.part.noisy_frac);
    if (c.resume && c.force) return cli_usage_error(prog, "--resume and --force exclude each other");
    if (!(rank_timeout >= 0 && rank_timeout <= 1e7)) return cli_usage_error(prog, "--rank-timeout %g: seconds, 0 to 1e7", rank_timeout);
    if (cli_find(opts, "rank-timeout")->seen && !(comm && comm->size > 1)) /* it would do nothing */
        return cli_usage_error(prog, "--rank-timeout: applies to a job of several processes under mpirun, and this is one process");
#ifdef FLCE_HAVE_MPI
    if (comm) flce_comm_set_wait(comm, rank_timeout, say_fd);
#else
    (void)say_fd;
#endif
    c.part.iid = iid;
    flce_denorm_mode dmode;
    if (!flce_denorm_parse(denorm, &dmode)) return cli_usage_error(prog, "--denormals '%s': auto, preserve or ftz", denorm);
    c.denormals = denorm;
    {
        flce_err ce;
        if (flce_completion_parse(comp_rank, comp_mu, comp_solver, comp_kind, &c.completion, &ce))
            return cli_usage_error(prog, "%s", ce.msg);
    }
    if (settings_from_flags(prog, opts, &c, &ablate)) return 2;
    if (schedule && strcmp(schedule, "random") && strcmp(schedule, "sweep"))
        return cli_usage_error(prog, "--schedule '%s': random or sweep", schedule);
    if (as_released) { /* the released code's values where no flag says otherwise (docs/flce.md) */
        if (!cli_find(opts, "local-steps")->seen && !cli_find(opts, "epochs")->seen) c.local_steps = 50;
        if (!cli_find(opts, "momentum")->seen) c.momentum = 0.9;
        if (!cli_find(opts, "weight-decay")->seen) c.weight_decay = 1e-5;
        if (!cli_find(opts, "clip-norm")->seen) c.clip_norm = 100;
        if (!schedule) schedule = "sweep";
        if (!comp_rank && !comp_mu && !comp_solver && !comp_kind && !missing_s) c.ablate.no_completion = 1; /* no completion */
    }
    c.schedule_sweep = schedule && !strcmp(schedule, "sweep");
    if (duplicate_s && flce_parse_duplicate(duplicate_s, &c.part)) return cli_usage_error(prog, "--duplicate '%s': A:B, two clients", duplicate_s);
    if (participation && !members_s) return cli_usage_error(prog, "--participation: applies to a coalition (--members), and none is given");
    if (participation && strcmp(participation, "k") && strcmp(participation, "full"))
        return cli_usage_error(prog, "--participation '%s': k or full", participation);
    if (members_s && parse_members(prog, members_s, participation, cli_find(opts, "per-round")->seen, &c)) return 2;
    if (noisy_choice && strcmp(noisy_choice, "draw") && strcmp(noisy_choice, "last"))
        return cli_usage_error(prog, "--noisy-choice '%s': draw or last", noisy_choice);
    if (label_map && strcmp(label_map, "other") && strcmp(label_map, "next"))
        return cli_usage_error(prog, "--label-noise-map '%s': other or next", label_map);
    int noise = c.part.label_noise > 0 || c.part.feature_noise > 0;
    if (noisy_choice && !noise) return cli_usage_error(prog, "--noisy-choice: says which clients are noisy, and no --label-noise or --feature-noise is given");
    if (label_map && !(c.part.label_noise > 0)) return cli_usage_error(prog, "--label-noise-map: says where a flipped label goes, and no --label-noise is given");
    if (as_released && !noisy_choice && noise) noisy_choice = "last";
    if (as_released && !label_map && c.part.label_noise > 0) label_map = "next";
    if (as_released && !iid && !cli_find(opts, "quantity-skew")->seen) c.part.balance = 1;
    c.part.noisy_last = noisy_choice && !strcmp(noisy_choice, "last");
    c.part.label_next = label_map && !strcmp(label_map, "next");
    if (c.part.balance && (iid || cli_find(opts, "quantity-skew")->seen))
        return cli_usage_error(prog, "--dirichlet-balance: a step of the Dirichlet partition, and --%s draws none", iid ? "iid" : "quantity-skew");
    char **names = J->names;
    int nm = parse_methods(prog, algos, J->list, sizeof J->list, names);
    if (nm < 0) return 2;
    for (int i = 0; i < nset; i++) { /* a method setting given: its value checked, and a method run that has it */
        const flce_setting *s = flce_setting_at(i);
        if (!opts[NFIXED + i].seen && as_released) { /* the released code's word, for the methods run that have the setting */
            static const char *const rel[][2] = {{"velocity", "distance"}, {"absent-class", "forget"}, {"cl-scale", "tau"}, {"aggregation", "mean"}};
            int used = 0;
            for (int j = 0; j < nm; j++) used |= flce_method_has_setting(names[j], s);
            for (size_t j = 0; used && j < sizeof rel / sizeof rel[0]; j++) {
                flce_err se;
                if (!strcmp(s->flag, rel[j][0]) && flce_run_cfg_set(&c, s, rel[j][1], &se)) return cli_usage_error(prog, "%s", se.msg);
            }
            continue;
        }
        if (!opts[NFIXED + i].seen) continue;
        flce_err se;
        if (s->choices ? flce_run_cfg_set(&c, s, setw[i], &se) : flce_run_cfg_set_value(&c, s, setx[i], &se))
            return cli_usage_error(prog, "%s", se.msg);
        int used = 0;
        for (int j = 0; j < nm; j++) used |= flce_method_has_setting(names[j], s);
        char who[200];
        if (!used)
            return cli_usage_error(prog, "--%s: a setting of %s, and --algo '%s' does not run it", s->flag,
                                   flce_setting_methods(s, who, sizeof who), algos);
    }
    int has_flce = 0;
    for (int i = 0; i < nm; i++) has_flce |= !strcmp(names[i], "flce");
    if ((comp_rank || comp_mu || comp_solver || comp_kind || proto_s || missing_s || cw_path) && !has_flce)
        return cli_usage_error(prog, "--rank, --mu, --solver, --completion, --proto-samples, --missing, --class-weights: apply to FLCE only, and --algo '%s' does not run it",
                               algos);
    if (c.ablate.no_completion && (comp_rank || comp_mu || comp_solver || comp_kind || missing_s)) /* as --mc-perms with exact Shapley */
        return cli_usage_error(prog, "--rank, --mu, --solver, --completion, --missing: settings of the completion, and --ablate CMC runs none");
    if (as_released && !proto_s && has_flce) proto_s = "first"; /* the released code's first correct sample */
    if (proto_s && strcmp(proto_s, "correct") && strcmp(proto_s, "all") && strcmp(proto_s, "first"))
        return cli_usage_error(prog, "--proto-samples '%s': correct, all or first", proto_s);
    if (missing_s && strcmp(missing_s, "zero") && strcmp(missing_s, "unobserved"))
        return cli_usage_error(prog, "--missing '%s': zero or unobserved", missing_s);
    c.proto_all = c.completion.proto_all = proto_s && !strcmp(proto_s, "all");
    c.proto_first = c.completion.proto_first = proto_s && !strcmp(proto_s, "first");
    c.completion.missing_unobserved = missing_s && !strcmp(missing_s, "unobserved");
    if ((ablate.n > 0) && !has_flce)
        return cli_usage_error(prog, "--ablate: applies to FLCE only, and --algo '%s' does not run it", algos);
    if (c.per_round > c.clients) return cli_usage_error(prog, "--per-round %d exceeds --clients %d", c.per_round, c.clients);
    if (!iid && !(c.part.dirichlet > 0)) return cli_usage_error(prog, "--dirichlet %g: must be > 0", c.part.dirichlet);
    if (!flce_dataset_classes(c.dataset)) return cli_usage_error(prog, "--dataset '%s': unknown (%s)", c.dataset, flce_dataset_names());
    flce_err e = {{0}};
    if (cw_path) {
        int classes = flce_dataset_classes(c.dataset);
        if (flce_read_weights(cw_path, classes, &c.class_weights, &e))
            return cli_usage_error(prog, "--class-weights: %s (%d classes)", e.msg, classes);
    }
    if (!flce_backend_known(backend)) {
        free(c.class_weights);
        return cli_usage_error(prog, "--backend '%s': unknown or not built (%s)", backend, flce_backend_names());
    }
    if (device && !strcmp(device, "rank")) { /* mpirun: one device per process of a machine */
        const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
        snprintf(J->local, sizeof J->local, "%d", lr ? atoi(lr) : 0);
        device = J->local;
    }
    J->breq = (flce_backend_req){backend, device, dmode, NULL};
    c.backend = flce_backend_req_open, c.backend_ud = &J->breq;
    c.comm = comm;
    J->c = c, J->nm = nm, J->out = out, J->quiet = quiet, J->ns = ns;
    return 0;
}

void flce_run_job_free(flce_run_job *J) {
    free(J->c.class_weights);
    J->c.class_weights = NULL;
    if (J->breq.be) J->breq.be->destroy(J->breq.be);
    J->breq.be = NULL;
}

/* `flce run`: the job parsed, its methods (and seeds) run; the exit status. */
static int cmd_run(int argc, char **argv, flce_comm *comm, int say_fd) {
    const char *prog = "flce run";
    flce_run_job J0, *J = &J0;
    int rc = flce_run_job_parse(prog, argc, argv, comm, say_fd, J);
    if (rc) {
        flce_run_job_free(J);
        return rc < 0 ? 0 : rc;
    }
    flce_run_cfg c = J->c;
    const char *out = J->out;
    char **names = J->names;
    int nm = J->nm, ns = J->ns, quiet = J->quiet;
    const uint64_t *seedv = J->seedv;
    struct stat sb;
    int made = 0; /* OUT made here: removed again if the runs fail before writing into it */
    if (nm > 1 && (!comm || comm->rank == 0)) {
        made = stat(out, &sb) != 0;
        if (flce_mkdirs(out) != 0) {
            flce_run_job_free(J);
            return cli_usage_error(prog, "--out %s: cannot create", out);
        }
    }
    int status = 0;
    if (!ns) status = run_methods(prog, &c, names, nm, out, quiet);
    for (int i = 0; i < ns && !status; i++) { /* one folder a seed; --resume starts the seeds not begun */
        char so[1100];
        snprintf(so, sizeof so, "%s/s%llu", out, (unsigned long long)seedv[i]);
        flce_run_cfg cs = c;
        cs.seed = seedv[i];
        int64_t fresh = (!comm || comm->rank == 0) && stat(so, &sb) != 0;
        flce_err se = {{0}};
        if (comm && comm->sum_i64(comm, &fresh, 1, &se)) {
            fprintf(stderr, "%s: %s\n", prog, se.msg);
            status = 1;
            break;
        }
        if (fresh) cs.resume = 0;
        if (nm > 1 && (!comm || comm->rank == 0) && flce_mkdirs(so) != 0) {
            fprintf(stderr, "%s: %s: cannot create: %s\n", prog, so, strerror(errno));
            status = 1;
            break;
        }
        if (!quiet && (!comm || comm->rank == 0)) fprintf(stderr, "%s: seed %llu (%d of %d) into %s\n", prog, (unsigned long long)seedv[i], i + 1, ns, so);
        status = run_methods(prog, &cs, names, nm, so, quiet);
    }
    if (status && made) rmdir(out); /* only where empty: an unusable backend, say, left nothing in it */
    flce_run_job_free(J);
    return status;
}


int flce_cmd_run(int argc, char **argv) {
#ifdef FLCE_HAVE_MPI
    int failed;
    flce_comm *comm = flce_comm_open(&failed);
    if (failed) return 1;
    int say_fd = 2;
    if (comm && comm->rank > 0) { /* rank 0 speaks for the run: errors of other ranks reach it */
        say_fd = dup(2); /* ... except the line of a rank that finds another lost (--rank-timeout) */
        if (say_fd < 0) say_fd = 2;
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) { /* keep going: only the noise differs */ }
    }
    if (comm && comm->rank == 0 && comm->size > 1) { /* mpirun ends the job with SIGTERM when a process dies */
        int n = snprintf(stop_line, sizeof stop_line, "flce run: a process stopped before the first round ended (mpirun names it above)\n");
        stop_len = n;
        signal(SIGTERM, on_stop);
    }
    int rc = cmd_run(argc, argv, comm, say_fd);
    /* done (or failed and said so): when mpirun now ends the others, nothing more to say, and
     * rank 0 keeps its own exit status */
    stop_len = 0;
    if (comm && comm->rank == 0 && comm->size > 1) signal(SIGTERM, SIG_IGN);
    flce_comm_close(comm);
    return rc;
#else
    return cmd_run(argc, argv, NULL, 2);
#endif
}
