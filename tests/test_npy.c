/* test_npy.c: the .npy reader and writer: round trips of every dtype, a version 2.0 file
 * written byte by byte here, and rejection of malformed headers, unsupported dtypes and
 * orders, and files shorter or longer than the header says. */
#include <criterion/criterion.h>
#include <string.h>

#include "npy.h"
#include "testutil.h"

Test(npy, round_trip_every_dtype) {
    char dir[64], p[128];
    tu_tmpdir(dir, sizeof dir);
    snprintf(p, sizeof p, "%s/a.npy", dir);
    float f[6] = {1, -2, 3.5f, 0, 1e-30f, 7};
    double d[3] = {0.1, -1e300, 2};
    int64_t i[2] = {-5, 1LL << 40};
    uint8_t u[5] = {0, 1, 255, 7, 9};
    const void *data[4] = {f, d, i, u};
    int64_t shapes[4][2] = {{2, 3}, {3, 0}, {2, 0}, {5, 0}};
    int ndims[4] = {2, 1, 1, 1};
    flce_npy_dtype types[4] = {FLCE_NPY_F32, FLCE_NPY_F64, FLCE_NPY_I64, FLCE_NPY_U8};
    for (int t = 0; t < 4; t++) {
        flce_err e = {{0}};
        cr_assert_eq(flce_npy_write(p, types[t], ndims[t], shapes[t], data[t], &e), FLCE_OK, "%s", e.msg);
        flce_npy a;
        cr_assert_eq(flce_npy_read(p, &a, &e), FLCE_OK, "%s", e.msg);
        cr_assert_eq(a.dtype, types[t]);
        cr_assert_eq(a.ndim, ndims[t]);
        cr_assert_eq(flce_npy_expect(p, &a, types[t], ndims[t], shapes[t], &e), FLCE_OK, "%s", e.msg);
        cr_assert_eq(memcmp(a.data, data[t], (size_t)a.count * flce_npy_itemsize(types[t])), 0);
        flce_npy_free(&a);
    }
    /* the header is padded so that the data starts at a multiple of 64, as NumPy does */
    FILE *fp = fopen(p, "rb");
    unsigned char pre[10];
    cr_assert_eq(fread(pre, 1, 10, fp), 10);
    fclose(fp);
    cr_assert_eq((10 + (pre[8] | pre[9] << 8)) % 64, 0);
    tu_rm_rf(dir);
}

/* A file from a preamble version, a header text, and n data bytes. */
static void write_raw(const char *path, int major, const char *hdr, size_t ndata) {
    unsigned char buf[1024];
    size_t h = strlen(hdr), off;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    if (major == 2) {
        buf[8] = (unsigned char)h, buf[9] = (unsigned char)(h >> 8), buf[10] = 0, buf[11] = 0;
        off = 12;
    } else {
        buf[8] = (unsigned char)h, buf[9] = (unsigned char)(h >> 8);
        off = 10;
    }
    memcpy(buf + off, hdr, h);
    memset(buf + off + h, 0x3f, ndata);
    tu_write(path, buf, off + h + ndata);
}

Test(npy, reads_version_2_written_by_hand) {
    char dir[64], p[128];
    tu_tmpdir(dir, sizeof dir);
    snprintf(p, sizeof p, "%s/v2.npy", dir);
    write_raw(p, 2, "{'shape': (2, 2), 'fortran_order': False, 'descr': '<f8'}\n", 32);
    flce_npy a;
    flce_err e = {{0}};
    cr_assert_eq(flce_npy_read(p, &a, &e), FLCE_OK, "%s", e.msg);
    cr_assert(a.dtype == FLCE_NPY_F64 && a.ndim == 2 && a.shape[0] == 2 && a.count == 4);
    flce_npy_free(&a);
    tu_rm_rf(dir);
}

static void expect_bad(const char *dir, int major, const char *hdr, size_t ndata, const char *needle) {
    char p[128];
    snprintf(p, sizeof p, "%s/bad.npy", dir);
    write_raw(p, major, hdr, ndata);
    flce_npy a;
    flce_err e = {{0}};
    cr_assert_neq(flce_npy_read(p, &a, &e), FLCE_OK, "accepted: %s", hdr);
    cr_assert(strstr(e.msg, p) && strstr(e.msg, needle), "'%s' lacks '%s'", e.msg, needle);
}

Test(npy, rejects_malformed_files) {
    char dir[64], p[128];
    tu_tmpdir(dir, sizeof dir);
    const char *ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\n";
    expect_bad(dir, 1, ok, 11, "truncated");
    expect_bad(dir, 1, ok, 13, "oversized");
    expect_bad(dir, 3, ok, 12, "version 3.0");
    expect_bad(dir, 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }\n", 12, "'>f4' not supported");
    expect_bad(dir, 1, "{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }\n", 24, "not supported");
    expect_bad(dir, 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (3,), }\n", 12, "Fortran");
    expect_bad(dir, 1, "{'descr': '<f4', 'shape': (3,), }\n", 12, "'fortran_order'");
    expect_bad(dir, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 1}\n", 12, "unexpected key");
    expect_bad(dir, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,,), }\n", 12, "shape");
    expect_bad(dir, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-3,), }\n", 12, "shape");
    expect_bad(dir, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 12, "newline");
    expect_bad(dir, 1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (3,)}\n", 12, "descr");
    expect_bad(dir, 1, "[1, 2]\n", 0, "not a dict");
    snprintf(p, sizeof p, "%s/short.npy", dir);
    tu_write(p, "\x93NUMPY\x01\x00\xff\x00{", 11);
    flce_npy a;
    flce_err e = {{0}};
    cr_assert_neq(flce_npy_read(p, &a, &e), FLCE_OK);
    cr_assert(strstr(e.msg, "header length"), "%s", e.msg);
    tu_write(p, "PK\x03\x04 not npy", 12);
    cr_assert_neq(flce_npy_read(p, &a, &e), FLCE_OK);
    cr_assert(strstr(e.msg, "magic"), "%s", e.msg);
    snprintf(p, sizeof p, "%s/none.npy", dir);
    cr_assert_eq(flce_npy_read(p, &a, &e), FLCE_ERR_IO);
    /* shape and dtype checks of flce_npy_expect */
    snprintf(p, sizeof p, "%s/good.npy", dir);
    float f[6] = {0};
    cr_assert_eq(flce_npy_write(p, FLCE_NPY_F32, 2, (int64_t[]){2, 3}, f, &e), FLCE_OK);
    cr_assert_eq(flce_npy_read(p, &a, &e), FLCE_OK);
    cr_assert_eq(flce_npy_expect(p, &a, FLCE_NPY_F32, 2, (int64_t[]){3, 2}, &e), FLCE_ERR_FORMAT);
    cr_assert(strstr(e.msg, "shape (2, 3), expected (3, 2)"), "%s", e.msg);
    cr_assert_eq(flce_npy_expect(p, &a, FLCE_NPY_F64, 2, (int64_t[]){2, 3}, &e), FLCE_ERR_FORMAT);
    cr_assert(strstr(e.msg, "dtype float32, expected float64"), "%s", e.msg);
    cr_assert_eq(flce_npy_expect(p, &a, FLCE_NPY_F32, 2, (int64_t[]){-1, 3}, &e), FLCE_OK);
    flce_npy_free(&a);
    tu_rm_rf(dir);
}
