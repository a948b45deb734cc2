/* json.c: see json.h. */
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cJSON *flce_json_read(const char *path, size_t max_bytes, flce_status *st, flce_err *e) {
    char why[96];
    FILE *f = flce_fopen_regular(path, why, sizeof why);
    if (!f) {
        *st = flce_fail(e, FLCE_ERR_IO, "%s: cannot open: %s", path, why);
        return NULL;
    }
    char *b = malloc(max_bytes + 1);
    size_t n = b ? fread(b, 1, max_bytes + 1, f) : 0;
    int err = ferror(f);
    fclose(f);
    if (!b || err) {
        free(b);
        *st = flce_fail(e, b ? FLCE_ERR_IO : FLCE_ERR_NOMEM, "%s: cannot read", path);
        return NULL;
    }
    if (n > max_bytes) {
        free(b);
        *st = flce_fail(e, FLCE_ERR_FORMAT, "%s: larger than %zu bytes: not a file of this kind", path, max_bytes);
        return NULL;
    }
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithLengthOpts(b, n, &end, 0);
    int trailing = 0;
    for (const char *p = end; v && p < b + n; p++) trailing |= !(*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t');
    if (!v || trailing) {
        size_t at = (size_t)((v ? end : cJSON_GetErrorPtr()) - b);
        cJSON_Delete(v);
        free(b);
        *st = flce_fail(e, FLCE_ERR_FORMAT, "%s: not valid JSON (at byte %zu)", path, at <= n ? at : n);
        return NULL;
    }
    free(b);
    *st = FLCE_OK;
    return v;
}

flce_status flce_json_write(const char *path, const cJSON *v, flce_err *e) {
    char *s = cJSON_Print(v);
    if (!s) return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", path);
    size_t n = strlen(s);
    char *t = realloc(s, n + 2);
    if (!t) {
        free(s);
        return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", path);
    }
    t[n] = '\n', t[n + 1] = '\0';
    flce_status st = flce_write_file_atomic(path, t, n + 1, e);
    free(t);
    return st;
}

/* a number item's value: parsed (cJSON_Number) or written by flce_json_number (cJSON_Raw) */
static int num_value(const cJSON *x, double *v) {
    if (cJSON_IsNumber(x)) return *v = x->valuedouble, 1;
    if (cJSON_IsRaw(x) && x->valuestring) {
        char *end;
        *v = strtod(x->valuestring, &end);
        return end != x->valuestring && *end == '\0';
    }
    return 0;
}

int flce_json_equal(const cJSON *a, const cJSON *b) {
    if (!a || !b) return a == b;
    double va = 0, vb = 0;
    int na = num_value(a, &va), nb = num_value(b, &vb);
    if (na || nb) return na && nb && va == vb;
    if ((a->type & 0xff) != (b->type & 0xff)) return 0;
    if (cJSON_IsString(a)) return !strcmp(a->valuestring, b->valuestring);
    if (cJSON_IsObject(a)) { /* the same members with equal values, in any order */
        int na_ = 0, nb_ = 0;
        for (const cJSON *x = a->child; x; x = x->next, na_++)
            if (!flce_json_equal(x, cJSON_GetObjectItemCaseSensitive(b, x->string))) return 0;
        for (const cJSON *y = b->child; y; y = y->next) nb_++;
        return na_ == nb_;
    }
    if (cJSON_IsArray(a)) {
        const cJSON *x = a->child, *y = b->child;
        for (; x && y; x = x->next, y = y->next)
            if (!flce_json_equal(x, y)) return 0;
        return !x && !y;
    }
    return 1; /* null, true, false: the type says it all */
}

double flce_json_num(const cJSON *obj, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

const char *flce_json_str(const cJSON *obj, const char *key) {
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, key));
}

static void exact_text(double v, char *buf, size_t cap) {
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, cap, "%.*g", digits, v);
        if (strtod(buf, NULL) == v) return;
    }
}

cJSON *flce_json_number(double v) {
    if (!isfinite(v)) return NULL;
    char buf[40];
    exact_text(v, buf, sizeof buf);
    return cJSON_CreateRaw(buf);
}

cJSON *flce_json_add_number(cJSON *obj, const char *key, double v) {
    cJSON *n = flce_json_number(v);
    if (!n || !cJSON_AddItemToObject(obj, key, n)) {
        cJSON_Delete(n);
        return NULL;
    }
    return n;
}

cJSON *flce_json_numbers(const double *v, int n) {
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++) {
        cJSON *x = flce_json_number(v[i]);
        if (!x || !cJSON_AddItemToArray(a, x)) {
            cJSON_Delete(x);
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

void flce_json_exact(cJSON *t) {
    for (cJSON *c = t ? t->child : NULL; c; c = c->next) {
        if (cJSON_IsNumber(c)) {
            char buf[40];
            exact_text(c->valuedouble, buf, sizeof buf);
            char *r = cJSON_malloc(strlen(buf) + 1);
            if (!r) continue;
            strcpy(r, buf);
            c->type = cJSON_Raw;
            c->valuestring = r;
        } else flce_json_exact(c);
    }
}

/* (insertion sort of the linked list: the objects are small) */
void flce_json_sort(cJSON *j) {
    for (cJSON *m = j ? j->child : NULL; m; m = m->next) flce_json_sort(m);
    if (!cJSON_IsObject(j) || !j->child) return;
    cJSON *sorted = NULL, *m = j->child;
    while (m) {
        cJSON *next = m->next, **at = &sorted, *prev = NULL;
        while (*at && strcmp((*at)->string, m->string) <= 0) prev = *at, at = &(*at)->next;
        m->next = *at, m->prev = prev;
        if (*at) (*at)->prev = m;
        *at = m;
        m = next;
    }
    j->child = sorted;
    cJSON *last = sorted;
    while (last->next) last = last->next;
    sorted->prev = last; /* cJSON keeps the last member in the first one's prev */
}
