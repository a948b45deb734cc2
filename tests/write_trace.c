/* write_trace.c: writes the hand-worked trace of tests/cli_eval.sh into a folder:
 * T = 2 rounds, n = 3 clients, C = 2 classes, d = 2.
 *   round 0: clients 0, 1 selected; class 0: p0 = (1,0), p1 = (0,1); class 1: p0 = (1,1)
 *   round 1: clients 1, 2 selected; class 0: p1 = (1,0), p2 = (0,2); class 1: p2 = (2,0)
 * data sizes (100, 300, 600). Usage: write_trace DIR [bad-unselected|bad-partial] */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "npy.h"

int main(int argc, char **argv) {
    if (argc < 2) return 2;
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
    fprintf(stderr, "write_trace: %s\n", e.msg);
    return 1;
}
