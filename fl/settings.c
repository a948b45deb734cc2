/* settings.c: the methods' own settings (engine.h: flce_setting), walked from the registry.
 * Each method declares its settings in its file (flce_method.settings); this file lists them
 * once for the programs (flags, --help), sets and reads their values in flce_run_cfg, and
 * checks their limits. config.json writes them (engine.c: config_json), and --resume compares
 * them there like every other setting. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "method.h"

/* The registry's settings, each once (a setting shared by several methods: at its first). */
static const flce_setting *ALL[FLCE_MAX_SETTINGS];
static int NALL = -1;

static void list_settings(void) {
    if (NALL >= 0) return;
    NALL = 0;
    for (int i = 0; i < flce_method_count(); i++)
        for (const flce_setting *const *q = flce_method_at(i)->settings; q && *q; q++) {
            int seen = 0;
            for (int j = 0; j < NALL && !seen; j++) seen = ALL[j] == *q || !strcmp(ALL[j]->flag, (*q)->flag);
            if (!seen && NALL == FLCE_MAX_SETTINGS) { /* a programming error: never a setting silently unknown */
                fprintf(stderr, "flce: the methods declare more than FLCE_MAX_SETTINGS (%d) settings (fl/engine.h)\n",
                        FLCE_MAX_SETTINGS);
                abort();
            }
            if (!seen) ALL[NALL++] = *q;
        }
}

int flce_setting_count(void) {
    list_settings();
    return NALL;
}

const flce_setting *flce_setting_at(int i) {
    list_settings();
    return i >= 0 && i < NALL ? ALL[i] : NULL;
}

const flce_setting *flce_setting_find(const char *flag) {
    list_settings();
    for (int i = 0; i < NALL; i++)
        if (!strcmp(ALL[i]->flag, flag)) return ALL[i];
    return NULL;
}

int flce_method_declares(const flce_method *m, const flce_setting *s) {
    for (const flce_setting *const *q = m ? m->settings : NULL; q && *q; q++)
        if (*q == s || !strcmp((*q)->flag, s->flag)) return 1;
    return 0;
}
static int declares(const flce_method *m, const flce_setting *s) { return flce_method_declares(m, s); }

int flce_method_has_setting(const char *method, const flce_setting *s) {
    const flce_method *m = flce_method_find(method);
    return m && declares(m, s);
}

const char *flce_setting_methods(const flce_setting *s, char *buf, size_t cap) {
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < flce_method_count(); i++)
        if (declares(flce_method_at(i), s)) flce_catf(buf, cap, &n, "%s%s", n ? ", " : "", flce_method_at(i)->name);
    return buf;
}

/* The i-th word of "a|b|c" into buf (empty when there is none). */
static const char *choice(const char *choices, int i, char *buf, size_t cap) {
    const char *p = choices;
    for (int k = 0; k < i && p; k++) p = strchr(p, '|'), p = p ? p + 1 : NULL;
    size_t len = p ? strcspn(p, "|") : 0;
    snprintf(buf, cap, "%.*s", (int)len, p ? p : "");
    return buf;
}

const char *flce_setting_text(const flce_setting *s, double v, char *buf, size_t cap) {
    if (isnan(v)) v = s->def;
    if (s->choices) return choice(s->choices, (int)v, buf, cap);
    snprintf(buf, cap, "%.17g", v);
    if (strtod(buf, NULL) == v) snprintf(buf, cap, "%g", v); /* the short form where it is exact */
    if (strtod(buf, NULL) != v) snprintf(buf, cap, "%.17g", v);
    return buf;
}

flce_status flce_run_cfg_set_value(flce_run_cfg *c, const flce_setting *s, double v, flce_err *e) {
    char t[64];
    int nchoices = 0;
    if (s->choices) {
        nchoices = 1;
        for (const char *p = s->choices; *p; p++) nchoices += *p == '|';
    }
    if (s->choices ? !(v >= 0 && v < nchoices && v == floor(v)) : 0)
        return flce_fail(e, FLCE_ERR_ARG, "--%s: value %g is not one of %s", s->flag, v, s->choices);
    if (!s->choices) {
        flce_setting_text(s, v, t, sizeof t);
        int low = s->lo_open ? !(v > s->lo) : !(v >= s->lo);
        if (!isfinite(v) || low || !(v <= s->hi) || (s->integer && v != floor(v))) {
            char lo[32], hi[32];
            flce_setting_text(s, s->lo, lo, sizeof lo), flce_setting_text(s, s->hi, hi, sizeof hi);
            return flce_fail(e, FLCE_ERR_ARG, "--%s %s: must be %s%s %s, at most %s", s->flag, t, s->integer ? "a whole number " : "",
                             s->lo_open ? ">" : ">=", lo, hi);
        }
    }
    for (int i = 0; i < c->nset; i++)
        if (c->set[i].s == s || !strcmp(c->set[i].s->flag, s->flag)) {
            c->set[i].v = v;
            return FLCE_OK;
        }
    if (c->nset >= FLCE_MAX_SETTINGS) return flce_fail(e, FLCE_ERR_ARG, "--%s: too many method settings", s->flag);
    c->set[c->nset].s = s, c->set[c->nset].v = v, c->nset++;
    return FLCE_OK;
}

flce_status flce_run_cfg_set(flce_run_cfg *c, const flce_setting *s, const char *text, flce_err *e) {
    if (s->choices) {
        char w[64];
        for (int i = 0; *choice(s->choices, i, w, sizeof w); i++)
            if (!strcmp(w, text)) return flce_run_cfg_set_value(c, s, i, e);
        char list[128];
        snprintf(list, sizeof list, "%s", s->choices);
        for (char *p = list; *p; p++)
            if (*p == '|') *p = ',';
        return flce_fail(e, FLCE_ERR_ARG, "--%s '%.60s': one of %s", s->flag, text, list);
    }
    double v;
    const char *why = flce_number(text, &v);
    if (why) return flce_fail(e, FLCE_ERR_ARG, "--%s '%.60s': %s", s->flag, text, why);
    return flce_run_cfg_set_value(c, s, v, e);
}

double flce_run_cfg_get(const flce_run_cfg *c, const flce_setting *s) {
    for (int i = 0; i < c->nset; i++)
        if (c->set[i].s == s || !strcmp(c->set[i].s->flag, s->flag)) return c->set[i].v;
    return s->def;
}
