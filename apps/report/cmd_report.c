/* cmd_report.c: `flce report RUN_DIR... --out DIR`: a self-contained reproducibility report
 * (report.md and report.html, figures as PNG and SVG made by gnuplot, the data behind each
 * figure as CSV beside it). Every number comes from the run files: config.json,
 * device.txt, metrics.csv, contributions.csv, round_contributions.csv, clients.csv,
 * digests.txt, trace/X_completed.npy. Sections appear for what the runs contain: the
 * distance to exact Shapley needs a FedSV run on the same partition; class contributions an
 * FLCE run; the heterogeneity sweep runs of one method at several Dirichlet parameters; the
 * noise section runs with noise. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "flce_eq.h"
#include "npy.h"
#include "engine.h" /* flce_algo_known */
#include "report.h"
#include "data.h"
#include "run_reader.h"

#define MAXTRUTHS 64 /* truth folders one report takes (the ground-truth study: 24; its arm k at ten seeds: 40) */

/* The run folders named on the command line, folders of runs (with summary.csv) expanded,
 * into dirs; how many, or -1 after a usage error was printed. */
static int collect_dirs(const char *prog, const char **pos, int np, char (*dirs)[1024]) {
    int nd = 0;
    for (int i = 0; i < np; i++) {
        char p[1200];
        struct stat sb;
        snprintf(p, sizeof p, "%s/config.json", pos[i]);
        if (stat(p, &sb) == 0) {
            /* a run's folder that also holds other runs (summary.csv, or a sub-folder with a run):
             * one of them was reported and the others left out, silently */
            char sub[300];
            int mixed = flce_holds_runs(pos[i], sub, sizeof sub);
            if (mixed)
                return cli_usage_error(prog, "%s: a run's folder that also holds other runs (%s): report them from separate folders",
                                       pos[i], sub), -1;
            if (nd == MAXRUNS) return cli_usage_error(prog, "more than %d runs: report them in parts", MAXRUNS), -1;
            snprintf(dirs[nd++], sizeof dirs[0], "%s", pos[i]);
            continue;
        }
        snprintf(p, sizeof p, "%s/summary.csv", pos[i]);
        FILE *f = flce_fopen_input(p);
        if (!f && flce_input_why[0]) return cli_usage_error(prog, "%s: %s", p, flce_input_why), -1;
        if (!f) {
            /* a run of several methods still running (or killed) has its method folders but no
             * summary.csv yet: say so, not "not a run directory" */
            char names[300] = "";
            size_t nn = 0;
            int runs_in = 0; /* sub-folders that are runs of their own: a folder of runs */
            DIR *dp = opendir(pos[i]);
            for (struct dirent *de; dp && (de = readdir(dp));) {
                if (de->d_name[0] == '.') continue;
                snprintf(p, sizeof p, "%s/%s/config.json", pos[i], de->d_name);
                int cfg = stat(p, &sb) == 0;
                snprintf(p, sizeof p, "%s/%s/summary.csv", pos[i], de->d_name);
                runs_in += stat(p, &sb) == 0 || (cfg && !flce_algo_known(de->d_name));
                if (cfg && flce_algo_known(de->d_name) && nn + strlen(de->d_name) + 3 < sizeof names)
                    nn += (size_t)snprintf(names + nn, sizeof names - nn, "%s%s", nn ? ", " : "", de->d_name);
            }
            if (dp) closedir(dp);
            if (nn && !runs_in)
                return cli_usage_error(prog, "%s: a run of several methods that has not finished (no summary.csv yet; method folders: %s)",
                                       pos[i], names), -1;
            if (runs_in)
                return cli_usage_error(prog, "%s: a folder of runs, not a run: name the runs in it (%s/*)", pos[i], pos[i]), -1;
            if (stat(pos[i], &sb) != 0) return cli_usage_error(prog, "%s: no such folder", pos[i]), -1;
            return cli_usage_error(prog, "%s: not a run directory (no config.json or summary.csv)", pos[i]), -1;
        }
        char line[1400];
        if (!fgets(line, sizeof line, f)) line[0] = '\0';
        while (fgets(line, sizeof line, f)) {
            if (nd == MAXRUNS) {
                fclose(f);
                return cli_usage_error(prog, "more than %d runs: report them in parts", MAXRUNS), -1;
            }
            char *d = strrchr(line, ',');
            if (!d) continue;
            d[strcspn(d, "\r\n")] = '\0';
            /* the method's folder inside this one: the path recorded was the run's --out as
             * written then (another working folder, or the original of a copy or a move) */
            const char *base = strrchr(d + 1, '/');
            base = base ? base + 1 : d + 1;
            if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
                fclose(f);
                return cli_usage_error(prog, "%s: a line names no method folder ('%s')", p, d + 1), -1;
            }
            snprintf(dirs[nd++], sizeof dirs[0], "%s/%s", pos[i], base);
        }
        fclose(f);
    }
    return nd;
}

/* 1 when dir is empty or holds an earlier report (its report.md begins with the title this
 * program writes): a report replaces its own files, never someone else's (report.md, notes). */
static int empty_or_report(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *en; d && (en = readdir(d));) /* a killed report's staging folder is ours */
        n += strcmp(en->d_name, ".") && strcmp(en->d_name, "..") && !report_out_is_stage(en->d_name);
    if (d) closedir(d);
    if (!d || !n) return 1; /* unreadable: mkdirs and the writes say why */
    char p[1200], line[64] = "";
    snprintf(p, sizeof p, "%s/report.md", dir);
    FILE *f = fopen(p, "r");
    if (!f) return 0;
    if (!fgets(line, sizeof line, f)) line[0] = '\0';
    fclose(f);
    return !strncmp(line, "# FLCE-harness report", 21);
}

/* ---- the pages: the sections in order, a table of contents, the page around them ---- */

static void sec_what_was_run(report *R) { report_what_was_run(R); }
static void sec_verdicts(report *R) { R->figs_ok &= report_verdicts(R); }
static void sec_configurations(report *R) { R->figs_ok &= report_configurations(R); report_progress(R, "claims and configurations"); }
static void sec_completion(report *R) { report_completion(R); report_progress(R, "completion sensitivity"); }
static void sec_reference(report *R) { report_reference(R); }
static void sec_truth(report *R) { report_truth(R); }
static void sec_readings(report *R) { report_readings(R); }
static void sec_released(report *R) { report_released(R); }
static void sec_attacks(report *R) {
    if (!report_attacks(R)) report_over(R, "strategic clients: out of memory");
}
static void sec_horizon(report *R) { report_horizon(R); }
static void sec_apart(report *R) { report_configurations_apart(R); }
/* the clients: first where no configuration has two seeds (the claims then follow, folded);
 * otherwise after the configurations, for those with one seed */
static void sec_clients_first(report *R) {
    if (R->one_seed) R->figs_ok &= report_clients(R);
}
static void sec_clients_after(report *R) {
    if (!R->one_seed) R->figs_ok &= report_clients(R);
}

/* A section writes its own headings (## for the contents, ### below) into R->md and R->ht, or
 * nothing where the runs hold nothing for it. Adding a section: a function and a line here
 * (docs/adding-a-report-section.md). Page 0: report.md/.html, what a reader came for; page 1:
 * runs.md/.html, every run's detail. */
typedef struct {
    void (*write)(report *R);
    int page;
} report_section;

static const report_section SECTIONS[] = {
    {sec_what_was_run, 0},
    {report_glance, 0},   /* accuracy and macro-F1 on the first screen (issue 81) */
    {sec_truth, 0},       /* the yardstick first, where truths are given (issue 81) */
    {sec_clients_first, 0},
    {sec_verdicts, 0},
    {sec_readings, 0},
    {sec_released, 0},
    {sec_attacks, 0},
    {sec_horizon, 0},
    {sec_configurations, 0},
    {sec_clients_after, 0},
    {report_heterogeneity, 0},
    {report_server_figure, 0},
    {sec_completion, 0},
    {sec_reference, 0},
    {report_summary_table, 1},
    {report_ablation, 1},
    {report_shapley, 1},
    {report_noise, 1},
    {report_class_contributions, 1},
    {sec_apart, 1},
    {report_runs, 1},
};

static const char *PAGE_CSS =
    "<style>body{font-family:sans-serif;max-width:1120px;margin:1em auto;line-height:1.35}table{border-collapse:collapse;margin:0.5em 0}"
    "td,th{border:1px solid #ccc;padding:2px 7px;text-align:right}th{background:#eee}td:first-child{text-align:left}"
    "table.small{font-size:80%}table.small td{text-align:left;padding:1px 6px}code{font-size:90%}nav{font-size:88%;margin:0.4em 0 0.8em}nav a{margin-right:0.9em}"
    "h1{margin:0.2em 0}h2{margin:1.2em 0 0.4em;border-bottom:1px solid #ddd}figure{margin:0.6em 0}figcaption{font-size:85%;color:#444}"
    "img{max-width:100%;height:auto}table.claims{font-size:82%}table.claims td{text-align:left;padding:1px 5px}"
    "table.claims tr.first td{border-top:2px solid #888}table.claims{table-layout:fixed;width:100%}table.claims th{text-align:left}"
    "table.claims th:nth-child(1){width:19%}table.claims th:nth-child(2){width:24%}table.claims th:nth-child(3){width:11%}"
    "table.claims th:nth-child(4){width:34%}table.claims th:nth-child(5){width:12%}td.holds{background:#dff0d8}td.fails{background:#f2dede}"
    "td.open{background:#eee}table.glance{font-size:90%}div.pair{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}div.pair figure{width:330px;margin:0.5em 0}table.means{font-size:80%}table.means td{padding:1px 5px}ul.small{font-size:85%}details{margin:0.3em 0}summary{cursor:pointer}</style>";

/* The id of the n-th <h2> of a page, and its Markdown slug (GitHub's: lower case, spaces to -,
 * punctuation dropped). */
static void md_slug(const char *title, char *o, size_t cap) {
    size_t k = 0;
    for (const char *c = title; *c && k + 1 < cap; c++) {
        unsigned char u = (unsigned char)*c;
        if (u >= 'A' && u <= 'Z') o[k++] = (char)(u + 32);
        else if ((u >= 'a' && u <= 'z') || (u >= '0' && u <= '9') || u == '-' || u == '_' || u >= 0x80) o[k++] = (char)u;
        else if (u == ' ') o[k++] = '-';
    }
    o[k] = '\0';
}

/* One page: its sections into memory, then the file: title, contents (every <h2> of it, and a link
 * to the other page), the sections with ids on their <h2>. 0, or 1 when a file could not be
 * written (report_out_failed says which). */
static int write_page(report *R, int page) {
    enum { NS = sizeof SECTIONS / sizeof SECTIONS[0] };
    char *mb[NS] = {0}, *hb[NS] = {0};
    size_t ml[NS] = {0}, hl[NS] = {0};
    for (int i = 0; i < (int)NS; i++) {
        if (SECTIONS[i].page != page) continue;
        R->md = open_memstream(&mb[i], &ml[i]), R->ht = open_memstream(&hb[i], &hl[i]);
        if (!R->md || !R->ht) {
            fprintf(stderr, "%s: out of memory\n", R->prog);
            return 1;
        }
        SECTIONS[i].write(R);
        fclose(R->md), fclose(R->ht);
        R->md = R->ht = NULL;
    }
    char p[1400];
    const char *base = page ? "runs" : "report";
    snprintf(p, sizeof p, "%s/%s.md", R->out, base);
    FILE *md = report_fopen(p);
    snprintf(p, sizeof p, "%s/%s.html", R->out, base);
    FILE *ht = report_fopen(p);
    int bad = !md || !ht;
    if (!bad) {
        const char *title = page ? "FLCE-harness report: every run" : "FLCE-harness report";
        fprintf(md, "# %s\n\n", title);
        fprintf(ht, "<!DOCTYPE html><html><head><meta charset='utf-8'><title>%s</title>%s</head><body><h1>%s</h1>\n", title, PAGE_CSS, title);
        if (page) fprintf(md, "Back to [the report](report.md). "), fprintf(ht, "<p>Back to <a href='report.html'>the report</a>.</p>\n");
        fprintf(md, "Every number comes from the run files.\n\nContents:");
        fprintf(ht, "<nav>Contents:");
        int id = 0;
        for (int i = 0; i < (int)NS; i++) /* the contents: every <h2> */
            for (const char *h = hb[i]; h && (h = strstr(h, "<h2>"));) {
                const char *e = strstr(h, "</h2>");
                if (!e) break;
                char t[200], slug[200];
                snprintf(t, sizeof t, "%.*s", (int)(e - h - 4) < 199 ? (int)(e - h - 4) : 199, h + 4);
                md_slug(t, slug, sizeof slug);
                fprintf(ht, " <a href='#s%d'>%s</a>", ++id, t); /* the title is HTML already (escaped by the section) */
                fprintf(md, "%s [%s](#%s)", id > 1 ? " ·" : "", t, slug);
                h = e;
            }
        fprintf(ht, " <a href='%s'>%s</a></nav>\n", page ? "report.html" : "runs.html", page ? "(the report)" : "Every run (runs.html)");
        fprintf(md, " · [%s](%s)\n", page ? "(the report)" : "Every run", page ? "report.md" : "runs.md");
        id = 0;
        for (int i = 0; i < (int)NS; i++) {
            if (!mb[i]) continue;
            fwrite(mb[i], 1, ml[i], md);
            for (const char *h = hb[i], *n; h && *h; h = n) { /* the section, with an id on each <h2> */
                n = strstr(h, "<h2>");
                if (!n) {
                    fputs(h, ht);
                    break;
                }
                fwrite(h, 1, (size_t)(n - h), ht);
                fprintf(ht, "<h2 id='s%d'>", ++id);
                n += 4;
            }
        }
        fprintf(ht, "</body></html>\n");
    }
    for (int i = 0; i < (int)NS; i++) free(mb[i]), free(hb[i]);
    if (md) report_fclose(md);
    if (ht) report_fclose(ht);
    return bad;
}

/* 1 when out is the folder `report` directly inside the run folder dir: the report's own place in
 * a run (it writes no file of the run; the run's files are never written). */
static int is_own_report(const char *out, const char *dir) {
    char *o = flce_path_resolved(out), *d = realpath(dir, NULL);
    int own = 0;
    if (o && d) {
        size_t l = strlen(d);
        own = !strncmp(o, d, l) && !strcmp(o + l, "/report");
    }
    free(o), free(d);
    return own;
}

/* flce report's command line: the options, --out (RUN_DIR/report by default with one RUN_DIR),
 * and the folders given, truth folders (flce truth: truth.json) apart from the runs; 0, 1 after
 * --help, or 2 after a usage error. */
typedef struct {
    const char *out;
    int window, quiet;
    const char **pos; /* the run folders given (np; room for every argument, so that too many are said as such) */
    int np;
    const char *truths[MAXTRUTHS]; /* the truth folders given (ntr) */
    int ntr;
    char own[1100]; /* the default --out */
} report_args;

static int report_parse(const char *prog, int argc, char **argv, report_args *A) {
    A->out = NULL, A->window = 10, A->quiet = 0, A->ntr = 0;
    free(A->pos);
    if (!(A->pos = calloc((size_t)argc + 1, sizeof *A->pos))) return fprintf(stderr, "%s: out of memory\n", prog), 2;
    cli_opt opts[] = {
        {"out", CLI_STR, &A->out, "report folder (created; default with one RUN_DIR: RUN_DIR/report)", 0},
        {"quiet", CLI_FLAG, &A->quiet, "no progress lines (printed for parts that take 2 s or more)", 0},
        {"window", CLI_INT, &A->window, "rounds at the end averaged for the accuracy table (default 10; the paper: 100)", 0},
        {0},
    };
    int rc = cli_parse(prog, "usage: flce report RUN_DIR... [TRUTH_DIR...] [--out DIR] [--window 10] [--quiet]\n"
                             "A RUN_DIR that holds several runs (flce run with several methods) counts as all of them;\n"
                             "a TRUTH_DIR (flce truth) adds 'Against the retrained ground truth', scoring the runs of its federation.\n"
                             "--out: needed with several RUN_DIRs; with one, RUN_DIR/report (the run's own files are never written).",
                       opts, argc, argv, A->pos, argc + 1, &A->np);
    if (rc) return rc;
    if (A->np > MAXRUNS + MAXTRUTHS) /* (the runs are counted again as the folders are read: a folder of methods holds several) */
        return cli_usage_error(prog, "%d folders: more than %d runs and %d truth folders; report them in parts", A->np, MAXRUNS, MAXTRUTHS);
    if (!A->out && A->np == 1) { /* one run (or one folder of methods): its report beside its files */
        size_t l = strlen(A->pos[0]);
        while (l > 1 && A->pos[0][l - 1] == '/') l--;
        snprintf(A->own, sizeof A->own, "%.*s/report", (int)(l < 1000 ? l : 1000), A->pos[0]);
        A->out = A->own;
    }
    if (!A->out) return cli_usage_error(prog, "--out DIR is required with several RUN_DIRs (with one, the default is RUN_DIR/report)");
    if (strlen(A->out) > 900) /* the report's files are --out plus a name, in buffers of 1,200: refused, not truncated */
        return cli_usage_error(prog, "--out: a path of %zu characters; at most 900", strlen(A->out));
    if (A->np == 0) return cli_usage_error(prog, "needs at least one RUN_DIR");
    if (A->window < 1) return cli_usage_error(prog, "--window %d: must be at least 1", A->window);
    int nrp = 0;
    for (int i = 0; i < A->np; i++) {
        char tp[1200];
        struct stat tsb;
        snprintf(tp, sizeof tp, "%s/truth.json", A->pos[i]);
        if (stat(tp, &tsb) != 0) {
            A->pos[nrp++] = A->pos[i];
            continue;
        }
        if (A->ntr == MAXTRUTHS) return cli_usage_error(prog, "more than %d truth folders: report them in parts", MAXTRUTHS);
        A->truths[A->ntr++] = A->pos[i];
    }
    A->np = nrp;
    if (A->np == 0) return cli_usage_error(prog, "needs at least one RUN_DIR (a truth folder is judged against runs of its federation)");
    return 0;
}

/* One folder named twice (itself and through its parent's summary.csv, say) would be reported as
 * a repeat of itself, "identical, bit for bit": refused (2), else 0. */
static int check_named_once(const char *prog, char (*dirs)[1024], int nd) {
    char **real = calloc((size_t)nd + 1, sizeof *real);
    int dup = -1, of = -1;
    for (int i = 0; real && i < nd && dup < 0; i++) {
        real[i] = realpath(dirs[i], NULL);
        for (int j = 0; real[i] && j < i && dup < 0; j++)
            if (real[j] && !strcmp(real[i], real[j])) dup = i, of = j;
    }
    for (int i = 0; real && i < nd; i++) free(real[i]);
    free(real);
    if (dup >= 0) return cli_usage_error(prog, "%s and %s are the same run folder: name each run once", dirs[of], dirs[dup]);
    return 0;
}

/* The output first, before any run is read or figure drawn: --out neither inside a run folder it
 * reads (inputs are never written), nor a file, nor someone else's folder, and able to take the
 * report's files (a folder where one goes: one line now, not after minutes of figures). The
 * staging folder (*stage) begun; 0, or the exit status. */
static int open_out(const char *prog, const char *out, char (*dirs)[1024], int nd, const char **stage) {
    for (int i = 0; i < nd; i++)
        if (flce_path_within(out, dirs[i]) && !is_own_report(out, dirs[i]))
            return cli_usage_error(prog, "--out %s: inside the run folder %s, which the report reads: choose a folder outside the runs", out, dirs[i]);
    struct stat osb;
    int made = stat(out, &osb) != 0;
    if (!made && S_ISDIR(osb.st_mode) && !empty_or_report(out))
        return cli_usage_error(prog, "--out %s: holds other files and no report of this harness: give a new or empty folder, or an earlier report's", out);
    if (!made && !S_ISDIR(osb.st_mode))
        return cli_usage_error(prog, "--out %s: a file, not a folder: give a new or empty folder, or an earlier report's", out);
    if (flce_mkdirs(out) != 0) return cli_usage_error(prog, "--out %s: cannot create: %s", out, strerror(errno));
    *stage = report_out_begin(out, made);
    if (!*stage) {
        int err = errno;
        if (made) rmdir(out);
        if (err == ENOSPC || err == EDQUOT || err == EIO) { /* a failure of the work, not of the flag */
            fprintf(stderr, "%s: --out %s: cannot write a folder into it: %s\n", prog, out, strerror(err));
            return 1;
        }
        return cli_usage_error(prog, "--out %s: cannot write a folder into it: %s", out, strerror(err));
    }
    const char *pre = report_out_precheck();
    if (pre) {
        fprintf(stderr, "%s: %s (no report written; --out as it was)\n", prog, pre);
        report_out_discard();
        report_out_end();
        return 1;
    }
    return 0;
}

/* The report whole or not at all: a failed write (a full disk) takes the report's files with it,
 * an earlier report in --out stays as it was; the exit status. */
static int commit_report(report *R, const char *out) {
    const char *prog = R->prog;
    const char *wf = R->over[0] || R->bad[0] ? NULL : report_out_commit() ? report_out_failed() : NULL;
    int status = 0;
    if (R->over[0]) { /* a section could not take every run: no report over fewer runs than given */
        fprintf(stderr, "%s: %s (no report written; --out as it was)\n", prog, R->over);
        report_out_discard();
        status = 2;
    } else if (R->bad[0]) { /* a damaged file: no report as if it were absent */
        fprintf(stderr, "%s: %s (no report written; --out as it was)\n", prog, R->bad);
        report_out_discard();
        status = 1;
    } else if (wf) {
        fprintf(stderr, "%s: %s (no report written; --out as it was)\n", prog, wf);
        report_out_discard();
        status = 1;
    } else {
        if (!R->figs_ok) {
            const char *g = report_gnuplot_failed();
            fprintf(stderr, "%s: %s\n", prog, g ? g : "a figure's data could not be made (out of memory)");
            status = 1;
        }
        printf("report: %s/report.html (and report.md)\n", out);
    }
    report_out_end();
    return status;
}

/* The runs grouped, the truths checked against them, the sections written into the staging
 * folder and committed; the exit status. */
static int write_report(report *R, const report_args *A) {
    char what[64];
    snprintf(what, sizeof what, "read %d runs", R->nr);
    report_progress(R, what);
    report_labels(R);
    int status = 0;
    if (!report_seeds_open(R)) {
        fprintf(stderr, "%s: out of memory grouping the runs\n", R->prog);
        status = 1;
    } else if (A->ntr) { /* the truths, checked against the runs before the work */
        char terr[1400];
        status = report_truths_load(R, A->truths, A->ntr, terr, sizeof terr);
        if (status) fprintf(stderr, "%s: %s\n", R->prog, terr);
    }
    if (status) {
        report_truths_free(R);
        report_seeds_close(R);
        report_out_discard();
        report_out_end();
        return status;
    }
    /* more runs than the tables take: refused before the work; then the data behind the per-run
     * figures, the figures (runs.html) and the pages */
    if (!R->over[0] && !report_run_figures(R)) {
        report_progress(R, "figures of every run");
        if (!write_page(R, 0)) write_page(R, 1);
    }
    status = commit_report(R, A->out);
    report_seeds_close(R);
    report_truths_free(R);
    return status;
}

int flce_cmd_report(int argc, char **argv) {
    const char *prog = "flce report";
    static report_args A;
    int rc = report_parse(prog, argc, argv, &A);
    if (rc) return rc == 1 ? 0 : rc;
    static char dirs[MAXRUNS][1024];
    int nd = collect_dirs(prog, A.pos, A.np, dirs);
    if (nd < 0) return 2;
    if (check_named_once(prog, dirs, nd)) return 2;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const char *stage = NULL;
    int status = open_out(prog, A.out, dirs, nd, &stage), nr = 0;
    if (status) return status;
    run_t *runs = calloc(MAXRUNS, sizeof *runs);
    if (!runs) {
        fprintf(stderr, "%s: out of memory\n", prog);
        report_out_discard();
        report_out_end();
        return 1;
    }
    flce_err e = {{0}};
    for (int i = 0; i < nd && !status; i++) {
        int lr = flce_run_load(&runs[nr], dirs[i], &e);
        if (lr) {
            fprintf(stderr, "%s: %s\n", prog, e.msg);
            flce_run_free(&runs[nr]);
            status = lr; /* 2: not a run directory; 1: a damaged one */
            report_out_discard();
            report_out_end();
            break;
        }
        flce_run_finish(&runs[nr], A.window);
        nr++;
    }
    if (!status) {
        report R0 = {runs, nr, A.window, stage, prog, NULL, NULL, 1, A.quiet, t0.tv_sec + 1e-9 * t0.tv_nsec, NULL, {0}, {0}, 0, {0}, NULL, 0};
        status = write_report(&R0, &A);
    }
    for (int i = 0; i < nr; i++) flce_run_free(&runs[i]);
    free(runs);
    return status;
}
