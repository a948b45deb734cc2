/* dataset.c: the readers of the four datasets (docs/formats.md), per-channel statistics,
 * seeded stratified subsets and normalised float32 samples.
 *   fmnist    IDX (gzip or raw): train-images-idx3-ubyte[.gz] etc., 1x28x28, 10 classes
 *   cifar10   binary version: data_batch_1..5.bin, test_batch.bin; 1 label byte + 3072
 *   cifar100  binary version: train.bin, test.bin; coarse and fine label bytes + 3072
 *   eurosat   EuroSAT_RGB/<Class>/<Class>_<i>.jpg, 64x64 RGB, seeded stratified 80/20 split
 * Every reader checks sizes against the header or the record size before it copies a
 * byte, so a missing, truncated, oversized or corrupted file is one error line, never an
 * out-of-bounds read. */
#include "data.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <jpeglib.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>
#include <zlib.h>

static void split_free(flce_split *s) {
    free(s->pixels);
    free(s->labels);
    memset(s, 0, sizeof *s);
}

void flce_dataset_free(flce_dataset *ds) {
    split_free(&ds->train);
    split_free(&ds->test);
}

static int file_exists(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int dir_exists(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static uint32_t be32(const unsigned char *b) {
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* The whole content of a file, gunzipped when it starts with the gzip magic (every member
 * of a multi-member file, each checked to its end: the CRC-32 and length of its trailer must
 * be present and match, so a file cut anywhere, even in its 8-byte trailer, is an error, as
 * `gzip -t` says). At most max_out bytes of content; *out is malloc'd. */
static flce_status read_maybe_gz(const char *path, size_t max_out, uint8_t **out, size_t *out_len, flce_err *e) {
    *out = NULL, *out_len = 0;
    if (!file_exists(path)) return flce_fail(e, FLCE_ERR_IO, "%s: no such file", path);
    FILE *f = fopen(path, "rb");
    if (!f) return flce_fail(e, FLCE_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    uint8_t *in = NULL;
    size_t n = 0, cap = 0;
    struct stat fs; /* the file's size: one buffer, read once (a file that grows is still read to its end) */
    if (fstat(fileno(f), &fs) == 0 && S_ISREG(fs.st_mode) && fs.st_size > 0 && (uint64_t)fs.st_size < ((uint64_t)1 << 40) &&
        (uint64_t)fs.st_size < SIZE_MAX) {
        if (!(in = flce_huge(malloc((size_t)fs.st_size + 1), (size_t)fs.st_size + 1))) {
            fclose(f);
            return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", path);
        }
        cap = (size_t)fs.st_size + 1;
    }
    for (;;) {
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 1 << 16;
            uint8_t *t = realloc(in, nc);
            if (!t) {
                free(in), fclose(f);
                return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", path);
            }
            in = t, cap = nc;
        }
        size_t r = fread(in + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    int rerr = ferror(f);
    fclose(f);
    if (rerr) {
        free(in);
        return flce_fail(e, FLCE_ERR_IO, "%s: read error", path);
    }
    if (n < 2 || in[0] != 0x1f || in[1] != 0x8b) { /* not gzip: the bytes as they are */
        if (n > max_out) {
            free(in);
            return flce_fail(e, FLCE_ERR_FORMAT, "%s: oversized: more data than any header allows", path);
        }
        *out = in, *out_len = n;
        return FLCE_OK;
    }
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK) {
        free(in);
        return flce_fail(e, FLCE_ERR_NOMEM, "%s: cannot start zlib", path);
    }
    uint8_t *o = NULL;
    size_t olen = 0, ocap = 0;
    flce_status st = FLCE_OK;
    /* the first buffer sized by the last member's trailer (its length mod 2^32, a hint only:
     * wrong or multi-member, the buffer grows as before), so that a whole file is inflated
     * without copies; capped by what deflate can expand n bytes to and by 1 GiB */
    uint64_t hint = n >= 18 ? (uint64_t)in[n - 4] | (uint64_t)in[n - 3] << 8 | (uint64_t)in[n - 2] << 16 | (uint64_t)in[n - 1] << 24 : 0;
    if (hint > 0 && hint <= max_out && hint <= (uint64_t)n * 1032 && hint <= ((uint64_t)1 << 30) &&
        (o = flce_huge(malloc((size_t)hint + 1), (size_t)hint + 1))) /* refused: no hint (a damaged trailer may ask much) */
        ocap = (size_t)hint + 1; /* + 1: room left after the last byte, so that the trailer is read without a growth */
    z.next_in = in;
    z.avail_in = 0;
    size_t used = 0; /* input handed to zlib so far */
    for (;;) {
        if (z.avail_in == 0 && used < n) {
            size_t chunk = n - used > (1u << 30) ? (1u << 30) : n - used;
            z.next_in = in + used, z.avail_in = (uInt)chunk, used += chunk;
        }
        if (olen == ocap) {
            if (ocap >= max_out + 1) {
                st = flce_fail(e, FLCE_ERR_FORMAT, "%s: oversized: more data than any header allows", path);
                break;
            }
            size_t nc = ocap ? ocap * 2 : 1 << 20;
            if (nc > max_out + 1) nc = max_out + 1;
            uint8_t *t = realloc(o, nc);
            if (!t) {
                st = flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", path);
                break;
            }
            o = t, ocap = nc;
        }
        size_t room = ocap - olen > (1u << 30) ? (1u << 30) : ocap - olen;
        z.next_out = o + olen, z.avail_out = (uInt)room;
        int r = inflate(&z, Z_NO_FLUSH);
        olen += room - z.avail_out;
        if (r == Z_STREAM_END) {
            if (z.avail_in == 0 && used == n) break; /* the last member ended with its trailer */
            if (inflateReset(&z) != Z_OK) { /* another member follows */
                st = flce_fail(e, FLCE_ERR_FORMAT, "%s: corrupted gzip stream", path);
                break;
            }
            continue;
        }
        if (r == Z_OK) continue;
        if (r == Z_BUF_ERROR && z.avail_in == 0 && used == n) {
            st = flce_fail(e, FLCE_ERR_FORMAT, "%s: truncated gzip stream (ends before its end and CRC trailer)", path);
            break;
        }
        if (r == Z_BUF_ERROR) continue; /* output full: grow */
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: corrupted gzip stream: %s", path, z.msg ? z.msg : "invalid data");
        break;
    }
    inflateEnd(&z);
    free(in);
    if (!st && olen > max_out) st = flce_fail(e, FLCE_ERR_FORMAT, "%s: oversized: more data than any header allows", path);
    if (st) {
        free(o);
        return st;
    }
    *out = o, *out_len = olen;
    return FLCE_OK;
}

/* An IDX file read whole: its header of hlen bytes (hlen / 4 big-endian words) with the magic
 * asked for, into dims (dims[0] the magic); a check of the sizes by the caller's `plausible`
 * (implausible: a one-line message); then exactly `payload(dims)` bytes after the header,
 * moved to the front of *out. */
static flce_status read_idx(const char *path, const char *what, uint32_t magic, size_t hlen, size_t max, uint32_t *dims,
                            int (*plausible)(const uint32_t *dims, size_t *payload), uint8_t **out, flce_err *e) {
    uint8_t *b;
    size_t len, want;
    *out = NULL;
    flce_status st = read_maybe_gz(path, max, &b, &len, e);
    if (st) return st;
    if (len < hlen) st = flce_fail(e, FLCE_ERR_FORMAT, "%s: truncated: shorter than the %zu-byte IDX %s header", path, hlen, what);
    else if (be32(b) != magic)
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: not an IDX %s file (magic %08x, expected %08x)", path, what, be32(b), magic);
    if (!st) {
        for (size_t i = 0; i < hlen / 4; i++) dims[i] = be32(b + 4 * i);
        if (!plausible(dims, &want)) st = flce_fail(e, FLCE_ERR_FORMAT, "%s: implausible IDX %s dimensions", path, what);
        else if (len - hlen < want)
            st = flce_fail(e, FLCE_ERR_FORMAT, "%s: truncated: %zu of %zu bytes after the header", path, len - hlen, want);
        else if (len - hlen > want) st = flce_fail(e, FLCE_ERR_FORMAT, "%s: oversized: more data than its header says", path);
    }
    if (st) {
        free(b);
        return st;
    }
    memmove(b, b + hlen, want);
    *out = b;
    return FLCE_OK;
}

static int images_ok(const uint32_t *d, size_t *payload) {
    *payload = (size_t)d[1] * d[2] * d[3];
    return d[1] && d[1] <= 10000000u && d[2] && d[2] <= 1024 && d[3] && d[3] <= 1024;
}

static int labels_ok(const uint32_t *d, size_t *payload) {
    *payload = d[1];
    return d[1] && d[1] <= 10000000u;
}

flce_status flce_read_idx_images(const char *path, flce_split *s, flce_err *e) {
    uint32_t d[4];
    uint8_t *b;
    flce_status st = read_idx(path, "image", 0x00000803u, 16, (size_t)1 << 32, d, images_ok, &b, e);
    if (st) return st;
    free(s->pixels);
    s->pixels = b;
    s->n = (int)d[1];
    s->c = 1;
    s->h = (int)d[2];
    s->w = (int)d[3];
    return FLCE_OK;
}

flce_status flce_read_idx_labels(const char *path, int classes, flce_split *s, flce_err *e) {
    uint32_t d[2];
    uint8_t *b;
    flce_status st = read_idx(path, "label", 0x00000801u, 8, 8 + (size_t)10000000, d, labels_ok, &b, e);
    if (st) return st;
    uint32_t n = d[1];
    for (uint32_t i = 0; !st && i < n; i++)
        if (b[i] >= classes)
            st = flce_fail(e, FLCE_ERR_FORMAT, "%s: label %u of record %u out of range (0..%d)", path, b[i], i, classes - 1);
    if (!st && s->pixels && (uint32_t)s->n != n) st = flce_fail(e, FLCE_ERR_FORMAT, "%s: %u labels for %d images", path, n, s->n);
    if (st) {
        free(b);
        return st;
    }
    free(s->labels);
    s->labels = b;
    s->n = (int)n;
    s->classes = classes;
    return FLCE_OK;
}

/* Read a whole regular file of at most max_len bytes. */
static flce_status read_file(const char *path, size_t max_len, unsigned char **buf, size_t *len,
                             flce_err *e) {
    *buf = NULL;
    *len = 0;
    if (!file_exists(path)) return flce_fail(e, FLCE_ERR_IO, "%s: no such file", path);
    FILE *f = fopen(path, "rb");
    if (!f) return flce_fail(e, FLCE_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    flce_status st = FLCE_OK;
    if (fseek(f, 0, SEEK_END) != 0) {
        st = flce_fail(e, FLCE_ERR_IO, "%s: cannot seek", path);
        goto out;
    }
    long sz = ftell(f);
    if (sz < 0 || (unsigned long)sz > max_len) {
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: oversized: %ld bytes (at most %zu)", path, sz, max_len);
        goto out;
    }
    rewind(f);
    *buf = malloc((size_t)sz + 1);
    if (!*buf) {
        st = flce_fail(e, FLCE_ERR_NOMEM, "%s: cannot allocate %ld bytes", path, sz);
        goto out;
    }
    if (fread(*buf, 1, (size_t)sz, f) != (size_t)sz) {
        st = flce_fail(e, FLCE_ERR_IO, "%s: read failed", path);
        free(*buf);
        *buf = NULL;
        goto out;
    }
    *len = (size_t)sz;
out:
    fclose(f);
    return st;
}

/* Append the records of one CIFAR binary file to s (label_bytes 1: CIFAR-10, 2: CIFAR-100,
 * where the second byte is the fine label). */
flce_status flce_read_cifar_bin(const char *path, int label_bytes, int classes, int max_records,
                                flce_split *s, flce_err *e) {
    const size_t img = 3072, rec = img + (size_t)label_bytes;
    unsigned char *buf;
    size_t len;
    flce_status st = read_file(path, rec * (size_t)max_records, &buf, &len, e);
    if (st) return st;
    if (len == 0 || len % rec != 0) {
        free(buf);
        return flce_fail(e, FLCE_ERR_FORMAT,
                         "%s: truncated: %zu bytes is not a whole number of %zu-byte records", path, len, rec);
    }
    size_t m = len / rec;
    for (size_t i = 0; i < m; i++) {
        const unsigned char *r = buf + i * rec;
        if (label_bytes == 2 && r[0] >= 20)
            st = flce_fail(e, FLCE_ERR_FORMAT, "%s: coarse label %u of record %zu out of range (0..19)", path,
                           r[0], i);
        else if (r[label_bytes - 1] >= classes)
            st = flce_fail(e, FLCE_ERR_FORMAT, "%s: label %u of record %zu out of range (0..%d)", path,
                           r[label_bytes - 1], i, classes - 1);
        if (st) {
            free(buf);
            return st;
        }
    }
    size_t n0 = (size_t)s->n;
    uint8_t *px = realloc(s->pixels, (n0 + m) * img);
    if (!px) {
        free(buf);
        return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", path);
    }
    s->pixels = px;
    uint8_t *lb = realloc(s->labels, n0 + m);
    if (!lb) {
        free(buf);
        return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", path);
    }
    s->labels = lb;
    for (size_t i = 0; i < m; i++) {
        const unsigned char *r = buf + i * rec;
        s->labels[n0 + i] = r[label_bytes - 1];
        memcpy(s->pixels + (n0 + i) * img, r + label_bytes, img);
    }
    s->n = (int)(n0 + m);
    s->c = 3;
    s->h = 32;
    s->w = 32;
    s->classes = classes;
    free(buf);
    return FLCE_OK;
}

/* ---- JPEG (libjpeg), with errors and warnings turned into one error line ---------- */
struct jerr {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    char msg[JMSG_LENGTH_MAX];
};

static void jerr_exit(j_common_ptr cinfo) {
    struct jerr *je = (struct jerr *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, je->msg);
    longjmp(je->jump, 1);
}

static void jerr_emit(j_common_ptr cinfo, int level) {
    if (level < 0) jerr_exit(cinfo); /* a warning means corrupt or truncated data: reject */
}

flce_status flce_read_jpeg_rgb(const char *path, int want_h, int want_w, uint8_t *chw, flce_err *e) {
    unsigned char *buf;
    size_t len;
    flce_status st = read_file(path, 16u << 20, &buf, &len, e);
    if (st) return st;
    struct jpeg_decompress_struct ci;
    struct jerr je;
    unsigned char *volatile row = NULL; /* volatile: set after setjmp, freed after a longjmp */
    ci.err = jpeg_std_error(&je.mgr);
    je.mgr.error_exit = jerr_exit;
    je.mgr.emit_message = jerr_emit;
    jpeg_create_decompress(&ci);
    if (setjmp(je.jump)) {
        jpeg_destroy_decompress(&ci);
        free(buf);
        free((void *)row);
        return flce_fail(e, FLCE_ERR_FORMAT, "%s: corrupted JPEG: %s", path, je.msg);
    }
    jpeg_mem_src(&ci, buf, (unsigned long)len);
    jpeg_read_header(&ci, TRUE);
    ci.out_color_space = JCS_RGB;
    jpeg_start_decompress(&ci);
    if ((int)ci.output_width != want_w || (int)ci.output_height != want_h || ci.output_components != 3) {
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: image is %ux%u with %d channels, expected %dx%d RGB", path,
                       ci.output_width, ci.output_height, ci.output_components, want_w, want_h);
        jpeg_destroy_decompress(&ci);
        free(buf);
        return st;
    }
    row = malloc((size_t)want_w * 3);
    if (!row) {
        jpeg_destroy_decompress(&ci);
        free(buf);
        return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", path);
    }
    while (ci.output_scanline < ci.output_height) {
        int y = (int)ci.output_scanline;
        JSAMPROW rp = (JSAMPROW)row;
        jpeg_read_scanlines(&ci, &rp, 1);
        for (int x = 0; x < want_w; x++)
            for (int c = 0; c < 3; c++) chw[(size_t)c * want_h * want_w + (size_t)y * want_w + x] = row[x * 3 + c];
    }
    jpeg_finish_decompress(&ci);
    jpeg_destroy_decompress(&ci);
    free((void *)row);
    free(buf);
    return FLCE_OK;
}

/* ---- the four datasets ------------------------------------------------------------ */
static const char *EUROSAT_CLASSES[10] = {"AnnualCrop",  "Forest",        "HerbaceousVegetation",
                                          "Highway",     "Industrial",    "Pasture",
                                          "PermanentCrop", "Residential", "River", "SeaLake"};

/* dir/name.gz when present, else dir/name when present, else dir/name.gz (for the message). */
static void idx_path(char *out, size_t cap, const char *dir, const char *name) {
    snprintf(out, cap, "%s/%s.gz", dir, name);
    if (file_exists(out)) return;
    snprintf(out, cap, "%s/%s", dir, name);
    if (file_exists(out)) return;
    snprintf(out, cap, "%s/%s.gz", dir, name);
}

static flce_status load_fmnist(flce_dataset *ds, const char *dir, uint64_t seed, flce_err *e) {
    (void)seed;
    char p[1100];
    flce_status st;
    idx_path(p, sizeof p, dir, "train-images-idx3-ubyte");
    if (!file_exists(p))
        return flce_fail(e, FLCE_ERR_IO, "%s: no Fashion-MNIST files here (train-images-idx3-ubyte[.gz] not found)", dir);
    if ((st = flce_read_idx_images(p, &ds->train, e))) return st;
    idx_path(p, sizeof p, dir, "train-labels-idx1-ubyte");
    if ((st = flce_read_idx_labels(p, 10, &ds->train, e))) return st;
    idx_path(p, sizeof p, dir, "t10k-images-idx3-ubyte");
    if ((st = flce_read_idx_images(p, &ds->test, e))) return st;
    idx_path(p, sizeof p, dir, "t10k-labels-idx1-ubyte");
    if ((st = flce_read_idx_labels(p, 10, &ds->test, e))) return st;
    if (ds->test.h != ds->train.h || ds->test.w != ds->train.w)
        return flce_fail(e, FLCE_ERR_FORMAT, "%s: training and test images differ in size", dir);
    return FLCE_OK;
}

static flce_status load_cifar10(flce_dataset *ds, const char *dir, uint64_t seed, flce_err *e) {
    (void)seed;
    char base[1024], p[1100];
    snprintf(base, sizeof base, "%s/cifar-10-batches-bin", dir);
    if (!dir_exists(base)) snprintf(base, sizeof base, "%s", dir);
    snprintf(p, sizeof p, "%s/data_batch_1.bin", base);
    if (!file_exists(p))
        return flce_fail(e, FLCE_ERR_IO, "%s: no CIFAR-10 binary files here (cifar-10-batches-bin/data_batch_1.bin not found)", dir);
    flce_status st;
    for (int b = 1; b <= 5; b++) {
        snprintf(p, sizeof p, "%s/data_batch_%d.bin", base, b);
        if ((st = flce_read_cifar_bin(p, 1, 10, 10000, &ds->train, e))) return st;
    }
    snprintf(p, sizeof p, "%s/test_batch.bin", base);
    return flce_read_cifar_bin(p, 1, 10, 10000, &ds->test, e);
}

static flce_status load_cifar100(flce_dataset *ds, const char *dir, uint64_t seed, flce_err *e) {
    (void)seed;
    char base[1024], p[1100];
    snprintf(base, sizeof base, "%s/cifar-100-binary", dir);
    if (!dir_exists(base)) snprintf(base, sizeof base, "%s", dir);
    snprintf(p, sizeof p, "%s/train.bin", base);
    if (!file_exists(p))
        return flce_fail(e, FLCE_ERR_IO, "%s: no CIFAR-100 binary files here (cifar-100-binary/train.bin not found)", dir);
    flce_status st = flce_read_cifar_bin(p, 2, 100, 50000, &ds->train, e);
    if (st) return st;
    snprintf(p, sizeof p, "%s/test.bin", base);
    return flce_read_cifar_bin(p, 2, 100, 10000, &ds->test, e);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The sorted names of the .jpg files in dir; *count = 0 and NULL when none. */
static flce_status list_jpgs(const char *dir, char ***names, int *count, flce_err *e) {
    *names = NULL;
    *count = 0;
    DIR *d = opendir(dir);
    if (!d) return flce_fail(e, FLCE_ERR_IO, "%s: cannot open class folder: %s", dir, strerror(errno));
    int cap = 0;
    struct dirent *de;
    flce_status st = FLCE_OK;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 5 || strcmp(de->d_name + l - 4, ".jpg") != 0) continue;
        if (*count == cap) {
            cap = cap ? cap * 2 : 256;
            char **nn = realloc(*names, (size_t)cap * sizeof *nn);
            if (!nn) { st = flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", dir); break; }
            *names = nn;
        }
        if (!((*names)[*count] = strdup(de->d_name))) { st = flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", dir); break; }
        (*count)++;
    }
    closedir(d);
    if (*count > 1) qsort(*names, (size_t)*count, sizeof **names, cmp_str);
    return st;
}

static void free_names(char **names, int count) {
    for (int i = 0; i < count; i++) free(names[i]);
    free(names);
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static flce_status load_eurosat(flce_dataset *ds, const char *dir, uint64_t seed, flce_err *e) {
    char base[1024], p[1400];
    snprintf(base, sizeof base, "%s/EuroSAT_RGB", dir);
    if (!dir_exists(base)) snprintf(base, sizeof base, "%s", dir);
    snprintf(p, sizeof p, "%s/%s", base, EUROSAT_CLASSES[0]);
    if (!dir_exists(p))
        return flce_fail(e, FLCE_ERR_IO, "%s: no EuroSAT class folders here (EuroSAT_RGB/AnnualCrop not found)", dir);
    const size_t img = 3 * 64 * 64;
    flce_split all = {0};
    flce_status st = FLCE_OK;
    int *class_start = NULL, *perm = NULL;
    int class_n[10] = {0};
    for (int c = 0; c < 10 && !st; c++) {
        char cdir[1200];
        snprintf(cdir, sizeof cdir, "%s/%s", base, EUROSAT_CLASSES[c]);
        if (!dir_exists(cdir)) { st = flce_fail(e, FLCE_ERR_IO, "%s: class folder missing", cdir); break; }
        char **names;
        int cnt;
        if ((st = list_jpgs(cdir, &names, &cnt, e))) break;
        if (cnt == 0) { st = flce_fail(e, FLCE_ERR_FORMAT, "%s: class folder holds no .jpg images", cdir); break; }
        uint8_t *px = realloc(all.pixels, ((size_t)all.n + (size_t)cnt) * img);
        uint8_t *lb = px ? realloc(all.labels, (size_t)all.n + (size_t)cnt) : NULL;
        if (px) all.pixels = px;
        if (lb) all.labels = lb;
        if (!px || !lb) { free_names(names, cnt); st = flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", cdir); break; }
        for (int i = 0; i < cnt && !st; i++) {
            snprintf(p, sizeof p, "%s/%s", cdir, names[i]);
            st = flce_read_jpeg_rgb(p, 64, 64, all.pixels + ((size_t)all.n + (size_t)i) * img, e);
            all.labels[all.n + i] = (uint8_t)c;
        }
        free_names(names, cnt);
        all.n += cnt;
        class_n[c] = cnt;
    }
    if (st) goto out;
    /* seeded stratified 80/20 split: per class, a permutation; its first floor(0.8 n_c) go to train */
    class_start = malloc(11 * sizeof *class_start);
    perm = malloc((size_t)all.n * sizeof *perm);
    int *train_idx = malloc((size_t)all.n * sizeof *train_idx), *test_idx = malloc((size_t)all.n * sizeof *test_idx);
    if (!class_start || !perm || !train_idx || !test_idx) {
        free(train_idx);
        free(test_idx);
        st = flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", dir);
        goto out;
    }
    int ntr = 0, nte = 0, start = 0;
    for (int c = 0; c < 10; c++) {
        flce_rng r;
        flce_rng_init(&r, seed, FLCE_RNG_SPLIT, 0, (uint32_t)c);
        flce_rng_permutation(&r, class_n[c], perm);
        int k = class_n[c] * 4 / 5;
        for (int i = 0; i < class_n[c]; i++) {
            if (i < k) train_idx[ntr++] = start + perm[i];
            else test_idx[nte++] = start + perm[i];
        }
        start += class_n[c];
    }
    qsort(train_idx, (size_t)ntr, sizeof(int), cmp_int);
    qsort(test_idx, (size_t)nte, sizeof(int), cmp_int);
    flce_split *dst[2] = {&ds->train, &ds->test};
    int *src[2] = {train_idx, test_idx}, cnt[2] = {ntr, nte};
    for (int s = 0; s < 2 && !st; s++) {
        flce_split *o = dst[s];
        o->n = cnt[s];
        o->c = 3;
        o->h = o->w = 64;
        o->classes = 10;
        o->pixels = malloc((size_t)(cnt[s] ? cnt[s] : 1) * img);
        o->labels = malloc((size_t)(cnt[s] ? cnt[s] : 1));
        if (!o->pixels || !o->labels) { st = flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", dir); break; }
        for (int i = 0; i < cnt[s]; i++) {
            memcpy(o->pixels + (size_t)i * img, all.pixels + (size_t)src[s][i] * img, img);
            o->labels[i] = all.labels[src[s][i]];
        }
    }
    free(train_idx);
    free(test_idx);
out:
    free(class_start);
    free(perm);
    split_free(&all);
    return st;
}

/* The datasets, named once: the --dataset names, their classes and readers. */
static const struct {
    const char *name;
    int classes;
    flce_status (*load)(flce_dataset *ds, const char *dir, uint64_t seed, flce_err *e);
} DATASETS[] = {
    {"fmnist", 10, load_fmnist}, {"cifar10", 10, load_cifar10}, {"cifar100", 100, load_cifar100}, {"eurosat", 10, load_eurosat},
};
#define NDATASETS ((int)(sizeof DATASETS / sizeof DATASETS[0]))

const char *flce_dataset_names(void) {
    static char buf[128];
    if (!buf[0])
        for (size_t i = 0, n = 0; i < NDATASETS; i++) flce_catf(buf, sizeof buf, &n, "%s%s", i ? ", " : "", DATASETS[i].name);
    return buf;
}

int flce_dataset_classes(const char *name) {
    for (int i = 0; i < NDATASETS; i++)
        if (!strcmp(name, DATASETS[i].name)) return DATASETS[i].classes;
    return 0;
}

/* The samples of split s that a seeded stratified subset of n keeps: keep[i] = 1 (keep: s->n bytes, zeroed). */
static flce_status subset_pick(const flce_split *s, int which, int n, uint64_t seed, uint8_t *keep, flce_err *e) {
    const char *flag = which ? "--test-subset" : "--train-subset";
    if (n < 1) return flce_fail(e, FLCE_ERR_ARG, "%s %d: must be at least 1", flag, n);
    if (n > s->n)
        return flce_fail(e, FLCE_ERR_ARG, "%s %d: larger than the %s split (%d samples)", flag, n,
                         which ? "test" : "training", s->n);
    int C = s->classes;
    int *counts = flce_calloc((size_t)C, sizeof(int)), *quota = flce_calloc((size_t)C, sizeof(int));
    int *members = malloc((size_t)s->n * sizeof(int)), *pick = malloc((size_t)s->n * sizeof(int));
    flce_status st = FLCE_OK;
    if (!counts || !quota || !members || !pick) {
        st = flce_fail(e, FLCE_ERR_NOMEM, "subset: out of memory");
        goto out;
    }
    flce_split_class_counts(s, counts);
    /* largest remainders: quota_c = floor(n c_c / N), the rest to the largest n c_c mod N */
    int given = 0;
    for (int c = 0; c < C; c++) {
        quota[c] = (int)((int64_t)n * counts[c] / s->n);
        given += quota[c];
    }
    while (given < n) {
        int best = -1;
        int64_t br = -1;
        for (int c = 0; c < C; c++) {
            int64_t rem = ((int64_t)n * counts[c]) % s->n;
            if (quota[c] < counts[c] && rem > br && quota[c] == (int)((int64_t)n * counts[c] / s->n)) {
                br = rem;
                best = c;
            }
        }
        if (best < 0) /* every remainder used: give to any class with room, lowest first */
            for (int c = 0; c < C && best < 0; c++)
                if (quota[c] < counts[c]) best = c;
        quota[best]++;
        given++;
    }
    for (int c = 0; c < C; c++) {
        int m = 0;
        for (int i = 0; i < s->n; i++)
            if (s->labels[i] == c) members[m++] = i;
        flce_rng r;
        flce_rng_init(&r, seed, FLCE_RNG_SUBSET, (uint32_t)which, (uint32_t)c);
        flce_rng_sample(&r, m, quota[c], pick);
        for (int j = 0; j < quota[c]; j++) keep[members[pick[j]]] = 1;
    }
out:
    free(counts);
    free(quota);
    free(members);
    free(pick);
    return st;
}

/* The subset of n samples of split s (n = 0: all of it) into d, from s's arrays (in place where
 * d == s) or into d's own; d left as it was on an error. */
static flce_status subset_into(flce_split *d, const flce_split *s, int which, int n, uint64_t seed, flce_err *e) {
    size_t img = (size_t)s->c * s->h * s->w;
    uint8_t *keep = flce_calloc((size_t)(s->n > 0 ? s->n : 1), 1);
    if (!keep) return flce_fail(e, FLCE_ERR_NOMEM, "subset: out of memory");
    flce_status st = FLCE_OK;
    if (n) st = subset_pick(s, which, n, seed, keep, e);
    else memset(keep, 1, (size_t)s->n), n = s->n;
    uint8_t *px = s->pixels, *lb = s->labels;
    if (!st && d != s && (!(px = flce_huge(malloc(img * (size_t)n + 1), img * (size_t)n + 1)) || !(lb = malloc((size_t)n + 1)))) {
        free(px);
        st = flce_fail(e, FLCE_ERR_NOMEM, "subset: out of memory");
    }
    if (!st) {
        int o = 0;
        for (int i = 0; i < s->n; i++) {
            if (!keep[i]) continue;
            if (px != s->pixels || o != i) memmove(px + (size_t)o * img, s->pixels + (size_t)i * img, img);
            lb[o++] = s->labels[i];
        }
        flce_split t = *s;
        t.pixels = px, t.labels = lb, t.n = o;
        *d = t;
    }
    free(keep);
    return st;
}

flce_status flce_dataset_subset(flce_dataset *ds, int which, int n, uint64_t seed, flce_err *e) {
    flce_split *s = which ? &ds->test : &ds->train;
    if (n < 1) return subset_pick(s, which, n, seed, NULL, e); /* the flag's error */
    return subset_into(s, s, which, n, seed, e);
}

/* flce_dataset_keep's copy: the last dataset read while on, the seed it was read with, its digest */
static struct {
    int on, valid;
    uint64_t seed, digest;
    flce_dataset ds;
} kept;

void flce_dataset_keep(int on) {
    kept.on = on;
    if (!on && kept.valid) flce_dataset_free(&kept.ds), kept.valid = 0;
}

uint64_t flce_dataset_digest(const flce_dataset *ds) {
    XXH3_state_t *h = XXH3_createState();
    if (!h) return 0;
    XXH3_64bits_reset(h);
    const flce_split *sp[2] = {&ds->train, &ds->test};
    for (int i = 0; i < 2; i++) {
        int32_t dims[5] = {sp[i]->n, sp[i]->c, sp[i]->h, sp[i]->w, sp[i]->classes};
        XXH3_64bits_update(h, dims, sizeof dims);
        XXH3_64bits_update(h, sp[i]->pixels, (size_t)sp[i]->n * sp[i]->c * sp[i]->h * sp[i]->w);
        XXH3_64bits_update(h, sp[i]->labels, (size_t)sp[i]->n);
    }
    uint64_t d = XXH3_64bits_digest(h);
    XXH3_freeState(h);
    return d;
}

/* The subsets of s (0: a whole split) into d, its own arrays; d left empty on an error. */
static flce_status dataset_subsets(flce_dataset *d, const flce_dataset *s, int train_n, int test_n, uint64_t seed, flce_err *e) {
    *d = *s;
    d->train.pixels = d->train.labels = d->test.pixels = d->test.labels = NULL;
    flce_status st = subset_into(&d->train, &s->train, 0, train_n, seed, e);
    if (!st) st = subset_into(&d->test, &s->test, 1, test_n, seed, e);
    if (st) flce_dataset_free(d);
    return st;
}

static int kept_has(const char *name, const char *dir, uint64_t seed) {
    return kept.on && kept.valid && kept.seed == seed && !strcmp(kept.ds.name, name) && !strcmp(kept.ds.dir, dir);
}

/* The folder a dataset is read from: dir where given, else the default place (fmnist's only:
 * FLCE_FMNIST_DIR in the environment where set and not empty, else data.h's; *env, where env is not
 * NULL, set to 1 then); NULL where there is none. */
static const char *data_dir(const char *name, const char *dir, int *env) {
    if (env) *env = 0;
    if (dir) return dir;
    if (strcmp(name, "fmnist") != 0) return NULL;
    const char *v = getenv("FLCE_FMNIST_DIR");
    if (!v || !*v) return FLCE_FMNIST_DIR;
    if (env) *env = 1;
    return v;
}

flce_status flce_dataset_load(flce_dataset *ds, const char *name, const char *dir, uint64_t seed,
                              flce_err *e) {
    memset(ds, 0, sizeof *ds);
    int env;
    if (!(dir = data_dir(name, dir, &env)))
        return flce_fail(e, FLCE_ERR_ARG, "--dataset %s needs --data DIR (only fmnist has a default place)", name);
    if (kept_has(name, dir, seed)) {
        if (dataset_subsets(ds, &kept.ds, 0, 0, seed, e))
            return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory for a copy of the dataset", dir);
        return FLCE_OK;
    }
    if (!dir_exists(dir))
        return flce_fail(e, FLCE_ERR_IO, "%s%s: no such directory (dataset %s)", env ? "FLCE_FMNIST_DIR=" : "", dir, name);
    snprintf(ds->name, sizeof ds->name, "%s", name);
    snprintf(ds->dir, sizeof ds->dir, "%s", dir);
    flce_status st = FLCE_ERR_ARG;
    int i = 0;
    while (i < NDATASETS && strcmp(name, DATASETS[i].name)) i++;
    if (i == NDATASETS) st = flce_fail(e, FLCE_ERR_ARG, "unknown dataset '%s' (%s)", name, flce_dataset_names());
    else st = DATASETS[i].load(ds, dir, seed, e);
    if (st) {
        flce_dataset_free(ds);
        return st;
    }
    ds->train.classes = ds->test.classes = ds->train.classes ? ds->train.classes : 10;
    flce_dataset_compute_stats(ds);
    if (kept.on) { /* the copy kept for the next load (none where memory is short: read again then) */
        if (kept.valid) flce_dataset_free(&kept.ds), kept.valid = 0;
        flce_err ignored;
        kept.valid = !dataset_subsets(&kept.ds, ds, 0, 0, seed, &ignored), kept.seed = seed;
        if (kept.valid && !(kept.digest = flce_dataset_digest(&kept.ds))) flce_dataset_free(&kept.ds), kept.valid = 0;
    }
    return FLCE_OK;
}

flce_status flce_dataset_load_subsets(flce_dataset *ds, const char *name, const char *dir, uint64_t seed, int train_n,
                                      int test_n, uint64_t *digest, flce_err *e) {
    const char *from = data_dir(name, dir, NULL);
    if (from && kept_has(name, from, seed)) { /* only the subsets copied */
        memset(ds, 0, sizeof *ds);
        *digest = kept.digest;
        return dataset_subsets(ds, &kept.ds, train_n, test_n, seed, e);
    }
    flce_status st = flce_dataset_load(ds, name, dir, seed, e);
    if (st) return st;
    if (kept_has(ds->name, ds->dir, seed)) *digest = kept.digest; /* the copy just kept: the same bytes, hashed */
    else if (!(*digest = flce_dataset_digest(ds))) st = flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    if (!st && train_n) st = flce_dataset_subset(ds, 0, train_n, seed, e);
    if (!st && test_n) st = flce_dataset_subset(ds, 1, test_n, seed, e);
    if (st) flce_dataset_free(ds);
    return st;
}

/* Integer sums are exact, so the statistics are the same on every machine. Summed in runs of at
 * most 65,536 pixels in 32 bits (65,536 x 255^2 < 2^32), which the compiler vectorises, then
 * into 64 bits: the same sums, Fashion-MNIST's 60,000 images in a few milliseconds rather than
 * about 25 (3% of a small run, and every process of the suites computes them). */
void flce_dataset_compute_stats(flce_dataset *ds) {
    const flce_split *s = &ds->train;
    size_t hw = (size_t)s->h * s->w;
    for (int c = 0; c < 3; c++) {
        ds->mean[c] = 0.0;
        ds->std[c] = 1.0;
    }
    if (s->n == 0 || hw == 0) return;
    for (int c = 0; c < s->c && c < 3; c++) {
        uint64_t sum = 0, sq = 0;
        for (int i = 0; i < s->n; i++) {
            const uint8_t *p = s->pixels + ((size_t)i * s->c + c) * hw;
            for (size_t j0 = 0; j0 < hw; j0 += 65536) {
                size_t j1 = hw - j0 < 65536 ? hw : j0 + 65536;
                uint32_t s32 = 0, q32 = 0;
                for (size_t j = j0; j < j1; j++) {
                    s32 += p[j];
                    q32 += (uint32_t)p[j] * p[j];
                }
                sum += s32, sq += q32;
            }
        }
        double cnt = (double)s->n * (double)hw;
        double m = (double)sum / cnt, var = (double)sq / cnt - m * m;
        ds->mean[c] = m / 255.0;
        ds->std[c] = var > 0.0 ? sqrt(var) / 255.0 : 1.0;
    }
}

void flce_split_class_counts(const flce_split *s, int *counts) {
    for (int c = 0; c < s->classes; c++) counts[c] = 0;
    for (int i = 0; i < s->n; i++) counts[s->labels[i]]++;
}

void flce_dataset_pixels_f32(const flce_dataset *ds, int nc, size_t hw, const uint8_t *p, float *out) {
    for (int c = 0; c < nc; c++) {
        float m = (float)ds->mean[c < 3 ? c : 0], sd = (float)ds->std[c < 3 ? c : 0];
        for (size_t j = 0; j < hw; j++) out[c * hw + j] = ((float)p[c * hw + j] * (1.0f / 255.0f) - m) / sd;
    }
}

void flce_dataset_sample_f32(const flce_dataset *ds, const flce_split *s, int i, float *out) {
    size_t hw = (size_t)s->h * s->w;
    flce_dataset_pixels_f32(ds, s->c, hw, s->pixels + (size_t)i * s->c * hw, out);
}

void flce_noise_released(const flce_split *s, const int32_t *index, int64_t n, double mult, uint64_t seed, uint8_t *out) {
    size_t chw = (size_t)s->c * s->h * s->w;
    double sum = 0, ss = 0, N = (double)n * (double)chw, lo = INFINITY, hi = -INFINITY;
    for (int64_t j = 0; j < n; j++) {
        const uint8_t *p = s->pixels + (size_t)index[j] * chw;
        for (size_t q = 0; q < chw; q++) sum += p[q];
    }
    double mean = N > 0 ? sum / N : 0;
    for (int64_t j = 0; j < n; j++) {
        const uint8_t *p = s->pixels + (size_t)index[j] * chw;
        for (size_t q = 0; q < chw; q++) ss += (p[q] - mean) * (p[q] - mean);
    }
    double sd = N > 0 ? sqrt(ss / N) * mult : 0;
    for (int pass = 0; pass < 2; pass++) /* the noisy values' range, then the same noise again, rescaled */
        for (int64_t j = 0; j < n; j++) {
            const uint8_t *p = s->pixels + (size_t)index[j] * chw;
            flce_rng r;
            flce_rng_init(&r, seed, FLCE_RNG_FEATURE_NOISE, 0, (uint32_t)index[j]);
            for (size_t q = 0; q < chw; q++) {
                double v = p[q] + flce_rng_normal(&r) * sd;
                if (!pass) lo = fmin(lo, v), hi = fmax(hi, v);
                else out[(size_t)j * chw + q] = (uint8_t)(hi > lo ? floor((v - lo) / (hi - lo) * 255) : 0);
            }
        }
}
