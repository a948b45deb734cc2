/* report_util.c: see report.h. */
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "data.h"
#include "method.h"
#include "npy.h"
#include "report.h"

const char *color_of(const char *algo) {
    const flce_method *m = flce_method_find(algo);
    return m && m->color ? m->color : "#000000";
}

void report_over(report *R, const char *fmt, ...) {
    if (R->over[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(R->over, sizeof R->over, fmt, ap);
    va_end(ap);
}

void report_damaged(report *R, const char *fmt, ...) {
    if (R->bad[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(R->bad, sizeof R->bad, fmt, ap);
    va_end(ap);
}

int is_shapley(const char *algo) {
    const flce_method *m = flce_method_find(algo);
    return m && (m->flags & FLCE_M_SHAPLEY);
}

/* Text from run files (labels, method names) that goes into a gnuplot script: only letters,
 * digits and ` _.,:()+-/=#` survive, anything else becomes '_', so that nothing a run
 * directory's name or its config.json holds can end a quoted string, substitute a command
 * (backquotes), a macro (@) or a variable, or run anything. (The HTML report shows the
 * names as they are, escaped.) A rotating set of buffers, so one call can take several. */
const char *gp_safe(const char *s) {
    static char buf[8][128];
    static int k;
    char *o = buf[k++ & 7];
    size_t i = 0;
    for (; s[i] && i < sizeof buf[0] - 1; i++) {
        unsigned char c = (unsigned char)s[i];
        o[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr(" _.,:()+-/=#", c) ? (char)c : '_';
    }
    o[i] = '\0';
    return o;
}

/* Text from run files as one CSV field: as it is when it holds no comma, quote or line break;
 * else quoted, quotes doubled, line breaks made spaces (one row stays one line). Rotating buffers. */
const char *csv_q(const char *s) {
    static char *buf[8];
    static int k;
    if (!strpbrk(s, ",\"\r\n")) return s;
    char **o = &buf[k++ & 7];
    free(*o);
    if (!(*o = malloc(2 * strlen(s) + 3))) return "\"\"";
    char *w = *o;
    *w++ = '"';
    for (; *s; s++) {
        if (*s == '"') *w++ = '"';
        *w++ = *s == '\n' || *s == '\r' ? ' ' : *s;
    }
    *w++ = '"', *w = '\0';
    return *o;
}

/* Text from run files into report.md, outside code: & < > as entities (no raw HTML), | and `
 * escaped (a table cell stays one cell), line breaks made spaces. Rotating buffers. */
const char *MD(const char *s) {
    static char *buf[16];
    static int k;
    char **o = &buf[k++ & 15];
    free(*o);
    if (!(*o = malloc(5 * strlen(s) + 1))) return "";
    char *w = *o;
    for (; *s; s++) {
        const char *r = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '|' ? "\\|" : *s == '`' ? "\\`"
                      : *s == '\n' || *s == '\r' ? " " : NULL;
        if (r) w += sprintf(w, "%s", r);
        else *w++ = *s;
    }
    *w = '\0';
    return *o;
}

/* A Markdown code fence for text: backticks, one more than the longest run of them in it. */
const char *md_fence(const char *text) {
    static char f[8][40];
    static int k;
    char *o = f[k++ & 7];
    int run = 0, most = 0;
    for (const char *c = text; *c; c++) run = *c == '`' ? run + 1 : 0, most = run > most ? run : most;
    int n = most + 1 < 3 ? 3 : most + 1 > 39 ? 39 : most + 1;
    memset(o, '`', (size_t)n), o[n] = '\0';
    return o;
}

/* Text from run files into report.html: & < > " ' escaped. Rotating buffers, as gp_safe. */
const char *H(const char *s) {
    static char *buf[16];
    static int k;
    char **o = &buf[k++ & 15];
    size_t n = 1;
    for (const char *c = s; *c; c++) n += strchr("&<>\"'", *c) && *c ? 6 : 1;
    free(*o);
    if (!(*o = malloc(n))) return "";
    char *w = *o;
    for (const char *c = s; *c; c++) {
        const char *r = *c == '&' ? "&amp;" : *c == '<' ? "&lt;" : *c == '>' ? "&gt;" : *c == '"' ? "&quot;" : *c == '\'' ? "&#39;" : NULL;
        if (r) w += sprintf(w, "%s", r);
        else *w++ = *c;
    }
    *w = '\0';
    return *o;
}

/* The report's outputs (see report.h): the final folder, the staging folder inside it where
 * every file is written, the names to drop from the final folder, the first failure. One report
 * per process. */
#define STAGE_PREFIX ".flce-report-"
#define MANIFEST ".flce-report-files" /* the names of the report's files, one a line */
static struct {
    char dir[1200], stage[1300];
    int made;
    char **drop;
    int nd, cd;
    FILE *open[64];
    char *open_path[64];
    char failed[1500];
    char gp_failed[200];
} out_io;

static void names_add(char ***v, int *n, int *cap, const char *s) {
    if (*n == *cap) {
        int c = *cap ? *cap * 2 : 64;
        char **w = realloc(*v, sizeof *w * (size_t)c);
        if (!w) return; /* out of memory: that stale name stays, nothing worse */
        *v = w, *cap = c;
    }
    char *d = strdup(s);
    if (d) (*v)[(*n)++] = d;
}

/* A path in the staging folder said as the path in the final folder: messages name --out. */
static void fail_io(const char *path, const char *what, int err) {
    if (out_io.failed[0]) return;
    size_t ls = strlen(out_io.stage);
    if (ls && !strncmp(path, out_io.stage, ls) && path[ls] == '/')
        snprintf(out_io.failed, sizeof out_io.failed, "%s%s: %s: %s", out_io.dir, path + ls, what, strerror(err ? err : EIO));
    else snprintf(out_io.failed, sizeof out_io.failed, "%s: %s: %s", path, what, strerror(err ? err : EIO));
}

/* Every regular file of folder d removed, then d itself. */
static void remove_folder(const char *d) {
    DIR *dd = opendir(d);
    for (struct dirent *en; dd && (en = readdir(dd));) {
        char p[1600];
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s", d, en->d_name);
        if (lstat(p, &sb) == 0 && S_ISREG(sb.st_mode)) remove(p);
    }
    if (dd) closedir(dd);
    rmdir(d);
}

int report_out_is_stage(const char *name) { return !strncmp(name, STAGE_PREFIX, strlen(STAGE_PREFIX)) || !strcmp(name, MANIFEST); }

const char *report_out_begin(const char *dir, int made) {
    snprintf(out_io.dir, sizeof out_io.dir, "%s", dir);
    out_io.made = made;
    /* a staging folder of a report that was killed (its process gone) is removed */
    DIR *d = opendir(dir);
    for (struct dirent *en; d && (en = readdir(d));) {
        char *end;
        if (strncmp(en->d_name, STAGE_PREFIX, strlen(STAGE_PREFIX)) || !strcmp(en->d_name, MANIFEST)) continue;
        long pid = strtol(en->d_name + strlen(STAGE_PREFIX), &end, 10);
        if (*end || pid <= 0 || pid == (long)getpid() || !(kill((pid_t)pid, 0) != 0 && errno == ESRCH)) continue;
        char p[1600];
        snprintf(p, sizeof p, "%s/%s", dir, en->d_name);
        remove_folder(p);
    }
    if (d) closedir(d);
    snprintf(out_io.stage, sizeof out_io.stage, "%s/" STAGE_PREFIX "%ld", dir, (long)getpid());
    if (mkdir(out_io.stage, 0777) != 0) {
        out_io.stage[0] = '\0';
        return NULL;
    }
    return out_io.stage;
}

void report_out_drop(const char *name) { names_add(&out_io.drop, &out_io.nd, &out_io.cd, name); }

FILE *report_fopen(const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) {
        fail_io(path, "cannot create", errno);
        return NULL;
    }
    for (int i = 0; i < 64; i++)
        if (!out_io.open[i]) {
            out_io.open[i] = f, out_io.open_path[i] = strdup(path);
            break;
        }
    return f;
}

int report_fclose(FILE *f) {
    if (!f) return -1;
    const char *path = "a report file";
    int slot = -1;
    for (int i = 0; i < 64; i++)
        if (out_io.open[i] == f) slot = i, path = out_io.open_path[i] ? out_io.open_path[i] : path;
    int bad = ferror(f), err = bad ? errno : 0;
    if (fflush(f) != 0 && !bad) bad = 1, err = errno;
    if (fclose(f) != 0 && !bad) bad = 1, err = errno;
    if (bad) fail_io(path, "write failed", err);
    if (slot >= 0) free(out_io.open_path[slot]), out_io.open[slot] = NULL, out_io.open_path[slot] = NULL;
    return bad ? -1 : 0;
}

const char *report_out_failed(void) {
    if (!out_io.failed[0]) { /* a write that fails silently elsewhere (gnuplot's): does the folder take a file? */
        char p[1400];
        snprintf(p, sizeof p, "%s/.flce-report-probe", out_io.stage);
        static char block[65536];
        FILE *f = fopen(p, "w");
        int ok = f && fwrite(block, 1, sizeof block, f) == sizeof block, err = ok ? 0 : errno;
        if (f && fclose(f) != 0 && ok) ok = 0, err = errno;
        remove(p);
        if (!ok) snprintf(out_io.failed, sizeof out_io.failed, "%s: cannot write: %s", out_io.dir, strerror(err ? err : EIO));
    }
    return out_io.failed[0] ? out_io.failed : NULL;
}

/* The staging folder's names (regular files), sorted; NULL when it cannot be read. */
static char **stage_names(int *n) {
    char **v = NULL;
    int cap = 0;
    *n = 0;
    DIR *d = opendir(out_io.stage);
    if (!d) return NULL;
    for (struct dirent *en; (en = readdir(d));) {
        char p[1600];
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s", out_io.stage, en->d_name);
        if (lstat(p, &sb) == 0 && S_ISREG(sb.st_mode)) names_add(&v, n, &cap, en->d_name);
    }
    closedir(d);
    return v;
}

static int in_names(char **v, int n, const char *s) {
    for (int i = 0; i < n; i++)
        if (!strcmp(v[i], s)) return 1;
    return 0;
}

/* A name in --out that a report writes (the earlier report's manifest, and the pages every
 * report makes) but that is not a file (a folder): said before any run is read or figure drawn,
 * as report_out_commit would say it at the end. */
const char *report_out_precheck(void) {
    static const char *const always[] = {"report.md", "report.html", "runs.html"};
    char **names = NULL, q[1600];
    int n = 0, cap = 0;
    for (size_t i = 0; i < sizeof always / sizeof always[0]; i++) names_add(&names, &n, &cap, always[i]);
    snprintf(q, sizeof q, "%s/" MANIFEST, out_io.dir);
    FILE *mf = fopen(q, "r");
    for (char line[1200]; mf && fgets(line, sizeof line, mf);) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] && !strchr(line, '/') && strcmp(line, ".") && strcmp(line, "..")) names_add(&names, &n, &cap, line);
    }
    if (mf) fclose(mf);
    for (int i = 0; i < n && !out_io.failed[0]; i++) {
        struct stat sb;
        snprintf(q, sizeof q, "%s/%s", out_io.dir, names[i]);
        if (lstat(q, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISLNK(sb.st_mode))
            snprintf(out_io.failed, sizeof out_io.failed, "%s: cannot replace: %s, not a file", q, S_ISDIR(sb.st_mode) ? "a folder" : "something");
    }
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
    return out_io.failed[0] ? out_io.failed : report_out_failed();
}

int report_out_commit(void) {
    if (report_out_failed()) return -1;
    int n = 0, rc = 0;
    char **v = stage_names(&n);
    char p[1600], q[1600];
    if (!v) {
        fail_io(out_io.stage, "cannot read", errno);
        return -1;
    }
    /* nothing moves unless every file can: a name in --out that is not a file (a folder) stops it */
    for (int i = 0; i < n && !rc; i++) {
        struct stat sb;
        snprintf(q, sizeof q, "%s/%s", out_io.dir, v[i]);
        if (lstat(q, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISLNK(sb.st_mode)) {
            snprintf(out_io.failed, sizeof out_io.failed, "%s: cannot replace: %s, not a file", q, S_ISDIR(sb.st_mode) ? "a folder" : "something");
            rc = -1;
        }
    }
    /* the earlier report's files that this one does not make (its manifest, and the names dropped) */
    char **old = NULL;
    int nold = 0, cold = 0;
    snprintf(q, sizeof q, "%s/" MANIFEST, out_io.dir);
    FILE *mf = rc ? NULL : fopen(q, "r");
    for (char line[1200]; mf && fgets(line, sizeof line, mf);) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] && !strchr(line, '/') && strcmp(line, ".") && strcmp(line, "..")) names_add(&old, &nold, &cold, line);
    }
    if (mf) fclose(mf);
    for (int i = 0; i < out_io.nd; i++) names_add(&old, &nold, &cold, out_io.drop[i]);
    /* the new manifest, then every file moved into --out (a rename each: a file is the earlier
     * report's or this one's, never half of either) */
    snprintf(p, sizeof p, "%s/" MANIFEST, out_io.stage);
    FILE *nm = rc ? NULL : fopen(p, "w");
    for (int i = 0; nm && i < n; i++) fprintf(nm, "%s\n", v[i]);
    if (!rc && (!nm || fclose(nm) != 0)) fail_io(p, "write failed", errno), rc = -1;
    for (int i = 0; i < n && !rc; i++) {
        snprintf(p, sizeof p, "%s/%s", out_io.stage, v[i]);
        snprintf(q, sizeof q, "%s/%s", out_io.dir, v[i]);
        if (rename(p, q) != 0) fail_io(q, "cannot replace", errno), rc = -1;
    }
    if (!rc) {
        snprintf(p, sizeof p, "%s/" MANIFEST, out_io.stage);
        snprintf(q, sizeof q, "%s/" MANIFEST, out_io.dir);
        if (rename(p, q) != 0) fail_io(q, "cannot replace", errno), rc = -1;
    }
    for (int i = 0; i < nold && !rc; i++) {
        struct stat sb;
        snprintf(q, sizeof q, "%s/%s", out_io.dir, old[i]);
        if (!in_names(v, n, old[i]) && lstat(q, &sb) == 0 && S_ISREG(sb.st_mode)) remove(q);
    }
    for (int i = 0; i < n; i++) free(v[i]);
    for (int i = 0; i < nold; i++) free(old[i]);
    free(v), free(old);
    if (!rc) rmdir(out_io.stage);
    return rc;
}

void report_out_discard(void) {
    for (int i = 0; i < 64; i++)
        if (out_io.open[i]) fclose(out_io.open[i]), free(out_io.open_path[i]), out_io.open[i] = NULL;
    if (out_io.stage[0]) remove_folder(out_io.stage);
    if (out_io.made) rmdir(out_io.dir);
}

const char *report_gnuplot_failed(void) { return out_io.gp_failed[0] ? out_io.gp_failed : NULL; }

void report_out_end(void) {
    for (int i = 0; i < out_io.nd; i++) free(out_io.drop[i]);
    free(out_io.drop);
    out_io.drop = NULL, out_io.nd = out_io.cd = 0;
}

/* Write DIR/NAME.gp and run gnuplot on it in DIR, with an argument vector (no shell): the
 * script names every file relative to DIR, so DIR's own name never enters it. */
int gnuplot(const char *dir, const char *name, const char *body) { return gnuplot_sized(dir, name, 860, 480, body); }

int gnuplot_sized(const char *dir, const char *name, int w, int h, const char *body) {
    char p[1200];
    snprintf(p, sizeof p, "%s/%s.gp", dir, name);
    FILE *f = report_fopen(p);
    if (!f) return -1;
    /* each format from gnuplot's defaults (reset): the PNG's settings once carried into the SVG
     * (its last panel's "unset key", "set autoscale yfix" and y label drawn on every panel) */
    fprintf(f, "# made by flce report\n"
               "do for [fmt in 'png svg'] {\n"
               "  reset\n  set datafile separator ','\n"
               "  if (fmt eq 'png') { set terminal pngcairo size %d,%d font ',11' } else { set terminal svg size %d,%d }\n"
               "  set output '%s.'.fmt\n%s}\n", w, h, w, h, name, body);
    if (report_fclose(f) != 0) return -1;
    char script[80];
    snprintf(script, sizeof script, "%s.gp", name);
    int rc = cli_gnuplot(dir, script);
    if (rc && !out_io.gp_failed[0]) {
        if (rc == 127) snprintf(out_io.gp_failed, sizeof out_io.gp_failed, "gnuplot not found: no figures (install gnuplot-nox)");
        else snprintf(out_io.gp_failed, sizeof out_io.gp_failed, "gnuplot failed on %s (status %d): figures missing", script, rc);
    }
    return rc;
}

void report_para(FILE *md, FILE *ht, const char *text) {
    fprintf(md, "\n%s\n", text);
    fputs("<p>", ht);
    int bold = 0;
    for (const char *c = text; *c; c++) {
        if (c[0] == '*' && c[1] == '*') {
            fputs((bold = !bold) ? "<b>" : "</b>", ht);
            c++;
        } else if (*c == '&') fputs("&amp;", ht);
        else if (*c == '<') fputs("&lt;", ht);
        else if (*c == '>') fputs("&gt;", ht);
        else fputc(*c, ht);
    }
    fputs(bold ? "</b></p>\n" : "</p>\n", ht);
}

int report_class_shares(const run_t *r, double *share, double *wshare, int cap) {
    char p[1200];
    snprintf(p, sizeof p, "%s/trace/X_completed.npy", r->dir);
    flce_npy X;
    if (flce_npy_read(p, &X, NULL)) return 0;
    int C = flce_dataset_classes(r->dataset) ? flce_dataset_classes(r->dataset) : 10;
    if (X.dtype != FLCE_NPY_F64 || X.ndim != 3 || X.shape[0] != r->T || X.shape[1] != r->clients || X.shape[2] != C || C > cap) {
        flce_npy_free(&X);
        return 0;
    }
    int T = r->T, N = r->clients;
    const double *x = X.data;
    double tot = 0, btot = 0;
    for (int c = 0; c < C; c++) wshare[c] = r->cw && r->ncw == C ? r->cw[c] : 1.0 / C, btot += wshare[c];
    for (int c = 0; c < C; c++) share[c] = 0;
    for (int k = 0; k < N; k++) /* the order of the per-run class figure (runs.html) */
        for (int c = 0; c < C; c++) {
            double v = 0;
            for (int t = 0; t < T; t++) v += x[((size_t)t * N + k) * C + c];
            v *= wshare[c];
            share[c] += v, tot += v;
        }
    for (int c = 0; c < C; c++) share[c] = tot > 0 ? share[c] / tot : 0, wshare[c] = btot > 0 ? wshare[c] / btot : 0;
    flce_npy_free(&X);
    return C;
}

void rt_begin(rtable *t, FILE *md, FILE *ht, int cols, const char *const *heads) { rt_begin_class(t, md, ht, NULL, cols, heads); }

void rt_begin_class(rtable *t, FILE *md, FILE *ht, const char *table_class, int cols, const char *const *heads) {
    t->md = md, t->ht = ht, t->cols = cols;
    fprintf(md, "\n|");
    for (int c = 0; c < cols; c++) fprintf(md, " %s |", MD(heads[c]));
    fprintf(md, "\n|");
    for (int c = 0; c < cols; c++) fprintf(md, "---|");
    fprintf(md, "\n");
    if (table_class) fprintf(ht, "<table class='%s'><tr>", table_class);
    else fprintf(ht, "<table><tr>");
    for (int c = 0; c < cols; c++) fprintf(ht, "<th>%s</th>", H(heads[c]));
    fprintf(ht, "</tr>\n");
}

void rt_row_begin(rtable *t, const char *tr_class) {
    fprintf(t->md, "|");
    if (tr_class) fprintf(t->ht, "<tr class='%s'>", tr_class);
    else fprintf(t->ht, "<tr>");
}

void rt_cell(rtable *t, const char *text, const char *href, const char *td_class, int strong) {
    rt_cell2(t, text, text, href, td_class, strong);
}

void rt_cell2(rtable *t, const char *md_text, const char *text, const char *href, const char *td_class, int strong) {
    const char *b = strong ? "**" : "";
    if (href) fprintf(t->md, " %s[%s](%s)%s |", b, MD(md_text), href, b);
    else fprintf(t->md, " %s%s%s |", b, MD(md_text), b);
    if (td_class) fprintf(t->ht, "<td class='%s'>", td_class);
    else fprintf(t->ht, "<td>");
    if (strong) fprintf(t->ht, "<b>");
    if (href) fprintf(t->ht, "<a href='%s'>%s</a>", H(href), H(text));
    else fprintf(t->ht, "%s", H(text));
    fprintf(t->ht, "%s</td>", strong ? "</b>" : "");
}

void rt_row_end(rtable *t) {
    fprintf(t->md, "\n");
    fprintf(t->ht, "</tr>\n");
}

void rt_row(rtable *t, const char *const *cells) {
    rt_row_begin(t, NULL);
    for (int c = 0; c < t->cols; c++) rt_cell(t, cells[c], NULL, NULL, 0);
    rt_row_end(t);
}

static void rt_rowv(rtable *t, const char *text, int at, const char *fmt, va_list ap) {
    char line[4096], *cells[64];
    vsnprintf(line, sizeof line, fmt, ap);
    int n = 0;
    if (text && at == 0) cells[n++] = (char *)text;
    for (char *c = line; n < t->cols && n < 64;) {
        cells[n++] = c;
        char *tab = strchr(c, '\t');
        if (text && n == at && n < 64) cells[n++] = (char *)text; /* the text from run files, never split */
        if (!tab) break;
        *tab = '\0', c = tab + 1;
    }
    while (n < t->cols && n < 64) cells[n++] = "";
    rt_row(t, (const char *const *)cells);
}

void rt_rowf(rtable *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    rt_rowv(t, NULL, 0, fmt, ap);
    va_end(ap);
}

void rt_rowt(rtable *t, const char *text, int at, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    rt_rowv(t, text, at, fmt, ap);
    va_end(ap);
}

void rt_end(rtable *t) { fprintf(t->ht, "</table>\n"); }

const char *window_phrase(const report *R) {
    static char buf[200];
    int tmin = 0, tmax = 0;
    for (int i = 0; i < R->nr; i++) {
        int T = R->runs[i].T;
        if (i == 0 || T < tmin) tmin = T;
        if (i == 0 || T > tmax) tmax = T;
    }
    if (R->nr == 0 || R->window <= tmin) snprintf(buf, sizeof buf, "the last %d rounds", R->window);
    else if (R->window >= tmax && tmin == tmax)
        snprintf(buf, sizeof buf, "all %d rounds (--window %d is longer than the runs)", tmin, R->window);
    else if (R->window >= tmax)
        snprintf(buf, sizeof buf, "all of a run's rounds (%d to %d here; --window %d is longer than every run)", tmin, tmax, R->window);
    else snprintf(buf, sizeof buf, "the last %d rounds (all of them in runs of fewer: %d to %d rounds here)", R->window, tmin, tmax);
    return buf;
}

/* A part of a long report done: one line on stdout where it took 2 s or more (the small-scale
 * study's report takes minutes), so that a short report stays silent. stdout, beside the line
 * naming the report, not stderr: how long a part took never changes what a failure prints
 * there (its one line), on a machine fast or slow. */
void report_progress(report *R, const char *part) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = ts.tv_sec + 1e-9 * ts.tv_nsec;
    if (!R->quiet && R->t > 0 && now - R->t >= 2) {
        printf("%s: %s (%.0f s)\n", R->prog, part, now - R->t);
        fflush(stdout);
    }
    R->t = now;
}
