/* safetensors.c: see safetensors.h. The JSON parser accepts exactly the header's grammar
 * (objects, strings with simple escapes, arrays of non-negative integers) and checks
 * every offset against the data: sizes match dtype and shape, tensors do not overlap and
 * nothing lies outside the file. */
#include "safetensors.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

typedef struct {
    const char *s, *end;
} jc;

static void ws(jc *c) {
    while (c->s < c->end && (*c->s == ' ' || *c->s == '\n' || *c->s == '\r' || *c->s == '\t')) c->s++;
}

static int ch(jc *c, char x) {
    ws(c);
    if (c->s < c->end && *c->s == x) {
        c->s++;
        return 1;
    }
    return 0;
}

static int jstr(jc *c, char *out, size_t cap) {
    ws(c);
    if (c->s >= c->end || *c->s != '"') return 0;
    c->s++;
    size_t n = 0;
    while (c->s < c->end && *c->s != '"') {
        char v = *c->s++;
        if (v == '\\') {
            if (c->s >= c->end) return 0;
            char esc = *c->s++;
            if (esc == 'u') {
                if (c->end - c->s < 4) return 0;
                c->s += 4;
                v = '?';
            } else if (esc == 'n') v = '\n';
            else if (esc == 't') v = '\t';
            else if (esc == '"' || esc == '\\' || esc == '/') v = esc;
            else return 0;
        }
        if (n + 1 >= cap) return 0;
        out[n++] = v;
    }
    if (c->s >= c->end) return 0;
    c->s++;
    out[n] = '\0';
    return 1;
}

static int jints(jc *c, int64_t *v, int max, int *n) {
    *n = 0;
    if (!ch(c, '[')) return 0;
    if (ch(c, ']')) return 1;
    for (;;) {
        ws(c);
        if (c->s >= c->end || *c->s < '0' || *c->s > '9') return 0;
        int64_t x = 0;
        while (c->s < c->end && *c->s >= '0' && *c->s <= '9') {
            x = x * 10 + (*c->s++ - '0');
            if (x > ((int64_t)1 << 50)) return 0;
        }
        if (*n == max) return 0;
        v[(*n)++] = x;
        if (ch(c, ']')) return 1;
        if (!ch(c, ',')) return 0;
    }
}

static int cmp_name(const void *a, const void *b) { return strcmp(((const flce_st_entry *)a)->name, ((const flce_st_entry *)b)->name); }

static int cmp_begin(const void *a, const void *b) {
    const flce_st_entry *x = a, *y = b;
    return (x->begin > y->begin) - (x->begin < y->begin);
}

flce_status flce_st_read(const char *path, flce_st_file *f, flce_err *e) {
    memset(f, 0, sizeof *f);
    FILE *fp = fopen(path, "rb");
    if (!fp) return flce_fail(e, FLCE_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    flce_status st = FLCE_OK;
    char *hdr = NULL;
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
    jc c = {hdr, hdr + hl};
    int cap = 0;
    if (!ch(&c, '{')) {
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: header is not a JSON object", path);
        goto out;
    }
    if (!ch(&c, '}'))
        for (;;) {
            char key[256];
            if (!jstr(&c, key, sizeof key) || !ch(&c, ':') || !ch(&c, '{')) {
                st = flce_fail(e, FLCE_ERR_FORMAT, "%s: malformed header", path);
                goto out;
            }
            if (!strcmp(key, "__metadata__")) {
                if (!ch(&c, '}'))
                    for (;;) {
                        char k[256], v[1024];
                        if (!jstr(&c, k, sizeof k) || !ch(&c, ':') || !jstr(&c, v, sizeof v)) {
                            st = flce_fail(e, FLCE_ERR_FORMAT, "%s: malformed __metadata__", path);
                            goto out;
                        }
                        if (ch(&c, '}')) break;
                        if (!ch(&c, ',')) {
                            st = flce_fail(e, FLCE_ERR_FORMAT, "%s: malformed __metadata__", path);
                            goto out;
                        }
                    }
            } else {
                if (strlen(key) >= sizeof f->t[0].name) {
                    st = flce_fail(e, FLCE_ERR_FORMAT, "%s: tensor name too long: %.60s...", path, key);
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
                strcpy(t->name, key);
                int have = 0;
                if (!ch(&c, '}'))
                    for (;;) {
                        char k[32], v[32];
                        int64_t iv[8];
                        int ni;
                        if (!jstr(&c, k, sizeof k) || !ch(&c, ':')) {
                            st = flce_fail(e, FLCE_ERR_FORMAT, "%s: malformed entry of '%s'", path, key);
                            goto out;
                        }
                        if (!strcmp(k, "dtype")) {
                            if (!jstr(&c, v, sizeof v)) goto bad_entry;
                            if (!strcmp(v, "F32")) t->dtype = FLCE_ST_F32;
                            else if (!strcmp(v, "I64")) t->dtype = FLCE_ST_I64;
                            else {
                                st = flce_fail(e, FLCE_ERR_FORMAT, "%s: tensor '%s' has dtype %s (F32 or I64)", path, key, v);
                                goto out;
                            }
                            have |= 1;
                        } else if (!strcmp(k, "shape")) {
                            if (!jints(&c, t->shape, 8, &t->ndim)) goto bad_entry;
                            have |= 2;
                        } else if (!strcmp(k, "data_offsets")) {
                            if (!jints(&c, iv, 8, &ni) || ni != 2) goto bad_entry;
                            t->begin = (size_t)iv[0];
                            t->end = (size_t)iv[1];
                            have |= 4;
                        } else goto bad_entry;
                        if (ch(&c, '}')) break;
                        if (!ch(&c, ',')) goto bad_entry;
                    }
                if (have != 7) {
                bad_entry:
                    st = flce_fail(e, FLCE_ERR_FORMAT, "%s: malformed entry of tensor '%s'", path, key);
                    goto out;
                }
                size_t cnt = 1, want;
                int wrap = 0;
                for (int i = 0; i < t->ndim; i++) wrap |= __builtin_mul_overflow(cnt, (size_t)t->shape[i], &cnt);
                wrap |= __builtin_mul_overflow(cnt, (size_t)(t->dtype == FLCE_ST_F32 ? 4 : 8), &want);
                if (wrap) {
                    st = flce_fail(e, FLCE_ERR_FORMAT, "%s: tensor '%s': its shape's size does not fit in memory", path, key);
                    goto out;
                }
                if (t->end < t->begin || t->end > f->data_len || t->end - t->begin != want) {
                    st = flce_fail(e, FLCE_ERR_FORMAT, "%s: tensor '%s': offsets [%zu, %zu) do not hold its %zu bytes in %zu",
                                   path, key, t->begin, t->end, want, f->data_len);
                    goto out;
                }
            }
            if (ch(&c, '}')) break;
            if (!ch(&c, ',')) {
                st = flce_fail(e, FLCE_ERR_FORMAT, "%s: malformed header", path);
                goto out;
            }
        }
    ws(&c);
    if (c.s != c.end) {
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: trailing bytes after the header object", path);
        goto out;
    }
    {
        /* names once each (sorted, so 80,000 entries take milliseconds, not seconds), and the
         * data section covered exactly: the tensors, in offset order, start at 0, follow each
         * other without a gap or an overlap and end at its end (the format allows no holes; a
         * header length off by one would otherwise read every tensor one byte off) */
        flce_st_entry *sorted = malloc(sizeof *sorted * (size_t)(f->n ? f->n : 1));
        if (!sorted) {
            st = flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", path);
            goto out;
        }
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
    }
out:
    free(hdr);
    fclose(fp);
    if (st) flce_st_free(f);
    return st;
}

flce_status flce_st_write(const char *path, const flce_st_tensor *t, int n, const char *const *meta, int n_meta,
                          flce_err *e) {
    size_t cap = 256 + (size_t)n * 200 + (size_t)n_meta * 1200, len = 0, off = 0;
    char *h = malloc(cap);
    if (!h) return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", path);
    len += (size_t)snprintf(h + len, cap - len, "{");
    if (n_meta > 0) {
        len += (size_t)snprintf(h + len, cap - len, "\"__metadata__\":{");
        for (int i = 0; i < n_meta; i++)
            len += (size_t)snprintf(h + len, cap - len, "%s\"%s\":\"%s\"", i ? "," : "", meta[2 * i], meta[2 * i + 1]);
        len += (size_t)snprintf(h + len, cap - len, "}%s", n ? "," : "");
    }
    for (int i = 0; i < n; i++) {
        size_t cnt = 1;
        for (int d = 0; d < t[i].ndim; d++) cnt *= (size_t)t[i].shape[d];
        size_t bytes = cnt * (t[i].dtype == FLCE_ST_F32 ? 4 : 8);
        len += (size_t)snprintf(h + len, cap - len, "%s\"%s\":{\"dtype\":\"%s\",\"shape\":[", i ? "," : "", t[i].name,
                                t[i].dtype == FLCE_ST_F32 ? "F32" : "I64");
        for (int d = 0; d < t[i].ndim; d++)
            len += (size_t)snprintf(h + len, cap - len, "%s%lld", d ? "," : "", (long long)t[i].shape[d]);
        len += (size_t)snprintf(h + len, cap - len, "],\"data_offsets\":[%zu,%zu]}", off, off + bytes);
        off += bytes;
    }
    len += (size_t)snprintf(h + len, cap - len, "}");
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
