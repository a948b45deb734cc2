/* fixtures.c: writes the inputs of the shell tests.
 *   fixtures trace DIR [bad-unselected|bad-partial]   the hand-worked trace of cli_eval.sh
 *   fixtures batch DIR N C H W CLASSES                X.npy (float32 N x C x H x W), Y.npy (int64)
 *   fixtures checkpoint FILE C H CLASSES SEED         a ResNet20 checkpoint (He-normal init)
 *   fixtures npy-header FILE D0 D1 D2 D3              a float32 .npy of that shape with as many data
 *                                                     bytes as the shape says (for shapes with a 0)
 *   fixtures pack OUT ID:FILE...                      fuzz records (tests/fuzz/fuzz.h): each FILE's bytes
 *                                                     under name index ID
 *   fixtures jpeg FILE W H                            a W x H RGB JPEG of noise
 *   fixtures leak-canary BACKEND                      opens and closes the backend, then leaks
 *                                                     4242 bytes of its own on purpose (the
 *                                                     sanitizer build must report exactly that)
 * The trace:
 * T = 2 rounds, n = 3 clients, C = 2 classes, d = 2.
 *   round 0: clients 0, 1 selected; class 0: p0 = (1,0), p1 = (0,1); class 1: p0 = (1,1)
 *   round 1: clients 1, 2 selected; class 0: p1 = (1,0), p2 = (0,2); class 1: p2 = (2,0)
 * data sizes (100, 300, 600). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "npy.h"
#include "backend_select.h"
#include "ref_backend.h"

#include <jpeglib.h>

static int batch(char **argv) {
    int N = atoi(argv[1]), C = atoi(argv[2]), H = atoi(argv[3]), W = atoi(argv[4]), K = atoi(argv[5]);
    size_t n = (size_t)N * C * H * W;
    float *x = malloc(n * sizeof *x);
    int64_t *y = malloc((size_t)N * sizeof *y);
    flce_rng r;
    flce_rng_init(&r, 1, FLCE_RNG_TEST, 50, 0);
    for (size_t i = 0; i < n; i++) x[i] = (float)flce_rng_normal(&r);
    for (int i = 0; i < N; i++) y[i] = i % K;
    char p[1024];
    flce_err e;
    snprintf(p, sizeof p, "%s/X.npy", argv[0]);
    if (flce_npy_write(p, FLCE_NPY_F32, 4, (int64_t[]){N, C, H, W}, x, &e)) return fprintf(stderr, "%s\n", e.msg), 1;
    snprintf(p, sizeof p, "%s/Y.npy", argv[0]);
    if (flce_npy_write(p, FLCE_NPY_I64, 1, (int64_t[]){N}, y, &e)) return fprintf(stderr, "%s\n", e.msg), 1;
    free(x), free(y);
    return 0;
}

static int checkpoint(char **argv) {
    flce_model m;
    flce_err e;
    if (flce_model_create(&m, flce_backend_reference(), atoi(argv[1]), atoi(argv[2]), atoi(argv[2]), atoi(argv[3]), 1, &e) ||
        (flce_model_init(&m, strtoull(argv[4], NULL, 10)), flce_model_save(&m, argv[0], &e)))
        return fprintf(stderr, "%s\n", e.msg), 1;
    flce_model_free(&m);
    return 0;
}

static int npy_header(char **argv) {
    char dict[256];
    int n = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (%s, %s, %s, %s), }", argv[1], argv[2],
                     argv[3], argv[4]);
    int total = 10 + n + 1, pad = (64 - total % 64) % 64;
    FILE *f = fopen(argv[0], "wb");
    if (!f) return 1;
    unsigned short hl = (unsigned short)(n + pad + 1);
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc(hl & 255, f), fputc(hl >> 8, f);
    fwrite(dict, 1, (size_t)n, f);
    for (int i = 0; i < pad; i++) fputc(' ', f);
    fputc('\n', f);
    unsigned long long cnt = 1;
    for (int i = 1; i <= 4; i++) cnt *= strtoull(argv[i], NULL, 10);
    for (unsigned long long i = 0; i < cnt * 4 && i < (1u << 20); i++) fputc(0, f);
    return fclose(f) != 0;
}

static int pack(int argc, char **argv) {
    FILE *o = fopen(argv[0], "wb");
    if (!o) return 1;
    for (int i = 1; i < argc; i++) {
        int id = atoi(argv[i]);
        const char *path = strchr(argv[i], ':');
        if (!path) return 2;
        FILE *f = fopen(path + 1, "rb");
        if (!f) return 1;
        unsigned char buf[65535];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        fputc(id, o), fputc((int)(n & 255), o), fputc((int)(n >> 8), o);
        fwrite(buf, 1, n, o);
    }
    return fclose(o) != 0;
}

static int jpeg(char **argv) {
    int w = atoi(argv[1]), h = atoi(argv[2]);
    struct jpeg_compress_struct ci;
    struct jpeg_error_mgr jerr;
    ci.err = jpeg_std_error(&jerr);
    jpeg_create_compress(&ci);
    FILE *f = fopen(argv[0], "wb");
    if (!f) return 1;
    jpeg_stdio_dest(&ci, f);
    ci.image_width = (JDIMENSION)w, ci.image_height = (JDIMENSION)h;
    ci.input_components = 3;
    ci.in_color_space = JCS_RGB;
    jpeg_set_defaults(&ci);
    jpeg_set_quality(&ci, 75, TRUE);
    jpeg_start_compress(&ci, TRUE);
    unsigned char *row = malloc((size_t)w * 3);
    unsigned x = 7;
    while (ci.next_scanline < (JDIMENSION)h) {
        for (int i = 0; i < w * 3; i++) x = x * 1103515245u + 12345u, row[i] = (unsigned char)(x >> 16);
        JSAMPROW rp = row;
        jpeg_write_scanlines(&ci, &rp, 1);
    }
    jpeg_finish_compress(&ci);
    jpeg_destroy_compress(&ci);
    free(row);
    return fclose(f) != 0;
}

static void *volatile canary;

static int leak_canary(const char *backend) {
    flce_err e;
    flce_backend *be = flce_backend_open(backend, NULL, FLCE_DENORM_AUTO, &e); /* may fail: no such device here */
    if (be) be->destroy(be);
    canary = malloc(4242);
    if (canary) memset(canary, 1, 4242);
    canary = NULL; /* the only pointer is gone: a leak of ours */
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && !strcmp(argv[1], "leak-canary")) return leak_canary(argv[2]);
    if (argc >= 7 && !strcmp(argv[1], "npy-header")) return npy_header(argv + 2);
    if (argc >= 4 && !strcmp(argv[1], "pack")) return pack(argc - 2, argv + 2);
    if (argc >= 5 && !strcmp(argv[1], "jpeg")) return jpeg(argv + 2);
    if (argc >= 8 && !strcmp(argv[1], "batch")) return batch(argv + 2);
    if (argc >= 7 && !strcmp(argv[1], "checkpoint")) return checkpoint(argv + 2);
    if (argc < 3 || strcmp(argv[1], "trace")) return 2;
    argv++, argc--;
    float P[2][3][2][2];
    for (float *f = &P[0][0][0][0]; f < &P[0][0][0][0] + 24; f++) *f = NAN;
    P[0][0][0][0] = 1, P[0][0][0][1] = 0;
    P[0][1][0][0] = 0, P[0][1][0][1] = 1;
    P[0][0][1][0] = 1, P[0][0][1][1] = 1;
    P[1][1][0][0] = 1, P[1][1][0][1] = 0;
    P[1][2][0][0] = 0, P[1][2][0][1] = 2;
    P[1][2][1][0] = 2, P[1][2][1][1] = 0;
    if (argc > 2 && !strcmp(argv[2], "bad-unselected")) P[1][0][0][0] = P[1][0][0][1] = 5;
    if (argc > 2 && !strcmp(argv[2], "bad-partial")) P[0][1][1][0] = 3;
    uint8_t sel[2][3] = {{1, 1, 0}, {0, 1, 1}};
    int64_t sizes[3] = {100, 300, 600};
    char p[1024];
    flce_err e;
    snprintf(p, sizeof p, "%s/prototypes.npy", argv[1]);
    if (flce_npy_write(p, FLCE_NPY_F32, 4, (int64_t[]){2, 3, 2, 2}, P, &e)) goto fail;
    snprintf(p, sizeof p, "%s/selected.npy", argv[1]);
    if (flce_npy_write(p, FLCE_NPY_U8, 2, (int64_t[]){2, 3}, sel, &e)) goto fail;
    snprintf(p, sizeof p, "%s/data_sizes.npy", argv[1]);
    if (flce_npy_write(p, FLCE_NPY_I64, 1, (int64_t[]){3}, sizes, &e)) goto fail;
    return 0;
fail:
    fprintf(stderr, "fixtures: %s\n", e.msg);
    return 1;
}
