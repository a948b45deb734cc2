/* safetensors.c: see safetensors.h. The header is read and written with cJSON (Debian's
 * libcjson); what is ours are the checks of the format: each tensor's entry holds exactly
 * dtype, shape and data_offsets, every offset agrees with the data (sizes match dtype and
 * shape, no overlap, no gap, nothing outside the file), names occur once, and the header
 * ends with its object (padding spaces only). */
#include "safetensors.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

void flce_st_free(flce_st_file *f) {
    free(f->t);
    free(f->data);
    memset(f, 0, sizeof *f);
}

const flce_st_entry *flce_st_find(const flce_st_file *f, const char *name) {
    for (int i = 0; i < f->n; i++)
        if (!strcmp(f->t[i].name, name)) return &f->t[i];
    return NULL;
}

/* A JSON number that is a whole number from 0 to 2^50 (sizes and offsets). */
static int whole(const cJSON *v, int64_t *out) {
    if (!cJSON_IsNumber(v)) return 0;
    double d = v->valuedouble;
    if (!(d >= 0 && d <= (double)((int64_t)1 << 50)) || d != (double)(int64_t)d) return 0;
    *out = (int64_t)d;
    return 1;
}

/* [whole, ...] of at most max numbers into v, their count into *n. */
static int whole_list(const cJSON *a, int64_t *v, int max, int *n) {
    *n = 0;
    if (!cJSON_IsArray(a)) return 0;
    for (const cJSON *x = a->child; x; x = x->next)
        if (*n == max || !whole(x, &v[(*n)++])) return 0;
    return 1;
}

/* One tensor's entry: {"dtype": "F32"|"I64", "shape": [...], "data_offsets": [begin, end]},
 * each member once and nothing else; 0 and a message when not. */
static flce_status entry(const char *path, const cJSON *o, flce_st_entry *t, flce_err *e) {
    int have = 0;
    if (!cJSON_IsObject(o)) return flce_fail(e, FLCE_ERR_FORMAT, "%s: malformed entry of tensor '%s'", path, t->name);
    for (const cJSON *m = o->child; m; m = m->next) {
        int64_t iv[8];
        int ni, bit = !strcmp(m->string, "dtype") ? 1 : !strcmp(m->string, "shape") ? 2 : !strcmp(m->string, "data_offsets") ? 4 : 0;
        if (!bit || (have & bit)) return flce_fail(e, FLCE_ERR_FORMAT, "%s: malformed entry of tensor '%s'", path, t->name);
        have |= bit;
        if (bit == 1) {
            const char *v = cJSON_GetStringValue(m);
            if (!v) return flce_fail(e, FLCE_ERR_FORMAT, "%s: malformed entry of tensor '%s'", path, t->name);
            if (!strcmp(v, "F32")) t->dtype = FLCE_ST_F32;
            else if (!strcmp(v, "I64")) t->dtype = FLCE_ST_I64;
            else return flce_fail(e, FLCE_ERR_FORMAT, "%s: tensor '%s' has dtype %.20s (F32 or I64)", path, t->name, v);
        } else if (bit == 2) {
            if (!whole_list(m, t->shape, 8, &t->ndim)) return flce_fail(e, FLCE_ERR_FORMAT, "%s: malformed entry of tensor '%s'", path, t->name);
        } else {
            if (!whole_list(m, iv, 2, &ni) || ni != 2) return flce_fail(e, FLCE_ERR_FORMAT, "%s: malformed entry of tensor '%s'", path, t->name);
            t->begin = (size_t)iv[0];
            t->end = (size_t)iv[1];
        }
    }
    if (have != 7) return flce_fail(e, FLCE_ERR_FORMAT, "%s: malformed entry of tensor '%s'", path, t->name);
    return FLCE_OK;
}

static int cmp_name(const void *a, const void *b) { return strcmp(((const flce_st_entry *)a)->name, ((const flce_st_entry *)b)->name); }

static int cmp_begin(const void *a, const void *b) {
    const flce_st_entry *x = a, *y = b;
    return (x->begin > y->begin) - (x->begin < y->begin);
}

/* Names once each (sorted, so 80,000 entries take milliseconds, not seconds), and the data
 * section covered exactly: the tensors, in offset order, start at 0, follow each other without
 * a gap or an overlap and end at its end (the format allows no holes; a header length off by one
 * would otherwise read every tensor one byte off). */
static flce_status check_coverage(const char *path, const flce_st_file *f, flce_err *e) {
    flce_status st = FLCE_OK;
    flce_st_entry *sorted = malloc(sizeof *sorted * (size_t)(f->n ? f->n : 1));
    if (!sorted) return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", path);
    if (f->n) memcpy(sorted, f->t, sizeof *sorted * (size_t)f->n); /* f->t is NULL when there is no tensor */
    qsort(sorted, (size_t)f->n, sizeof *sorted, cmp_name);
    for (int i = 1; i < f->n && !st; i++)
        if (!strcmp(sorted[i].name, sorted[i - 1].name))
            st = flce_fail(e, FLCE_ERR_FORMAT, "%s: tensor '%s' twice", path, sorted[i].name);
    qsort(sorted, (size_t)f->n, sizeof *sorted, cmp_begin);
    size_t at = 0;
    for (int i = 0; i < f->n && !st; i++) {
        if (sorted[i].begin < at)
            st = flce_fail(e, FLCE_ERR_FORMAT, "%s: tensors '%s' and '%s' overlap", path, sorted[i - 1].name, sorted[i].name);
        else if (sorted[i].begin > at)
            st = flce_fail(e, FLCE_ERR_FORMAT, "%s: %zu bytes of the data section before tensor '%s' belong to no tensor",
                           path, sorted[i].begin - at, sorted[i].name);
        at = sorted[i].end;
    }
    if (!st && at != f->data_len)
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: the last %zu bytes of the data section belong to no tensor", path,
                       f->data_len - at);
    free(sorted);
    return st;
}

flce_status flce_st_read(const char *path, flce_st_file *f, flce_err *e) {
    memset(f, 0, sizeof *f);
    char why[96];
    FILE *fp = flce_fopen_regular(path, why, sizeof why);
    if (!fp) return flce_fail(e, FLCE_ERR_IO, "%s: cannot open: %s", path, why);
    flce_status st = FLCE_OK;
    char *hdr = NULL;
    cJSON *root = NULL;
    unsigned char l8[8];
    fseek(fp, 0, SEEK_END);
    long fsize = ftell(fp);
    rewind(fp);
    if (fsize < 8 || fread(l8, 1, 8, fp) != 8) {
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: not a safetensors file (shorter than 8 bytes)", path);
        goto out;
    }
    uint64_t hl = 0;
    for (int i = 7; i >= 0; i--) hl = hl << 8 | l8[i];
    if (hl < 2 || hl > (100u << 20) || hl > (uint64_t)fsize - 8) {
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: header length %llu does not fit the file", path, (unsigned long long)hl);
        goto out;
    }
    hdr = malloc(hl);
    if (!hdr || fread(hdr, 1, hl, fp) != hl) {
        st = flce_fail(e, FLCE_ERR_IO, "%s: cannot read the header", path);
        goto out;
    }
    f->data_len = (size_t)fsize - 8 - hl;
    f->data = malloc(f->data_len ? f->data_len : 1);
    if (!f->data || fread(f->data, 1, f->data_len, fp) != f->data_len) {
        st = flce_fail(e, FLCE_ERR_IO, "%s: cannot read the data", path);
        goto out;
    }
    /* the header: one JSON object (cJSON), then only the spaces that pad it */
    const char *end = NULL;
    root = cJSON_ParseWithLengthOpts(hdr, hl, &end, 0);
    if (!root || !cJSON_IsObject(root)) {
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: header is not a JSON object", path);
        goto out;
    }
    for (; end < hdr + hl; end++)
        if (*end != ' ' && *end != '\n' && *end != '\r' && *end != '\t') {
            st = flce_fail(e, FLCE_ERR_FORMAT, "%s: trailing bytes after the header object", path);
            goto out;
        }
    int cap = 0;
    for (const cJSON *m = root->child; m; m = m->next) {
        if (!strcmp(m->string, "__metadata__")) { /* string to string, nothing read from it */
            int ok = cJSON_IsObject(m);
            for (const cJSON *kv = ok ? m->child : NULL; kv; kv = kv->next) ok &= cJSON_IsString(kv);
            if (!ok) {
                st = flce_fail(e, FLCE_ERR_FORMAT, "%s: malformed __metadata__", path);
                goto out;
            }
            continue;
        }
        if (strlen(m->string) >= sizeof f->t[0].name) {
            st = flce_fail(e, FLCE_ERR_FORMAT, "%s: tensor name too long: %.60s...", path, m->string);
            goto out;
        }
        if (f->n == cap) {
            cap = cap ? cap * 2 : 64;
            flce_st_entry *nt = realloc(f->t, sizeof *nt * (size_t)cap);
            if (!nt) {
                st = flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", path);
                goto out;
            }
            f->t = nt;
        }
        flce_st_entry *t = &f->t[f->n++];
        memset(t, 0, sizeof *t);
        strcpy(t->name, m->string);
        if ((st = entry(path, m, t, e))) goto out;
        size_t cnt = 1, want;
        int wrap = 0;
        for (int i = 0; i < t->ndim; i++) wrap |= __builtin_mul_overflow(cnt, (size_t)t->shape[i], &cnt);
        wrap |= __builtin_mul_overflow(cnt, (size_t)(t->dtype == FLCE_ST_F32 ? 4 : 8), &want);
        if (wrap) {
            st = flce_fail(e, FLCE_ERR_FORMAT, "%s: tensor '%s': its shape's size does not fit in memory", path, t->name);
            goto out;
        }
        if (t->end < t->begin || t->end > f->data_len || t->end - t->begin != want) {
            st = flce_fail(e, FLCE_ERR_FORMAT, "%s: tensor '%s': offsets [%zu, %zu) do not hold its %zu bytes in %zu", path,
                           t->name, t->begin, t->end, want, f->data_len);
            goto out;
        }
    }
    st = check_coverage(path, f, e);
out:
    cJSON_Delete(root);
    free(hdr);
    fclose(fp);
    if (st) flce_st_free(f);
    return st;
}

flce_status flce_st_write(const char *path, const flce_st_tensor *t, int n, const char *const *meta, int n_meta,
                          flce_err *e) {
    cJSON *root = cJSON_CreateObject(), *md = n_meta > 0 ? cJSON_AddObjectToObject(root, "__metadata__") : NULL;
    int ok = root != NULL && (n_meta == 0 || md);
    for (int i = 0; ok && i < n_meta; i++) ok = cJSON_AddStringToObject(md, meta[2 * i], meta[2 * i + 1]) != NULL;
    size_t off = 0;
    for (int i = 0; ok && i < n; i++) {
        size_t cnt = 1;
        double sh[8];
        for (int d = 0; d < t[i].ndim; d++) cnt *= (size_t)t[i].shape[d], sh[d] = (double)t[i].shape[d];
        size_t bytes = cnt * (t[i].dtype == FLCE_ST_F32 ? 4 : 8);
        double offs[2] = {(double)off, (double)(off + bytes)};
        cJSON *o = cJSON_AddObjectToObject(root, t[i].name);
        ok = o && cJSON_AddStringToObject(o, "dtype", t[i].dtype == FLCE_ST_F32 ? "F32" : "I64") &&
             cJSON_AddItemToObject(o, "shape", flce_json_numbers(sh, t[i].ndim)) &&
             cJSON_AddItemToObject(o, "data_offsets", flce_json_numbers(offs, 2));
        off += bytes;
    }
    char *js = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    size_t len = js ? strlen(js) : 0;
    char *h = js ? realloc(js, len + 8) : NULL;
    if (!h) {
        free(js);
        return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", path);
    }
    while (len % 8) h[len++] = ' ';
    size_t total = 8 + len + off;
    unsigned char *buf = malloc(total);
    if (!buf) {
        free(h);
        return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", path);
    }
    for (int i = 0; i < 8; i++) buf[i] = (unsigned char)((uint64_t)len >> (8 * i));
    memcpy(buf + 8, h, len);
    size_t o = 8 + len;
    for (int i = 0; i < n; i++) {
        size_t cnt = 1;
        for (int d = 0; d < t[i].ndim; d++) cnt *= (size_t)t[i].shape[d];
        size_t bytes = cnt * (t[i].dtype == FLCE_ST_F32 ? 4 : 8);
        memcpy(buf + o, t[i].data, bytes);
        o += bytes;
    }
    flce_status st = flce_write_file_atomic(path, buf, total, e);
    free(buf);
    free(h);
    return st;
}
