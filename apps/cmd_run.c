/* cmd_run.c: `flce run`: a federated experiment (or several methods one after another on
 * the same partition and seed; several seeds), with progress lines and a summary table; its
 * command line is parsed by run_job.c. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attacks.h"
#include "backend_select.h"
#include "comm.h"
#include "cli.h"
#include "trace_io.h"
#include "commands.h"
#include "engine.h"
#include "eval_dir.h"
#include "npy.h"
#include "run_job.h"


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
        char when[160] = "the time it takes: after its first round";
        if (isfinite(m->client_s)) {
            double s = m->client_s;
            char span[48];
            if (s < 90) snprintf(span, sizeof span, "%.0f s", s);
            else if (s < 5400) snprintf(span, sizeof span, "%.0f min", s / 60);
            else snprintf(span, sizeof span, "%.1f h", s / 3600);
            snprintf(when, sizeof when, "about %s on this machine%s: a training step measured, %.3f s", span,
                     m->fallback ? " without its Shapley evaluations" : "", m->server_s);
        }
        fprintf(stderr, "flce run: %s: %d clients, %d a round, %d rounds%s, %s, %s of batch %d (%s)\n", p->algo, t->clients, t->per_round,
                rounds, m->round ? " (continued)" : "", data, local, t->batch, when);
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
        flce_run_job_method_cfg(&t, names[i]);
        if (flce_run_check(&t, &e)) {
            if (!c->comm || c->comm->rank == 0) fprintf(stderr, "%s: %s\n", prog, e.msg);
            return 2;
        }
    }
    for (int i = 0; i < nm; i++) {
        flce_run_cfg t = *c;
        flce_run_job_method_cfg(&t, names[i]);
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
    if (c->nattacks) { /* an attacked run says so where its numbers are read (docs/attacks.md) */
        printf("(an attacked run, docs/attacks.md:");
        for (int i = 0; i < c->nattacks; i++) {
            char w[96];
            flce_attack_words(&c->attacks[i], w, sizeof w);
            printf(" %s", w);
        }
        printf(")\n");
    }
    if (nm > 1) {
        char p[1200];
        snprintf(p, sizeof p, "%s/summary.csv", out);
        if (flce_write_file_atomic(p, summary, sl, &e)) fprintf(stderr, "%s: %s\n", prog, e.msg), status = 1;
        else printf("summary: %s\n", p);
    }
    return status;
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
        say_fd = dup(2); /* ... except the line of a rank that finds another lost (--mpi-timeout) */
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
