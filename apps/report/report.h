/* report.h: what the parts of `flce report` share: escaping for gnuplot scripts and HTML,
 * running gnuplot, the colour of a method, and the sections written by other files. */
#ifndef FLCE_REPORT_H
#define FLCE_REPORT_H

#include <stdio.h>

#include "report_stats.h"
#include "run_reader.h"

/* What every section of the report reads and writes (cmd_report.c walks the sections). */
typedef struct report {
    run_t *runs;
    int nr, window;
    const char *out, *prog;
    FILE *md, *ht; /* the page the section is written into (a buffer the walker owns) */
    int figs_ok;   /* 0 once a figure failed */
    int quiet;     /* --quiet: no progress lines */
    double t;      /* when the current part began (progress) */
    struct seeds_ctx *S; /* the runs as configurations over seeds (report_seeds.c) */
    char over[256]; /* set when a section could not take every run (report_over): no report */
    char bad[512];  /* set when a file a section reads is damaged (report_damaged): no report */
    int one_seed;   /* no configuration has two seeds (report_seeds_open): report.html opens on the
                     * clients, the claims (which need two) follow folded */
    unsigned char class_fig[MAXRUNS]; /* 1 where run i's class contributions figure was made
                                       * (class_contributions_NN, cmd_report.c) */
    struct report_truth *truth;      /* the truth folders given (flce truth; report_truth.c) */
    int ntruth;
} report;

/* A section that cannot take every run it should (more seeds of a configuration, configurations
 * or methods than its tables hold) says so here instead of leaving runs out: the report is then
 * refused as a whole (exit status 2, nothing written), never shown over fewer runs than given.
 * The first call's message is kept. */
void report_over(report *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "the last W rounds", or what the means are over where --window exceeds a run's rounds (the
 * means then take all of that run's rounds; the text once said "the last 16 rounds" of runs of
 * 15). A static buffer. */
const char *window_phrase(const report *R);
/* A file a section reads that is there but damaged (a row that is not numbers, a client missing
 * or repeated): the report is refused (exit status 1, nothing written), never made as if the
 * file were absent. The first call's message is kept. */
void report_damaged(report *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The tallest figure drawn, in pixels (cairo's images end at 32,767): a figure that would be
 * taller is left out and its section says so; its table keeps every row. */
#define REPORT_FIG_MAX_PX 30000
/* The most seeds of one configuration every section takes. */
#define REPORT_MAX_SEEDS 64

/* A method's colour in every figure, and whether its contributions are Shapley values: from the
 * method registry (fl/methods/, flce_method's color and FLCE_M_SHAPLEY). */
const char *color_of(const char *algo);
int is_shapley(const char *algo);
/* Text from run files for a gnuplot script: only letters, digits and " _.,:()+-/=#" survive. */
const char *gp_safe(const char *s);
/* Text from run files for report.md outside code (no raw HTML, no broken table cell), and the
 * code fence that text needs inside a fenced block. Rotating buffers. */
const char *MD(const char *s);
const char *md_fence(const char *text);
/* A table written once for both pages' formats: rt_begin (the header), rt_row (cells as plain
 * text, escaped here: MD for Markdown, H for HTML) or rt_rowf (cells separated by tabs in what
 * the format makes), rt_end. */
typedef struct {
    FILE *md, *ht;
    int cols;
} rtable;
void rt_begin(rtable *t, FILE *md, FILE *ht, int cols, const char *const *heads);
void rt_begin_class(rtable *t, FILE *md, FILE *ht, const char *table_class, int cols, const char *const *heads);
/* A row cell by cell: a link (href: the HTML and Markdown target), a class for the HTML cell, bold. */
void rt_row_begin(rtable *t, const char *tr_class);
void rt_cell(rtable *t, const char *text, const char *href, const char *td_class, int strong);
/* ... with another text for Markdown (a cell that the HTML leaves blank, say, to group rows). */
void rt_cell2(rtable *t, const char *md_text, const char *html_text, const char *href, const char *td_class, int strong);
void rt_row_end(rtable *t);
void rt_row(rtable *t, const char *const *cells);
void rt_rowf(rtable *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* ... with text from run files (a label, a folder: never split at a tab) as cell number `at`. */
void rt_rowt(rtable *t, const char *text, int at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void rt_end(rtable *t);
/* Text from run files as one CSV field (quoted where it holds , " or a line break). */
const char *csv_q(const char *s);
/* Text from run files for report.html, escaped (& < > " '). Rotating buffers. */
const char *H(const char *s);
/* The report's outputs, whole or not at all: report_out_begin makes a staging folder inside
 * --out (made: --out created by this report) and returns it, or NULL (errno); every file is
 * written there, opened with report_fopen and closed with report_fclose, which note the first
 * failure (file and error, said with --out's path); report_out_failed says it ("PATH: write
 * failed: No space left on device"), or NULL, after probing that the folder takes a file (a
 * failure inside gnuplot is told apart from a full disk). report_out_commit moves every file into
 * --out (one rename each, none unless all can go) and removes the earlier report's files that
 * this one does not make (its manifest, and the names given to report_out_drop), or fails and
 * moves nothing; report_out_discard removes the staging folder (and --out if it made it): an
 * earlier report in --out stays as it was. report_out_end frees the notes. Names of the staging
 * folders and the manifest (report_out_is_stage) are the harness's, not someone else's files. */
const char *report_out_begin(const char *dir, int made);
/* After report_out_begin, before the work: a file the report would write that --out holds as a
 * folder (the earlier report's files, the pages), or a folder that takes no file: the message,
 * or NULL. */
const char *report_out_precheck(void);
void report_out_drop(const char *name);
FILE *report_fopen(const char *path);
int report_fclose(FILE *f);
const char *report_out_failed(void);
int report_out_commit(void);
void report_out_discard(void);
void report_out_end(void);
int report_out_is_stage(const char *name);
/* The first gnuplot failure in words ("gnuplot not found ...", "gnuplot failed on NAME.gp ..."), or NULL. */
const char *report_gnuplot_failed(void);
/* Write DIR/NAME.gp (the terminal set-up, then body) and run gnuplot on it in DIR (report_fopen):
 * 0, gnuplot's exit status (127: not found), or -1 when the script could not be written. */
int gnuplot(const char *dir, const char *name, const char *body);
/* ... at w x h pixels (gnuplot: 860 x 480). */
int gnuplot_sized(const char *dir, const char *name, int w, int h, const char *body);

/* The step of the tics on an axis of rounds 1..T: a whole number of rounds (1 up to 10 rounds,
 * about ten tics beyond), never a tic at round 2.5. */
static inline int report_round_tics(int T) { return T <= 10 ? 1 : (T + 9) / 10; }

/* Text of the report's own (never from run files) for both formats: as it is into md, as a <p>
 * into ht with & < > escaped and each **bold** made <b>bold</b> (report.html once showed the
 * asterisks). */
void report_para(FILE *md, FILE *ht, const char *text);
/* A method's name in the tables: its algorithm, its ablation, its prototype reading ("flce (all
 * samples)"; report_reference.c). */
const char *report_method_label(const run_t *r, char *o, size_t cap);
/* A run's configuration in words: "fmnist; Dirichlet 0.5", with its noise and weights, and the
 * readings it was trained with where not the defaults ("; prototypes from all samples"). */
const char *report_configuration(const run_t *r, char *o, size_t cap);
/* The same without the readings: the readings section's name for a configuration it spans. */
const char *report_configuration_base(const run_t *r, char *o, size_t cap);

/* The completion sensitivity section (report_completion.c): every FLCE run's trace evaluated
 * again with the completion's settings varied (rank, ridge weight, solver, none, auto, the
 * literal reading), the KL of each over seeds and each setting's held-out error. Returns 0 when
 * nothing could be evaluated for a reason worth saying (said on stderr). */
int report_completion(report *R);

/* Seeds as a dimension of every result (report_seeds.c): runs whose config.json differ only in
 * the seed are one group, groups that differ only in the method one configuration.
 * report_seeds_open groups them (0: out of memory), report_seeds_close frees that. The sections
 * built on it: what was run (configurations, methods, seeds); the claims of the paper with their
 * forest plot; each configuration with its per-round figures (seed means and bands), its means
 * and intervals, FLCE minus each baseline seed by seed and FLCE's class contributions; the
 * configurations of one method that are not one over seeds. The int ones return 0 when a
 * figure failed. */
int report_seeds_open(report *R);
/* The configurations in the report's order: how many; configuration c's runs (every method's
 * seeds, repeats left out) into m [cap], how many, and the most seeds of one of its methods. */
int report_nconf(const report *R);
int report_conf_members(const report *R, int c, int *m, int cap, int *most_seeds);
void report_seeds_close(report *R);
void report_what_was_run(report *R);
/* Near the top of report.html: each method's final accuracy and macro-F1 and their means over the
 * window, the mean over its seeds (table.glance; a row per method of each configuration). */
void report_glance(report *R);
int report_verdicts(report *R);
int report_configurations(report *R);
void report_configurations_apart(report *R);
/* Run r's class contributions (FLCE: trace/X_completed.npy summed over rounds and clients,
 * weighted by b_c) as shares into share [C] and the class weights' shares into wshare [C]; the
 * number of classes C (at most cap), or 0 where the run has none (said on stderr when its file
 * does not fit the run). */
int report_class_shares(const run_t *r, double *share, double *wshare, int cap);

/* The reference rows (report_reference.c, issue 30): trivial contribution rules from the runs'
 * own selections and their KL beside each method's, Spearman correlations with data sizes and
 * selection counts, and for runs with noisy clients the AUC at ranking them below the clean
 * ones. Returns 0 when out of memory. */
int report_reference(report *R);
/* The trivial rules of run r into tr [3][n] (uniform, rounds selected, data-size weights summed
 * over the rounds selected; each normalised) and the selection counts into sel [n]; 0 when the
 * run recorded no selections (report_reference.c). */
int report_trivial_rules(const run_t *r, double *tr, double *sel);
/* The truth folders (flce truth) of the report (report_truth.c): read and checked against the
 * runs (each of the federation of some run: its partition digest and clients); 0, 1 (damaged,
 * why in err) or 2 (no run of its federation). Then the section, and the truths freed. */
int report_truths_load(report *R, const char *const *dirs, int n, char *err, size_t cap);
void report_truth(report *R);
void report_truths_free(report *R);
/* The clients (report_reference.c, issue 65): for each configuration with fewer than two seeds
 * (every configuration where R->one_seed), each method's final contribution per client beside
 * the data shares and the trivial rules (figure confNN_clients, its data confNN_clients.csv),
 * the KL of each to the data shares and its Spearman correlation with them and with the rounds
 * selected (clients_summary.csv), then FLCE's class contributions (class_contributions_NN).
 * Nothing where every configuration has two seeds. Returns 0 when a figure failed. */
int report_clients(report *R);

/* The claims by reading (report_readings.c, issue 30): for every configuration whose FLCE runs
 * were evaluated under each reading (RUN/readings/, scripts/readings_eval.sh) and whose
 * baselines recorded every contribution rule (contributions_rules.csv), the KL claim judged
 * under each reading; readings_claims.csv. Nothing where the runs hold no readings. Returns 0
 * when out of memory. */
int report_readings(report *R);
/* KL(c || the data shares of run r), NaN where c is not a distribution (report_readings.c). */
double report_kl_to_shares(const run_t *r, const double *c);
/* Column col (1-based, after the client number) of a per-client CSV of run r (n rows) into c [n]:
 * 1; 0 when the file is missing, or damaged (report_damaged then says so). */
int report_client_csv(report *R, const run_t *r, const char *path, int col, double *c);
/* The paper's text and its released code (report_released.c, issue 62): for the study under the
 * released code (docs/decisions.md), each claim judged under the text (a), as released (b) and
 * under the text plus each departure alone (c); released_claims.csv. Nothing where no run is
 * one of the study's. Returns 0 when out of memory. */
int report_released(report *R);
/* The released code's departures run r was trained with, appended in words to its configuration's
 * name at o[*n] ("; as released", "; released selection"); nothing for the text's settings. */
void report_released_words(const run_t *r, char *o, size_t cap, size_t *n);
/* Strategic clients (report_attacks.c, docs/attacks.md): every attacked run paired by seed with
 * the honest run of its flags, the attacker's share of the contributions compared per arm and
 * method (the strategic-clients study's rule); attacks.csv. Nothing where no attacked run has an
 * honest partner. Returns 0 when out of memory. */
int report_attacks(report *R);
/* The horizon (report_readings.c, issue 30): where runs are longer than 30 rounds, the KL claim
 * at rounds 30, 100 and 200 (FLCE_REPORT_HORIZON: others), FLCE's from flce eval --rounds R
 * (RUN/readings/), the baselines' running contributions; a table and a figure per configuration
 * (horizonNN.csv). Returns 0 when out of memory. */
int report_horizon(report *R);

/* A part of a long report done: one line on stdout where it took 2 s or more (report_util.c). */
void report_progress(report *R, const char *part);

/* Seeds as a dimension (report_seeds.c): a configuration's runs over its seeds; a run's method
 * and ablations as a label. */
typedef struct {
    const char *key;            /* config.json without its seed line */
    int m[REPORT_MAX_SEEDS], n; /* member runs */
} report_group;
const char *report_base_label(const run_t *r, char *o, size_t cap);

/* The claims (report_claims.c): every claim of the paper judged for each group of runs in order
 * (configurations' groups, ckeys their settings without method, shd their distances to exact
 * Shapley), the table into md/ht and claims.csv into out, the forest plot's rows gathered; the
 * forest plot (forest.png/.svg; 0 when it failed) and how many rows it has. */
void report_claims(run_t *runs, report_group *g, int ng, const int *order, char **ckeys, const double *shd, const char *out, FILE *md, FILE *ht);
int report_forest_figure(const char *out, int *width, int *height);
int report_forest_rows(void);

/* The every-run page and its figures (report_runs.c): run labels made unique (first, before
 * any section); the per-run figures and their data (1 when the curves' data could not be
 * written); report.html's heterogeneity sweep and server-cost figure; runs.html's sections. */
void report_labels(report *R);
int report_run_figures(report *R);
void report_heterogeneity(report *R);
void report_server_figure(report *R);
void report_summary_table(report *R);
void report_ablation(report *R);
void report_shapley(report *R);
void report_noise(report *R);
void report_class_contributions(report *R);
void report_runs(report *R);

#endif
