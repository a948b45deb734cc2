/* report_util.c: see report.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"

const char *color_of(const char *algo) {
    static const char *names[] = {"flce", "fedavg", "fedprox", "ditto", "moon", "fedfv", "cgsv", "qfedavg", "fedfa", "fedsv", "gtg"};
    static const char *cols[] = {"#d62728", "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
                                 "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79"};
    for (int i = 0; i < 11; i++)
        if (!strcmp(algo, names[i])) return cols[i];
    return "#000000";
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

/* Write DIR/NAME.gp and run gnuplot on it in DIR, with an argument vector (no shell): the
 * script names every file relative to DIR, so DIR's own name never enters it. */
int gnuplot(const char *dir, const char *name, const char *body) {
    char p[1200];
    snprintf(p, sizeof p, "%s/%s.gp", dir, name);
    FILE *f = fopen(p, "w");
    if (!f) return -1;
    fprintf(f, "# made by flce report\nset datafile separator ','\n"
               "do for [fmt in 'png svg'] {\n"
               "  if (fmt eq 'png') { set terminal pngcairo size 860,480 font ',11' } else { set terminal svg size 860,480 }\n"
               "  set output '%s.'.fmt\n%s}\n", name, body);
    if (fclose(f) != 0) return -1;
    char script[80];
    snprintf(script, sizeof script, "%s.gp", name);
    return cli_gnuplot(dir, script);
}

/* Spearman's rank correlation of x and y [n] (ties: average ranks); NaN when either is constant. */
double report_spearman(const double *x, const double *y, int n) {
    double *rx = malloc(sizeof(double) * (size_t)n * 2), *ry = rx ? rx + n : NULL;
    if (!rx) return NAN;
    for (int i = 0; i < n; i++) {
        double lx = 0, ex = 0, ly = 0, ey = 0;
        for (int j = 0; j < n; j++) lx += x[j] < x[i], ex += x[j] == x[i], ly += y[j] < y[i], ey += y[j] == y[i];
        rx[i] = lx + (ex + 1) / 2, ry[i] = ly + (ey + 1) / 2;
    }
    double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
    for (int i = 0; i < n; i++) mx += rx[i] / n, my += ry[i] / n;
    for (int i = 0; i < n; i++) sxy += (rx[i] - mx) * (ry[i] - my), sxx += (rx[i] - mx) * (rx[i] - mx), syy += (ry[i] - my) * (ry[i] - my);
    free(rx);
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}
