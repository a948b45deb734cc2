/* test_tensor.c: tensor allocation and xxh3-64 digests (the XXH3 reference value of the
 * empty input is 2d06800538d394c2, from the xxHash specification's test vectors). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "base.h"
#include "testutil.h"

Test(digest, known_values_and_sensitivity) {
    char hex[17];
    flce_digest_hex(flce_digest("", 0), hex);
    cr_assert_str_eq(hex, "2d06800538d394c2");
    float a[3] = {1, 2, 3}, b[3] = {1, 2, 3};
    cr_assert_eq(flce_digest(a, sizeof a), flce_digest(b, sizeof b));
    b[2] = nextafterf(3.0f, 4.0f); /* one ulp */
    cr_assert_neq(flce_digest(a, sizeof a), flce_digest(b, sizeof b));
    b[2] = 3;
    a[0] = -0.0f, b[0] = 0.0f; /* bits, not values */
    cr_assert_neq(flce_digest(a, sizeof a), flce_digest(b, sizeof b));
}

Test(tensor, init_shape_and_digest) {
    flce_tensor t;
    flce_err e = {{0}};
    int64_t shape[3] = {2, 3, 4};
    cr_assert_eq(flce_tensor_init(&t, 3, shape, &e), FLCE_OK);
    cr_assert_eq(t.n, 24);
    cr_assert_eq(t.shape[3], 1);
    for (int i = 0; i < 24; i++) cr_assert_eq(t.data[i], 0.0f);
    float z[24] = {0};
    cr_assert_eq(flce_tensor_digest(&t), flce_digest(z, sizeof z));
    flce_tensor_free(&t);
    int64_t bad[2] = {-1, 2};
    cr_assert_eq(flce_tensor_init(&t, 2, bad, &e), FLCE_ERR_ARG);
    cr_assert_eq(flce_tensor_init(&t, 5, shape, &e), FLCE_ERR_ARG);
}

Test(files, atomic_write_leaves_no_partial_file) {
    char dir[64], p[128];
    tu_tmpdir(dir, sizeof dir);
    snprintf(p, sizeof p, "%s/out.bin", dir);
    flce_err e = {{0}};
    cr_assert_eq(flce_write_file_atomic(p, "abc", 3, &e), FLCE_OK);
    FILE *f = fopen(p, "rb");
    char buf[4] = {0};
    cr_assert_eq(fread(buf, 1, 4, f), 3);
    fclose(f);
    cr_assert_str_eq(buf, "abc");
    snprintf(p, sizeof p, "%s/nodir/out.bin", dir);
    cr_assert_eq(flce_write_file_atomic(p, "abc", 3, &e), FLCE_ERR_IO);
    cr_assert(strstr(e.msg, "nodir"), "%s", e.msg);
    tu_rm_rf(dir);
}

/* flce_catf: appends; what does not fit is cut off and nothing is written past the buffer (the
 * guard bytes after it stay as they were); flce_sbuf grows to hold any length. */
Test(text, catf_never_writes_past_the_buffer) {
    char mem[16 + 8];
    memset(mem, '#', sizeof mem);
    char *b = mem; /* 16 bytes, then 8 guard bytes */
    size_t n = 0;
    b[0] = '\0';
    flce_catf(b, 16, &n, "%s", "abc");
    flce_catf(b, 16, &n, "%d", 12345);
    cr_assert_str_eq(b, "abc12345");
    cr_assert_eq(n, 8);
    flce_catf(b, 16, &n, "%s", "0123456789"); /* 18 characters would not fit in 15 */
    cr_assert_eq(n, 15);
    cr_assert_str_eq(b, "abc123450123456");
    flce_catf(b, 16, &n, "%s", "more"); /* full: nothing changes */
    cr_assert_eq(n, 15);
    cr_assert_str_eq(b, "abc123450123456");
    for (int i = 16; i < 24; i++) cr_assert_eq(mem[i], '#', "guard byte %d overwritten", i);
}

Test(text, sbuf_grows_to_any_length) {
    flce_sbuf s = {0};
    for (int i = 0; i < 5000; i++) flce_sbuf_printf(&s, "%04d,", i % 10000);
    cr_assert(!s.oom);
    cr_assert_eq(s.len, 25000);
    cr_assert_eq(strlen(s.s), 25000);
    cr_assert(!strncmp(s.s, "0000,0001,", 10));
    cr_assert(!strcmp(s.s + 24995, "4999,"));
    flce_sbuf_free(&s);
    cr_assert_null(s.s);
    cr_assert_eq(s.len, 0);
}
