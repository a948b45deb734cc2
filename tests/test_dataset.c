/* test_dataset.c: the real Fashion-MNIST files, and the IDX, CIFAR and EuroSAT readers on
 * small files written here in exactly those formats, including truncated, oversized and
 * corrupted ones and labels out of range. Expected values are the bytes the test wrote. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>
#include <string.h>
#include <sys/stat.h>

#include "data.h"
#include "testutil.h"

Test(fmnist, real_files_have_60000_and_10000_balanced) {
    flce_dataset ds;
    flce_err e = {{0}};
    flce_status st = flce_dataset_load(&ds, "fmnist", NULL, 1, &e);
    cr_assert_eq(st, FLCE_OK, "%s", e.msg);
    cr_assert_eq(ds.train.n, 60000);
    cr_assert_eq(ds.test.n, 10000);
    cr_assert(ds.train.c == 1 && ds.train.h == 28 && ds.train.w == 28);
    int tr[10], te[10];
    flce_split_class_counts(&ds.train, tr);
    flce_split_class_counts(&ds.test, te);
    for (int c = 0; c < 10; c++) {
        cr_assert_eq(tr[c], 6000);
        cr_assert_eq(te[c], 1000);
    }
    /* published Fashion-MNIST statistics: mean 0.2860, std 0.3530 */
    cr_assert(fabs(ds.mean[0] - 0.2860) < 1e-3 && fabs(ds.std[0] - 0.3530) < 1e-3, "%g %g", ds.mean[0], ds.std[0]);
    /* stratified subsets keep the class proportions exactly when they divide */
    cr_assert_eq(flce_dataset_subset(&ds, 0, 1000, 1, &e), FLCE_OK);
    cr_assert_eq(flce_dataset_subset(&ds, 1, 500, 1, &e), FLCE_OK);
    flce_split_class_counts(&ds.train, tr);
    flce_split_class_counts(&ds.test, te);
    for (int c = 0; c < 10; c++) {
        cr_assert_eq(tr[c], 100);
        cr_assert_eq(te[c], 50);
    }
    cr_assert_eq(flce_dataset_subset(&ds, 0, 1001, 1, &e), FLCE_ERR_ARG);
    cr_assert(strstr(e.msg, "--train-subset 1001"), "%s", e.msg);
    flce_dataset_free(&ds);
}

/* flce_dataset_load_subsets (flce run's and flce truth's way in) against a load and the two
 * subsets made in place: the same samples, statistics and digest, whether the dataset is read
 * or taken from the copy flce_dataset_keep holds (then only the subsets are copied) */
static void expect_same_split(const flce_split *a, const flce_split *b) {
    cr_assert(a->n == b->n && a->c == b->c && a->h == b->h && a->w == b->w && a->classes == b->classes);
    cr_assert(memcmp(a->pixels, b->pixels, (size_t)a->n * a->c * a->h * a->w) == 0);
    cr_assert(memcmp(a->labels, b->labels, (size_t)a->n) == 0);
}

Test(fmnist, subsets_read_or_kept_are_the_same) {
    flce_dataset ref, got;
    flce_err e = {{0}};
    cr_assert_eq(flce_dataset_load(&ref, "fmnist", NULL, 3, &e), FLCE_OK, "%s", e.msg);
    uint64_t want = flce_dataset_digest(&ref);
    cr_assert_neq(want, 0);
    cr_assert_eq(flce_dataset_subset(&ref, 0, 333, 3, &e), FLCE_OK);
    cr_assert_eq(flce_dataset_subset(&ref, 1, 77, 3, &e), FLCE_OK);
    cr_assert_neq(flce_dataset_digest(&ref), want); /* the digest is of the data as read, not of the subsets */
    for (int keep = 0; keep < 2; keep++) {
        flce_dataset_keep(keep);
        for (int again = 0; again < 2; again++) { /* kept: read, then from the copy */
            uint64_t d = 0;
            cr_assert_eq(flce_dataset_load_subsets(&got, "fmnist", NULL, 3, 333, 77, &d, &e), FLCE_OK, "%s", e.msg);
            cr_assert_eq(d, want, "keep %d load %d: another digest", keep, again);
            expect_same_split(&got.train, &ref.train);
            expect_same_split(&got.test, &ref.test);
            cr_assert(got.mean[0] == ref.mean[0] && got.std[0] == ref.std[0]);
            flce_dataset_free(&got);
        }
        /* the whole splits where no subset is asked; a subset too large: the flag's error, nothing left */
        uint64_t d = 0;
        cr_assert_eq(flce_dataset_load_subsets(&got, "fmnist", NULL, 3, 0, 0, &d, &e), FLCE_OK, "%s", e.msg);
        cr_assert(got.train.n == 60000 && got.test.n == 10000 && d == want && flce_dataset_digest(&got) == want);
        flce_dataset_free(&got);
        cr_assert_eq(flce_dataset_load_subsets(&got, "fmnist", NULL, 3, 100, 10001, &d, &e), FLCE_ERR_ARG);
        cr_assert(strstr(e.msg, "--test-subset 10001"), "%s", e.msg);
        cr_assert(!got.train.pixels && !got.test.pixels && !got.train.labels && !got.test.labels);
    }
    flce_dataset_keep(0);
    flce_dataset_free(&ref);
}

/* ---- IDX -------------------------------------------------------------------------- */
static size_t idx_images(unsigned char *buf, uint32_t n, uint32_t r, uint32_t c, uint32_t magic) {
    uint32_t h[4] = {magic, n, r, c};
    for (int i = 0; i < 4; i++) {
        buf[4 * i] = (unsigned char)(h[i] >> 24);
        buf[4 * i + 1] = (unsigned char)(h[i] >> 16);
        buf[4 * i + 2] = (unsigned char)(h[i] >> 8);
        buf[4 * i + 3] = (unsigned char)h[i];
    }
    for (uint32_t i = 0; i < n * r * c; i++) buf[16 + i] = (unsigned char)(i * 7);
    return 16 + n * r * c;
}

Test(idx, reads_a_small_file_written_here) {
    char dir[64], p[128];
    tu_tmpdir(dir, sizeof dir);
    unsigned char buf[256];
    size_t len = idx_images(buf, 5, 2, 3, 0x803);
    snprintf(p, sizeof p, "%s/img.gz", dir);
    tu_write_gz(p, buf, len);
    flce_split s = {0};
    flce_err e = {{0}};
    cr_assert_eq(flce_read_idx_images(p, &s, &e), FLCE_OK, "%s", e.msg);
    cr_assert(s.n == 5 && s.h == 2 && s.w == 3 && s.c == 1);
    for (int i = 0; i < 30; i++) cr_assert_eq(s.pixels[i], (unsigned char)(i * 7));
    /* the same bytes uncompressed read the same */
    snprintf(p, sizeof p, "%s/img.raw", dir);
    tu_write(p, buf, len);
    flce_split s2 = {0};
    cr_assert_eq(flce_read_idx_images(p, &s2, &e), FLCE_OK, "%s", e.msg);
    cr_assert_eq(memcmp(s.pixels, s2.pixels, 30), 0);
    unsigned char lab[8 + 5] = {0, 0, 8, 1, 0, 0, 0, 5, 0, 9, 3, 1, 2};
    snprintf(p, sizeof p, "%s/lab.gz", dir);
    tu_write_gz(p, lab, sizeof lab);
    cr_assert_eq(flce_read_idx_labels(p, 10, &s, &e), FLCE_OK, "%s", e.msg);
    cr_assert(s.labels[1] == 9 && s.labels[4] == 2);
    free(s.pixels);
    free(s.labels);
    free(s2.pixels);
    tu_rm_rf(dir);
}

static void expect_idx_error(const char *path, int labels, const char *needle) {
    flce_split s = {0};
    flce_err e = {{0}};
    flce_status st = labels ? flce_read_idx_labels(path, 10, &s, &e) : flce_read_idx_images(path, &s, &e);
    cr_assert_neq(st, FLCE_OK, "%s should fail", path);
    cr_assert(strstr(e.msg, path), "message names the file: %s", e.msg);
    cr_assert(strstr(e.msg, needle), "message '%s' lacks '%s'", e.msg, needle);
    free(s.pixels);
    free(s.labels);
}

/* a file longer than any header of its kind allows is refused as it is read, raw or gzip (label
 * files: 8 + 10,000,000 bytes at most), not read whole first */
Test(idx, refuses_more_than_any_header_allows) {
    char dir[64], p[128];
    tu_tmpdir(dir, sizeof dir);
    size_t n = 8 + (size_t)10000000 + 1;
    unsigned char *buf = calloc(n, 1);
    cr_assert(buf);
    buf[2] = 8, buf[3] = 1, buf[7] = 5; /* magic 0x801, 5 labels */
    snprintf(p, sizeof p, "%s/big-labels", dir);
    tu_write(p, buf, n);
    expect_idx_error(p, 1, "oversized: more data than any header allows");
    snprintf(p, sizeof p, "%s/big-labels.gz", dir);
    tu_write_gz(p, buf, n);
    expect_idx_error(p, 1, "oversized: more data than any header allows");
    free(buf);
}

Test(idx, rejects_bad_files_with_one_line) {
    char dir[64], p[128];
    tu_tmpdir(dir, sizeof dir);
    unsigned char buf[512];
    size_t len = idx_images(buf, 5, 2, 3, 0x803);
    snprintf(p, sizeof p, "%s/missing.gz", dir);
    expect_idx_error(p, 0, "no such file");
    snprintf(p, sizeof p, "%s/trunc.gz", dir);
    tu_write_gz(p, buf, len - 1);
    expect_idx_error(p, 0, "truncated");
    snprintf(p, sizeof p, "%s/short-header.gz", dir);
    tu_write_gz(p, buf, 10);
    expect_idx_error(p, 0, "truncated");
    snprintf(p, sizeof p, "%s/over.gz", dir);
    tu_write_gz(p, buf, len + 3);
    expect_idx_error(p, 0, "oversized");
    snprintf(p, sizeof p, "%s/magic.gz", dir);
    idx_images(buf, 5, 2, 3, 0x801);
    tu_write_gz(p, buf, len);
    expect_idx_error(p, 0, "magic");
    snprintf(p, sizeof p, "%s/dims.gz", dir);
    idx_images(buf, 5, 2, 3, 0x803);
    buf[8] = 0x7f; /* rows = huge */
    tu_write_gz(p, buf, len);
    expect_idx_error(p, 0, "implausible");
    unsigned char lab[13] = {0, 0, 8, 1, 0, 0, 0, 5, 0, 10, 3, 1, 2};
    snprintf(p, sizeof p, "%s/lab.gz", dir);
    tu_write_gz(p, lab, sizeof lab);
    expect_idx_error(p, 1, "out of range");

    /* a gzip stream with its middle overwritten: an error, never a crash */
    unsigned char big[4096];
    size_t blen = idx_images(big, 20, 10, 10, 0x803);
    snprintf(p, sizeof p, "%s/corrupt.gz", dir);
    tu_write_gz(p, big, blen);
    FILE *f = fopen(p, "r+b");
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, sz / 2, SEEK_SET);
    for (int i = 0; i < 16; i++) fputc(0xA5, f);
    fclose(f);
    flce_split s = {0};
    flce_err e = {{0}};
    cr_assert_neq(flce_read_idx_images(p, &s, &e), FLCE_OK);
    cr_assert(strstr(e.msg, p), "%s", e.msg);
    free(s.pixels);
    /* a gzip file cut short */
    snprintf(p, sizeof p, "%s/cut.gz", dir);
    tu_write_gz(p, big, blen);
    truncate(p, sz / 2);
    expect_idx_error(p, 0, "");
    /* only its 8-byte trailer (CRC-32, length) cut off: every data byte is there, and yet the
     * file is damaged (gzip -t fails); it was accepted */
    snprintf(p, sizeof p, "%s/notrailer.gz", dir);
    tu_write_gz(p, big, blen);
    f = fopen(p, "rb");
    fseek(f, 0, SEEK_END);
    long full = ftell(f);
    fclose(f);
    truncate(p, full - 8);
    expect_idx_error(p, 0, "truncated gzip stream");
    /* one bit of the CRC-32 flipped in a small label file: a corrupted stream (it was reported
     * as a truncated header) */
    unsigned char lab2[13] = {0, 0, 8, 1, 0, 0, 0, 5, 0, 9, 3, 1, 2};
    snprintf(p, sizeof p, "%s/crc.gz", dir);
    tu_write_gz(p, lab2, sizeof lab2);
    f = fopen(p, "r+b");
    fseek(f, -8, SEEK_END);
    int c0 = fgetc(f);
    fseek(f, -8, SEEK_END);
    fputc(c0 ^ 1, f);
    fclose(f);
    expect_idx_error(p, 1, "corrupted");
    /* the length in the trailer (the first buffer's size, a hint) far too large or too small:
     * corrupted, one line (the buffer is capped by what deflate can expand the file to) */
    for (int k = 0; k < 2; k++) {
        snprintf(p, sizeof p, "%s/isize%d.gz", dir, k);
        tu_write_gz(p, big, blen);
        f = fopen(p, "r+b");
        fseek(f, -1, SEEK_END);
        fputc(k ? 0xff : 0x00, f);
        fseek(f, -4, SEEK_END);
        if (!k) fputc(1, f), fputc(0, f), fputc(0, f);
        fclose(f);
        expect_idx_error(p, 0, "corrupted");
    }
    /* two gzip members, as `cat a.gz b.gz` makes: one file, read whole */
    size_t half = blen / 2;
    snprintf(p, sizeof p, "%s/m1.gz", dir);
    tu_write_gz(p, big, half);
    char p2[160];
    snprintf(p2, sizeof p2, "%s/m2.gz", dir);
    tu_write_gz(p2, big + half, blen - half);
    FILE *a1 = fopen(p, "ab"), *a2 = fopen(p2, "rb");
    int ch;
    while ((ch = fgetc(a2)) != EOF) fputc(ch, a1);
    fclose(a1), fclose(a2);
    flce_split sm = {0};
    cr_assert_eq(flce_read_idx_images(p, &sm, &e), FLCE_OK, "%s", e.msg);
    cr_assert(sm.n == 20 && memcmp(sm.pixels, big + 16, blen - 16) == 0);
    free(sm.pixels);
    tu_rm_rf(dir);
}

/* ---- CIFAR ------------------------------------------------------------------------ */
static void write_cifar(const char *path, int records, int label_bytes, int label0) {
    size_t rec = 3072 + (size_t)label_bytes;
    unsigned char *b = calloc((size_t)records, rec);
    for (int i = 0; i < records; i++) {
        unsigned char *r = b + (size_t)i * rec;
        if (label_bytes == 2) r[0] = (unsigned char)((label0 + i) % 20);
        r[label_bytes - 1] = (unsigned char)(label0 + i);
        for (int j = 0; j < 3072; j++) r[label_bytes + j] = (unsigned char)(i + j);
    }
    tu_write(path, b, (size_t)records * rec);
    free(b);
}

Test(cifar, cifar10_folder_written_here) {
    char dir[64], sub[128], p[192];
    tu_tmpdir(dir, sizeof dir);
    snprintf(sub, sizeof sub, "%s/cifar-10-batches-bin", dir);
    mkdir(sub, 0755);
    for (int b = 1; b <= 5; b++) {
        snprintf(p, sizeof p, "%s/data_batch_%d.bin", sub, b);
        write_cifar(p, 3, 1, b);
    }
    snprintf(p, sizeof p, "%s/test_batch.bin", sub);
    write_cifar(p, 2, 1, 0);
    flce_dataset ds;
    flce_err e = {{0}};
    cr_assert_eq(flce_dataset_load(&ds, "cifar10", dir, 1, &e), FLCE_OK, "%s", e.msg);
    cr_assert_eq(ds.train.n, 15);
    cr_assert_eq(ds.test.n, 2);
    cr_assert(ds.train.c == 3 && ds.train.h == 32 && ds.train.w == 32 && ds.train.classes == 10);
    /* record 4 is batch 2's record 1: label 2 + 1, pixel j = (1 + j) mod 256 */
    cr_assert_eq(ds.train.labels[4], 3);
    cr_assert_eq(ds.train.pixels[4 * 3072 + 1024], (unsigned char)(1 + 1024));
    flce_dataset_free(&ds);

    /* truncated record, label 10, missing batch */
    snprintf(p, sizeof p, "%s/data_batch_3.bin", sub);
    write_cifar(p, 3, 1, 0);
    truncate(p, 3 * 3073 - 5);
    cr_assert_neq(flce_dataset_load(&ds, "cifar10", dir, 1, &e), FLCE_OK);
    cr_assert(strstr(e.msg, "data_batch_3.bin") && strstr(e.msg, "truncated"), "%s", e.msg);
    write_cifar(p, 3, 1, 8); /* labels 8, 9, 10 */
    cr_assert_neq(flce_dataset_load(&ds, "cifar10", dir, 1, &e), FLCE_OK);
    cr_assert(strstr(e.msg, "data_batch_3.bin") && strstr(e.msg, "label 10"), "%s", e.msg);
    remove(p);
    cr_assert_neq(flce_dataset_load(&ds, "cifar10", dir, 1, &e), FLCE_OK);
    cr_assert(strstr(e.msg, "data_batch_3.bin") && strstr(e.msg, "no such file"), "%s", e.msg);
    cr_assert_neq(flce_dataset_load(&ds, "cifar10", "/nonexistent", 1, &e), FLCE_OK);
    cr_assert(strstr(e.msg, "/nonexistent"), "%s", e.msg);
    tu_rm_rf(dir);
}

Test(cifar, cifar100_uses_fine_labels_and_checks_both) {
    char dir[64], sub[128], p[192];
    tu_tmpdir(dir, sizeof dir);
    snprintf(sub, sizeof sub, "%s/cifar-100-binary", dir);
    mkdir(sub, 0755);
    snprintf(p, sizeof p, "%s/train.bin", sub);
    write_cifar(p, 4, 2, 96); /* fine 96..99 */
    snprintf(p, sizeof p, "%s/test.bin", sub);
    write_cifar(p, 1, 2, 50);
    flce_dataset ds;
    flce_err e = {{0}};
    cr_assert_eq(flce_dataset_load(&ds, "cifar100", dir, 1, &e), FLCE_OK, "%s", e.msg);
    cr_assert(ds.train.n == 4 && ds.test.n == 1 && ds.train.classes == 100);
    cr_assert(ds.train.labels[0] == 96 && ds.train.labels[3] == 99 && ds.test.labels[0] == 50);
    cr_assert_eq(ds.train.pixels[3072 * 2 + 5], 7);
    flce_dataset_free(&ds);
    snprintf(p, sizeof p, "%s/train.bin", sub);
    write_cifar(p, 4, 2, 97); /* fine 100 in record 3 */
    cr_assert_neq(flce_dataset_load(&ds, "cifar100", dir, 1, &e), FLCE_OK);
    cr_assert(strstr(e.msg, "train.bin") && strstr(e.msg, "label 100"), "%s", e.msg);
    tu_rm_rf(dir);
}

/* ---- EuroSAT ---------------------------------------------------------------------- */
/* A w x h RGB JPEG: a flat colour from seed (quality 100), or noise when seed < 0 (quality 95). */
static void write_jpeg(const char *path, int w, int h, int seed) {
    struct jpeg_compress_struct ci;
    struct jpeg_error_mgr jerr;
    ci.err = jpeg_std_error(&jerr);
    jpeg_create_compress(&ci);
    FILE *f = fopen(path, "wb");
    jpeg_stdio_dest(&ci, f);
    ci.image_width = (JDIMENSION)w;
    ci.image_height = (JDIMENSION)h;
    ci.input_components = 3;
    ci.in_color_space = JCS_RGB;
    jpeg_set_defaults(&ci);
    jpeg_set_quality(&ci, seed < 0 ? 95 : 100, TRUE);
    jpeg_start_compress(&ci, TRUE);
    unsigned char row[64 * 3];
    unsigned u = 12345;
    while (ci.next_scanline < ci.image_height) {
        for (int x = 0; x < w * 3; x++) {
            u = u * 1103515245u + 12345u;
            row[x] = seed < 0 ? (unsigned char)(u >> 16) : (unsigned char)(seed * 20 + (x % 3) * 60); /* noise or flat colour */
        }
        JSAMPROW rp = row;
        jpeg_write_scanlines(&ci, &rp, 1);
    }
    jpeg_finish_compress(&ci);
    jpeg_destroy_compress(&ci);
    fclose(f);
}

/* A 64x64 JPEG of noise (large scan data), cut to `keep` of its bytes: the decoder fails in
 * the middle of its scanlines, after the row buffer is allocated (issue 20, item 8: that buffer
 * leaked, a pointer kept across setjmp without volatile; the sanitizer build catches a leak). */
Test(eurosat, jpeg_cut_inside_the_scan_data, .timeout = FLCE_HANG_GUARD) {
    char dir[64], p[256];
    tu_tmpdir(dir, sizeof dir);
    snprintf(p, sizeof p, "%s/noise.jpg", dir);
    write_jpeg(p, 64, 64, -1);
    struct stat st;
    stat(p, &st);
    cr_assert(st.st_size > 4000, "the noise JPEG is only %lld bytes", (long long)st.st_size);
    uint8_t *chw = malloc(3 * 64 * 64);
    flce_err e = {{0}};
    cr_assert_eq(flce_read_jpeg_rgb(p, 64, 64, chw, &e), FLCE_OK, "%s", e.msg);
    truncate(p, st.st_size * 7 / 10);
    cr_assert_neq(flce_read_jpeg_rgb(p, 64, 64, chw, &e), FLCE_OK, "a JPEG cut at 70%% was read");
    cr_assert(strstr(e.msg, "noise.jpg") && strstr(e.msg, "corrupted"), "%s", e.msg);
    free(chw);
    tu_rm_rf(dir);
}

static const char *CLS[10] = {"AnnualCrop", "Forest", "HerbaceousVegetation", "Highway", "Industrial",
                              "Pasture", "PermanentCrop", "Residential", "River", "SeaLake"};

static void make_eurosat(const char *dir, int per_class) {
    char p[256];
    snprintf(p, sizeof p, "%s/EuroSAT_RGB", dir);
    mkdir(p, 0755);
    for (int c = 0; c < 10; c++) {
        snprintf(p, sizeof p, "%s/EuroSAT_RGB/%s", dir, CLS[c]);
        mkdir(p, 0755);
        for (int i = 1; i <= per_class; i++) {
            snprintf(p, sizeof p, "%s/EuroSAT_RGB/%s/%s_%d.jpg", dir, CLS[c], CLS[c], i);
            write_jpeg(p, 64, 64, c);
        }
    }
}

Test(eurosat, stratified_split_of_jpegs_written_here, .timeout = FLCE_HANG_GUARD) {
    char dir[64], p[256];
    tu_tmpdir(dir, sizeof dir);
    make_eurosat(dir, 5);
    flce_dataset a, b;
    flce_err e = {{0}};
    cr_assert_eq(flce_dataset_load(&a, "eurosat", dir, 1, &e), FLCE_OK, "%s", e.msg);
    cr_assert_eq(a.train.n, 40);
    cr_assert_eq(a.test.n, 10);
    int tr[10], te[10];
    flce_split_class_counts(&a.train, tr);
    flce_split_class_counts(&a.test, te);
    for (int k = 0; k < 10; k++) cr_assert(tr[k] == 4 && te[k] == 1);
    /* flat colours survive JPEG at quality 100 to within 2 levels: red channel = 20 c */
    for (int i = 0; i < a.train.n; i++) {
        int lab = a.train.labels[i], red = a.train.pixels[(size_t)i * 3 * 4096 + 100];
        cr_assert(abs(red - 20 * lab) <= 2, "sample %d class %d red %d", i, lab, red);
    }
    /* same seed, same split (split_depends_on_seed checks other seeds) */
    cr_assert_eq(flce_dataset_load(&b, "eurosat", dir, 1, &e), FLCE_OK);
    cr_assert_eq(memcmp(a.test.pixels, b.test.pixels, 10 * 3 * 4096), 0);
    flce_dataset_free(&a);
    flce_dataset_free(&b);

    /* a truncated JPEG, a wrong size, a missing class folder */
    snprintf(p, sizeof p, "%s/EuroSAT_RGB/Forest/Forest_3.jpg", dir);
    struct stat st;
    stat(p, &st);
    truncate(p, st.st_size / 2);
    cr_assert_neq(flce_dataset_load(&a, "eurosat", dir, 1, &e), FLCE_OK);
    cr_assert(strstr(e.msg, "Forest_3.jpg"), "%s", e.msg);
    write_jpeg(p, 32, 32, 1);
    cr_assert_neq(flce_dataset_load(&a, "eurosat", dir, 1, &e), FLCE_OK);
    cr_assert(strstr(e.msg, "Forest_3.jpg") && strstr(e.msg, "32x32"), "%s", e.msg);
    tu_write(p, "not a jpeg at all", 17);
    cr_assert_neq(flce_dataset_load(&a, "eurosat", dir, 1, &e), FLCE_OK);
    cr_assert(strstr(e.msg, "Forest_3.jpg") && strstr(e.msg, "corrupted"), "%s", e.msg);
    write_jpeg(p, 64, 64, 1);
    snprintf(p, sizeof p, "rm -rf '%s/EuroSAT_RGB/River'", dir);
    cr_assert_eq(system(p), 0);
    cr_assert_neq(flce_dataset_load(&a, "eurosat", dir, 1, &e), FLCE_OK);
    cr_assert(strstr(e.msg, "River"), "%s", e.msg);
    tu_rm_rf(dir);
}

Test(eurosat, split_depends_on_seed) {
    /* distinguishable images: class 0 only, image i has red = 10 i; the test image of
     * class 0 is the one the seeded permutation put last */
    char dir[64], p[256];
    tu_tmpdir(dir, sizeof dir);
    make_eurosat(dir, 5);
    for (int i = 1; i <= 5; i++) {
        snprintf(p, sizeof p, "%s/EuroSAT_RGB/AnnualCrop/AnnualCrop_%d.jpg", dir, i);
        write_jpeg(p, 64, 64, i);
    }
    int seen[6] = {0}, distinct = 0;
    for (uint64_t s = 1; s <= 12; s++) {
        flce_dataset a;
        flce_err e = {{0}};
        cr_assert_eq(flce_dataset_load(&a, "eurosat", dir, s, &e), FLCE_OK, "%s", e.msg);
        int red = a.test.pixels[100]; /* test sample 0 is class 0 */
        int which = (red + 10) / 20;
        cr_assert(which >= 1 && which <= 5);
        if (!seen[which]++) distinct++;
        flce_dataset_free(&a);
    }
    cr_assert(distinct >= 3, "12 seeds chose only %d distinct test images", distinct);
    tu_rm_rf(dir);
}

Test(dataset, statistics_and_normalisation_by_hand) {
    /* 2 samples of 1x1x2: pixels {0, 255}, {255, 0}: mean 0.5, std 0.5 */
    flce_dataset ds = {0};
    unsigned char px[4] = {0, 255, 255, 0}, lb[2] = {0, 1};
    ds.train = (flce_split){2, 1, 1, 2, 2, px, lb};
    flce_dataset_compute_stats(&ds);
    cr_assert(fabs(ds.mean[0] - 0.5) < 1e-15 && fabs(ds.std[0] - 0.5) < 1e-15);
    float out[2];
    flce_dataset_sample_f32(&ds, &ds.train, 0, out);
    cr_assert(out[0] == -1.0f && out[1] == 1.0f);
}

Test(dataset, statistics_of_large_images_by_hand) {
    /* 2 samples of 1x300x300 (90,000 pixels a sample: more than the 65,536 that one 32-bit run of
     * squares holds at 255), all 255 and all 0: mean 0.5, std 0.5, as for the 2-pixel case */
    enum { HW = 300 * 300 };
    flce_dataset ds = {0};
    unsigned char *px = malloc(2 * (size_t)HW), lb[2] = {0, 1};
    cr_assert(px);
    memset(px, 255, HW);
    memset(px + HW, 0, HW);
    ds.train = (flce_split){2, 1, 300, 300, 2, px, lb};
    flce_dataset_compute_stats(&ds);
    cr_assert(fabs(ds.mean[0] - 0.5) < 1e-15 && fabs(ds.std[0] - 0.5) < 1e-15, "%.17g %.17g", ds.mean[0], ds.std[0]);
    free(px);
}

Test(dataset, unknown_name_and_missing_folder) {
    flce_dataset ds;
    flce_err e = {{0}};
    cr_assert_eq(flce_dataset_load(&ds, "mnist2", "/tmp", 1, &e), FLCE_ERR_ARG);
    cr_assert_eq(flce_dataset_load(&ds, "cifar10", NULL, 1, &e), FLCE_ERR_ARG);
    cr_assert(strstr(e.msg, "--data"), "%s", e.msg);
    cr_assert_eq(flce_dataset_load(&ds, "fmnist", "/tmp", 1, &e), FLCE_ERR_IO);
    cr_assert(strstr(e.msg, "train-images"), "%s", e.msg);
}

Test(noise, released_feature_noise_by_hand) {
    /* the authors' released noise (generate_data_flceh.py add_gaussian_noise_based_on_data): a
     * client's pixels plus N(0, mult x their std), min-max rescaled over the client to 0..255,
     * truncated. Without noise (mult 0) it is the rescaling alone: samples 0 and 2 of the split
     * (pixels 10, 20 and 30, 40) give floor((p - 10) / 30 x 255) = 0, 85, 170, 255; sample 1 is
     * not the client's. */
    uint8_t px[6] = {10, 20, 99, 99, 30, 40}, lab[3] = {0, 0, 0};
    flce_split s = {3, 1, 1, 2, 10, px, lab};
    int32_t idx[2] = {0, 2};
    uint8_t out[4];
    flce_noise_released(&s, idx, 2, 0.0, 7, out);
    cr_assert(out[0] == 0 && out[1] == 85 && out[2] == 170 && out[3] == 255, "rescaled: %d %d %d %d", out[0], out[1], out[2], out[3]);
    /* with noise: the std of the four pixels (numpy's, over n) is sqrt(125) = 11.18..; each value
     * p + z sqrt(125), z the sample's stream (seed 7, FLCE_RNG_FEATURE_NOISE, 0, its index) in pixel
     * order, then rescaled over the client: worked out here from the formula */
    double v[4], lo = INFINITY, hi = -INFINITY, sd = sqrt(125.0);
    for (int j = 0; j < 2; j++) {
        flce_rng r;
        flce_rng_init(&r, 7, FLCE_RNG_FEATURE_NOISE, 0, (uint32_t)idx[j]);
        for (int q = 0; q < 2; q++) {
            v[j * 2 + q] = px[idx[j] * 2 + q] + flce_rng_normal(&r) * sd;
            lo = fmin(lo, v[j * 2 + q]), hi = fmax(hi, v[j * 2 + q]);
        }
    }
    flce_noise_released(&s, idx, 2, 1.0, 7, out);
    int seen0 = 0, seen255 = 0;
    for (int i = 0; i < 4; i++) {
        int want = (int)floor((v[i] - lo) / (hi - lo) * 255);
        cr_assert_eq(out[i], want, "pixel %d: %d, want %d", i, out[i], want);
        seen0 |= out[i] == 0, seen255 |= out[i] == 255;
    }
    cr_assert(seen0 && seen255, "the rescaled range is not 0..255");
    /* every pixel equal: no range to rescale, 0 (numpy would give NaN, cast to 0) */
    uint8_t flat[2] = {50, 50}, out2[2];
    flce_split f = {1, 1, 1, 2, 10, flat, lab};
    int32_t i0[1] = {0};
    flce_noise_released(&f, i0, 1, 0.0, 7, out2);
    cr_assert(out2[0] == 0 && out2[1] == 0, "flat: %d %d", out2[0], out2[1]);
}
