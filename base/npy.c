/* npy.c: strict .npy reading and writing (see npy.h). The header is a Python dict
 * literal; we accept exactly the keys 'descr', 'fortran_order' and 'shape' (in any
 * order, each once), C order only, and the four dtypes of the trace format. */
#include "npy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t flce_npy_itemsize(flce_npy_dtype t) {
    return t == FLCE_NPY_F32 ? 4 : t == FLCE_NPY_U8 ? 1 : 8;
}

const char *flce_npy_dtype_name(flce_npy_dtype t) {
    switch (t) {
    case FLCE_NPY_F32: return "float32";
    case FLCE_NPY_F64: return "float64";
    case FLCE_NPY_I64: return "int64";
    case FLCE_NPY_U8: return "uint8";
    }
    return "?";
}

static const char *descr_of(flce_npy_dtype t) {
    switch (t) {
    case FLCE_NPY_F32: return "<f4";
    case FLCE_NPY_F64: return "<f8";
    case FLCE_NPY_I64: return "<i8";
    case FLCE_NPY_U8: return "|u1";
    }
    return "";
}

void flce_npy_free(flce_npy *a) {
    free(a->data);
    memset(a, 0, sizeof *a);
}

typedef struct {
    const char *s, *end;
} cursor;

static void skip_ws(cursor *c) {
    while (c->s < c->end && (*c->s == ' ' || *c->s == '\t')) c->s++;
}

static int expect_ch(cursor *c, char ch) {
    skip_ws(c);
    if (c->s < c->end && *c->s == ch) {
        c->s++;
        return 1;
    }
    return 0;
}

/* A quoted string into out (cap bytes). */
static int parse_str(cursor *c, char *out, size_t cap) {
    skip_ws(c);
    if (c->s >= c->end || (*c->s != '\'' && *c->s != '"')) return 0;
    char q = *c->s++;
    size_t n = 0;
    while (c->s < c->end && *c->s != q) {
        if (n + 1 >= cap) return 0;
        out[n++] = *c->s++;
    }
    if (c->s >= c->end) return 0;
    c->s++;
    out[n] = '\0';
    return 1;
}

static int parse_shape(cursor *c, flce_npy *a) {
    if (!expect_ch(c, '(')) return 0;
    a->ndim = 0;
    skip_ws(c);
    if (expect_ch(c, ')')) return 1;
    for (;;) {
        skip_ws(c);
        if (c->s >= c->end || *c->s < '0' || *c->s > '9') return 0;
        int64_t v = 0;
        while (c->s < c->end && *c->s >= '0' && *c->s <= '9') {
            v = v * 10 + (*c->s++ - '0');
            if (v > ((int64_t)1 << 40)) return 0;
        }
        if (a->ndim == FLCE_NPY_MAX_DIMS) return 0;
        a->shape[a->ndim++] = v;
        if (expect_ch(c, ')')) return 1;
        if (!expect_ch(c, ',')) return 0;
        if (expect_ch(c, ')')) return 1; /* trailing comma: (5,) */
    }
}

static flce_status parse_header(const char *path, const char *h, size_t len, flce_npy *a, flce_err *e) {
    if (len == 0 || h[len - 1] != '\n') return flce_fail(e, FLCE_ERR_FORMAT, "%s: .npy header does not end in a newline", path);
    cursor c = {h, h + len - 1};
    int have_descr = 0, have_fo = 0, have_shape = 0;
    if (!expect_ch(&c, '{')) return flce_fail(e, FLCE_ERR_FORMAT, "%s: .npy header is not a dict", path);
    for (;;) {
        if (expect_ch(&c, '}')) break;
        char key[32], val[32];
        if (!parse_str(&c, key, sizeof key) || !expect_ch(&c, ':'))
            return flce_fail(e, FLCE_ERR_FORMAT, "%s: malformed .npy header", path);
        if (!strcmp(key, "descr")) {
            if (have_descr++ || !parse_str(&c, val, sizeof val))
                return flce_fail(e, FLCE_ERR_FORMAT, "%s: malformed 'descr' in .npy header", path);
            if (!strcmp(val, "<f4")) a->dtype = FLCE_NPY_F32;
            else if (!strcmp(val, "<f8")) a->dtype = FLCE_NPY_F64;
            else if (!strcmp(val, "<i8")) a->dtype = FLCE_NPY_I64;
            else if (!strcmp(val, "|u1") || !strcmp(val, "<u1")) a->dtype = FLCE_NPY_U8;
            else
                return flce_fail(e, FLCE_ERR_FORMAT,
                                 "%s: dtype '%s' not supported (little-endian float32, float64, int64 or uint8)", path, val);
        } else if (!strcmp(key, "fortran_order")) {
            skip_ws(&c);
            if (have_fo++) return flce_fail(e, FLCE_ERR_FORMAT, "%s: 'fortran_order' twice in .npy header", path);
            if ((size_t)(c.end - c.s) >= 5 && !strncmp(c.s, "False", 5)) c.s += 5;
            else if ((size_t)(c.end - c.s) >= 4 && !strncmp(c.s, "True", 4))
                return flce_fail(e, FLCE_ERR_FORMAT, "%s: Fortran order not supported (write it in C order)", path);
            else return flce_fail(e, FLCE_ERR_FORMAT, "%s: malformed 'fortran_order' in .npy header", path);
        } else if (!strcmp(key, "shape")) {
            if (have_shape++ || !parse_shape(&c, a))
                return flce_fail(e, FLCE_ERR_FORMAT, "%s: malformed 'shape' in .npy header", path);
        } else {
            return flce_fail(e, FLCE_ERR_FORMAT, "%s: unexpected key '%s' in .npy header", path, key);
        }
        if (expect_ch(&c, '}')) break;
        if (!expect_ch(&c, ',')) return flce_fail(e, FLCE_ERR_FORMAT, "%s: malformed .npy header", path);
    }
    skip_ws(&c);
    if (c.s != c.end) return flce_fail(e, FLCE_ERR_FORMAT, "%s: trailing characters after the .npy header dict", path);
    if (!have_descr || !have_fo || !have_shape)
        return flce_fail(e, FLCE_ERR_FORMAT, "%s: .npy header lacks %s", path,
                         !have_descr ? "'descr'" : !have_fo ? "'fortran_order'" : "'shape'");
    return FLCE_OK;
}

flce_status flce_npy_read(const char *path, flce_npy *a, flce_err *e) {
    memset(a, 0, sizeof *a);
    char why[96];
    FILE *f = flce_fopen_regular(path, why, sizeof why);
    if (!f) return flce_fail(e, FLCE_ERR_IO, "%s: cannot open: %s", path, why);
    flce_status st = FLCE_OK;
    char *hdr = NULL;
    unsigned char pre[12];
    if (fseek(f, 0, SEEK_END) != 0) {
        st = flce_fail(e, FLCE_ERR_IO, "%s: cannot seek", path);
        goto out;
    }
    long fsize = ftell(f);
    rewind(f);
    if (fsize < 10 || fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: not a .npy file (no \\x93NUMPY magic)", path);
        goto out;
    }
    int major = pre[6];
    size_t hlen, off;
    if (major == 1) {
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
        off = 10;
    } else if (major == 2) {
        if (fread(pre + 10, 1, 2, f) != 2) {
            st = flce_fail(e, FLCE_ERR_FORMAT, "%s: truncated .npy preamble", path);
            goto out;
        }
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
        off = 12;
    } else {
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: .npy format version %d.%d not supported (1.0 or 2.0)", path, major, pre[7]);
        goto out;
    }
    if (pre[7] != 0) {
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: .npy format version %d.%d not supported (1.0 or 2.0)", path, major, pre[7]);
        goto out;
    }
    if (hlen > (1u << 20) || off + hlen > (size_t)fsize) {
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: truncated: header length %zu exceeds the file", path, hlen);
        goto out;
    }
    hdr = malloc(hlen + 1);
    if (!hdr || fread(hdr, 1, hlen, f) != hlen) {
        st = flce_fail(e, FLCE_ERR_IO, "%s: cannot read the .npy header", path);
        goto out;
    }
    hdr[hlen] = '\0';
    if ((st = parse_header(path, hdr, hlen, a, e))) goto out;
    int64_t count = 1;
    for (int i = 0; i < a->ndim; i++) {
        if (a->shape[i] > 0 && count > ((int64_t)1 << 40) / a->shape[i]) {
            st = flce_fail(e, FLCE_ERR_FORMAT, "%s: shape too large", path);
            goto out;
        }
        count *= a->shape[i];
    }
    a->count = count;
    size_t nbytes = (size_t)count * flce_npy_itemsize(a->dtype), have = (size_t)fsize - off - hlen;
    if (have != nbytes) {
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: %s: %zu data bytes, the header says %zu", path,
                       have < nbytes ? "truncated" : "oversized", have, nbytes);
        goto out;
    }
    a->data = malloc(nbytes ? nbytes : 1);
    if (!a->data) {
        st = flce_fail(e, FLCE_ERR_NOMEM, "%s: cannot allocate %zu bytes", path, nbytes);
        goto out;
    }
    if (fread(a->data, 1, nbytes, f) != nbytes) {
        st = flce_fail(e, FLCE_ERR_IO, "%s: read failed", path);
        goto out;
    }
out:
    free(hdr);
    fclose(f);
    if (st) flce_npy_free(a);
    return st;
}

flce_status flce_npy_expect(const char *path, const flce_npy *a, flce_npy_dtype dtype, int ndim,
                            const int64_t *want, flce_err *e) {
    if (a->dtype != dtype)
        return flce_fail(e, FLCE_ERR_FORMAT, "%s: dtype %s, expected %s", path, flce_npy_dtype_name(a->dtype),
                         flce_npy_dtype_name(dtype));
    char got[160] = "(", exp[160] = "(";
    for (int i = 0; i < a->ndim; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%lld", i ? ", " : "", (long long)a->shape[i]);
    for (int i = 0; i < ndim; i++) {
        if (want[i] < 0) snprintf(exp + strlen(exp), sizeof exp - strlen(exp), "%s*", i ? ", " : "");
        else snprintf(exp + strlen(exp), sizeof exp - strlen(exp), "%s%lld", i ? ", " : "", (long long)want[i]);
    }
    strcat(got, ")");
    strcat(exp, ")");
    int ok = a->ndim == ndim;
    for (int i = 0; i < ndim && ok; i++) ok = want[i] < 0 || want[i] == a->shape[i];
    if (!ok) return flce_fail(e, FLCE_ERR_FORMAT, "%s: shape %s, expected %s", path, got, exp);
    return FLCE_OK;
}

size_t flce_npy_header(flce_npy_dtype dtype, int ndim, const int64_t *shape, unsigned char *buf, size_t cap) {
    char dict[512];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr_of(dtype));
    for (int i = 0; i < ndim; i++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%lld%s", (long long)shape[i], ndim == 1 ? "," : i + 1 < ndim ? ", " : "");
    n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    size_t pre = 10, total = pre + (size_t)n + 1;
    size_t pad = (64 - total % 64) % 64;
    size_t hlen = (size_t)n + pad + 1;
    if (pre + hlen > cap) return 0;
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8);
    memcpy(buf + pre, dict, (size_t)n);
    memset(buf + pre + n, ' ', pad);
    buf[pre + hlen - 1] = '\n';
    return pre + hlen;
}

flce_status flce_npy_write(const char *path, flce_npy_dtype dtype, int ndim, const int64_t *shape, const void *data,
                           flce_err *e) {
    if (ndim < 0 || ndim > FLCE_NPY_MAX_DIMS) return flce_fail(e, FLCE_ERR_ARG, "%s: %d dimensions", path, ndim);
    unsigned char hdr[640];
    size_t hl = flce_npy_header(dtype, ndim, shape, hdr, sizeof hdr);
    int64_t count = 1;
    for (int i = 0; i < ndim; i++) count *= shape[i];
    size_t nbytes = (size_t)count * flce_npy_itemsize(dtype);
    unsigned char *buf = malloc(hl + nbytes);
    if (!buf) return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", path);
    memcpy(buf, hdr, hl);
    if (nbytes) memcpy(buf + hl, data, nbytes);
    flce_status st = flce_write_file_atomic(path, buf, hl + nbytes, e);
    free(buf);
    return st;
}
