/* cpu_backend.c: the fast CPU backend. Convolutions are im2col plus a register-blocked
 * GEMM (6 x 16 tile of 8-wide AVX2 vectors, separate multiply and add, no FMA), on two
 * threads with a fixed split of independent outputs; every output is reduced in exactly
 * the order of reference/ops.h, so the bits equal the reference's:
 *   forward      y_n[k][p]  = sum_q W[k][q] col_n[q][p]          (q = (ci, ky, kx) ascending)
 *   input grad   dcol[q][p] = sum_k W[k][q] dy_n[k][p]; dx = col2im in (ky, kx) order
 *   weight grad  dW[k][q]  += sum_p dy_n[k][p] colT_n[p][q]      (n, then p ascending)
 * The memory-bound ops (BatchNorm, ReLU, pooling, losses, SGD) use the reference loops. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostbuf.h"
#include "ops.h"

void flce_backend_fill_reference(flce_backend *be);

typedef float v8 __attribute__((vector_size(32), aligned(4)));

static inline v8 ld(const float *p) { return *(const v8 *)p; }
static inline void st(float *p, v8 v) { *(v8 *)p = v; }
static inline v8 bc(float s) { return (v8){s, s, s, s, s, s, s, s}; }

/* C[i][j] (= 0 when zero) + sum_{k < K} A[i][k] B[k][j] for i < mr <= 6, j < 16. */
static void tile_6x16(int mr, int K, const float *A, int lda, const float *B, int ldb, float *C, int ldc, int zero) {
    const float *a0 = A, *a1 = A + (mr > 1 ? 1 : 0) * lda, *a2 = A + (mr > 2 ? 2 : mr - 1) * lda,
                *a3 = A + (mr > 3 ? 3 : mr - 1) * lda, *a4 = A + (mr > 4 ? 4 : mr - 1) * lda,
                *a5 = A + (mr > 5 ? 5 : mr - 1) * lda;
    v8 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
    c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = bc(0.0f);
    if (!zero) {
        c00 = ld(C), c01 = ld(C + 8);
        if (mr > 1) c10 = ld(C + ldc), c11 = ld(C + ldc + 8);
        if (mr > 2) c20 = ld(C + 2 * ldc), c21 = ld(C + 2 * ldc + 8);
        if (mr > 3) c30 = ld(C + 3 * ldc), c31 = ld(C + 3 * ldc + 8);
        if (mr > 4) c40 = ld(C + 4 * ldc), c41 = ld(C + 4 * ldc + 8);
        if (mr > 5) c50 = ld(C + 5 * ldc), c51 = ld(C + 5 * ldc + 8);
    }
    for (int k = 0; k < K; k++) {
        const float *b = B + (size_t)k * ldb;
        v8 b0 = ld(b), b1 = ld(b + 8), a;
        a = bc(a0[k]), c00 = c00 + a * b0, c01 = c01 + a * b1;
        a = bc(a1[k]), c10 = c10 + a * b0, c11 = c11 + a * b1;
        a = bc(a2[k]), c20 = c20 + a * b0, c21 = c21 + a * b1;
        a = bc(a3[k]), c30 = c30 + a * b0, c31 = c31 + a * b1;
        a = bc(a4[k]), c40 = c40 + a * b0, c41 = c41 + a * b1;
        a = bc(a5[k]), c50 = c50 + a * b0, c51 = c51 + a * b1;
    }
    st(C, c00), st(C + 8, c01);
    if (mr > 1) st(C + ldc, c10), st(C + ldc + 8, c11);
    if (mr > 2) st(C + 2 * ldc, c20), st(C + 2 * ldc + 8, c21);
    if (mr > 3) st(C + 3 * ldc, c30), st(C + 3 * ldc + 8, c31);
    if (mr > 4) st(C + 4 * ldc, c40), st(C + 4 * ldc + 8, c41);
    if (mr > 5) st(C + 5 * ldc, c50), st(C + 5 * ldc + 8, c51);
}

/* C[M][j0..j1) (+)= A[M][K] B[K][j0..j1): tiles of 16 columns, a scalar loop for the tail;
 * every element is reduced over k ascending. */
static void gemm(int M, int j0, int j1, int K, const float *A, int lda, const float *B, int ldb, float *C, int ldc,
                 int zero) {
    int jv = j0 + (j1 - j0) / 16 * 16;
    for (int j = j0; j < jv; j += 16)
        for (int i = 0; i < M; i += 6)
            tile_6x16(M - i < 6 ? M - i : 6, K, A + (size_t)i * lda, lda, B + j, ldb, C + (size_t)i * ldc + j, ldc, zero);
    for (int i = 0; i < M; i++)
        for (int j = jv; j < j1; j++) {
            float acc = zero ? 0.0f : C[(size_t)i * ldc + j];
            for (int k = 0; k < K; k++) acc = acc + A[(size_t)i * lda + k] * B[(size_t)k * ldb + j];
            C[(size_t)i * ldc + j] = acc;
        }
}

/* col[q][p] for sample x_n [C][H][W], q = (ci, ky, kx), p = (oy, ox); zeros outside. */
static void im2col(const flce_conv_shape *s, const float *xn, float *col) {
    int R = s->R, P = s->OH * s->OW;
    for (int c = 0; c < s->C; c++)
        for (int ky = 0; ky < R; ky++)
            for (int kx = 0; kx < R; kx++) {
                float *row = col + (size_t)((c * R + ky) * R + kx) * P;
                for (int oy = 0; oy < s->OH; oy++) {
                    int iy = oy * s->stride + ky - s->pad;
                    float *r = row + oy * s->OW;
                    if (iy < 0 || iy >= s->H) {
                        memset(r, 0, sizeof(float) * (size_t)s->OW);
                        continue;
                    }
                    const float *xr = xn + ((size_t)c * s->H + iy) * s->W;
                    for (int ox = 0; ox < s->OW; ox++) {
                        int ix = ox * s->stride + kx - s->pad;
                        r[ox] = (ix >= 0 && ix < s->W) ? xr[ix] : 0.0f;
                    }
                }
            }
}

/* colT[p][q - q0] for q in [q0, q1). */
static void im2colT(const flce_conv_shape *s, const float *xn, int q0, int q1, float *colT) {
    int R = s->R, nq = q1 - q0;
    for (int q = q0; q < q1; q++) {
        int c = q / (R * R), ky = q / R % R, kx = q % R;
        for (int oy = 0; oy < s->OH; oy++) {
            int iy = oy * s->stride + ky - s->pad;
            for (int ox = 0; ox < s->OW; ox++) {
                int ix = ox * s->stride + kx - s->pad;
                float v = (iy >= 0 && iy < s->H && ix >= 0 && ix < s->W) ? xn[((size_t)c * s->H + iy) * s->W + ix] : 0.0f;
                colT[(size_t)(oy * s->OW + ox) * nq + (q - q0)] = v;
            }
        }
    }
}

typedef struct {
    const flce_conv_shape *s;
    const float *x, *w, *dy;
    float *y, *dx, *dw, *wt;
    int part, parts;
    int ok;
} conv_job;

static void *fwd_worker(void *arg) {
    conv_job *j = arg;
    const flce_conv_shape *s = j->s;
    int Q = s->C * s->R * s->R, P = s->OH * s->OW;
    int direct = s->R == 1 && s->stride == 1 && s->pad == 0;
    float *col = direct ? NULL : malloc(sizeof(float) * (size_t)Q * P);
    if (!direct && !col) return NULL;
    for (int n = j->part; n < s->N; n += j->parts) {
        const float *xn = j->x + (size_t)n * s->C * s->H * s->W;
        if (!direct) im2col(s, xn, col);
        gemm(s->K, 0, P, Q, j->w, Q, direct ? xn : col, P, j->y + (size_t)n * s->K * P, P, 1);
    }
    free(col);
    j->ok = 1;
    return NULL;
}

static void *bwd_data_worker(void *arg) {
    conv_job *j = arg;
    const flce_conv_shape *s = j->s;
    int Q = s->C * s->R * s->R, P = s->OH * s->OW, R = s->R;
    float *dcol = malloc(sizeof(float) * (size_t)Q * P);
    if (!dcol) return NULL;
    for (int n = j->part; n < s->N; n += j->parts) {
        gemm(Q, 0, P, s->K, j->wt, s->K, j->dy + (size_t)n * s->K * P, P, dcol, P, 1);
        float *dxn = j->dx + (size_t)n * s->C * s->H * s->W;
        memset(dxn, 0, sizeof(float) * (size_t)s->C * s->H * s->W);
        for (int c = 0; c < s->C; c++) /* col2im: each pixel gets its terms in (ky, kx) order */
            for (int ky = 0; ky < R; ky++)
                for (int kx = 0; kx < R; kx++) {
                    const float *row = dcol + (size_t)((c * R + ky) * R + kx) * P;
                    for (int oy = 0; oy < s->OH; oy++) {
                        int iy = oy * s->stride + ky - s->pad;
                        if (iy < 0 || iy >= s->H) continue;
                        float *dr = dxn + ((size_t)c * s->H + iy) * s->W;
                        for (int ox = 0; ox < s->OW; ox++) {
                            int ix = ox * s->stride + kx - s->pad;
                            if (ix >= 0 && ix < s->W) dr[ix] = dr[ix] + row[oy * s->OW + ox];
                        }
                    }
                }
    }
    free(dcol);
    j->ok = 1;
    return NULL;
}

/* Weight gradient: this part owns the columns q in [q0, q1) of dW [K][Q]. */
static void *bwd_weight_worker(void *arg) {
    conv_job *j = arg;
    const flce_conv_shape *s = j->s;
    int Q = s->C * s->R * s->R, P = s->OH * s->OW;
    int blocks = (Q + 15) / 16, per = (blocks + j->parts - 1) / j->parts;
    int q0 = j->part * per * 16, q1 = (j->part + 1) * per * 16;
    if (q1 > Q) q1 = Q;
    if (q0 >= q1) {
        j->ok = 1;
        return NULL;
    }
    int nq = q1 - q0;
    float *colT = malloc(sizeof(float) * (size_t)P * nq), *acc = malloc(sizeof(float) * (size_t)s->K * nq);
    if (!colT || !acc) {
        free(colT);
        free(acc);
        return NULL;
    }
    for (int n = 0; n < s->N; n++) {
        im2colT(s, j->x + (size_t)n * s->C * s->H * s->W, q0, q1, colT);
        gemm(s->K, 0, nq, P, j->dy + (size_t)n * s->K * P, P, colT, nq, acc, nq, n == 0);
    }
    for (int k = 0; k < s->K; k++) memcpy(j->dw + (size_t)k * Q + q0, acc + (size_t)k * nq, sizeof(float) * (size_t)nq);
    free(colT);
    free(acc);
    j->ok = 1;
    return NULL;
}

typedef struct {
    int threads;
} cpu_ctx;

/* Run fn on `parts` jobs: parts - 1 extra threads and the caller. Falls back to running
 * every part on the caller when a thread cannot start (same result: parts are disjoint). */
static void run_parts(void *(*fn)(void *), conv_job *proto, int parts) {
    conv_job jobs[16];
    pthread_t th[16];
    int started[16] = {0};
    if (parts > 16) parts = 16;
    for (int i = 0; i < parts; i++) {
        jobs[i] = *proto;
        jobs[i].part = i;
        jobs[i].parts = parts;
        jobs[i].ok = 0;
    }
    for (int i = 1; i < parts; i++) started[i] = pthread_create(&th[i], NULL, fn, &jobs[i]) == 0;
    fn(&jobs[0]);
    for (int i = 1; i < parts; i++) {
        if (started[i]) pthread_join(th[i], NULL);
        else fn(&jobs[i]);
    }
}

static int nthreads(flce_backend *be) { return ((cpu_ctx *)be->ctx)->threads; }

static void c_conv_fwd(flce_backend *be, const flce_conv_shape *s, const flce_buf *x, const flce_buf *w, flce_buf *y) {
    conv_job j = {.s = s, .x = HB_CF(x), .w = HB_CF(w), .y = HB_F(y)};
    run_parts(fwd_worker, &j, s->N < nthreads(be) ? s->N : nthreads(be));
}

static void c_conv_bwd_data(flce_backend *be, const flce_conv_shape *s, const flce_buf *dy, const flce_buf *w,
                            flce_buf *dx) {
    int Q = s->C * s->R * s->R;
    float *wt = malloc(sizeof(float) * (size_t)Q * s->K);
    if (!wt) return;
    for (int k = 0; k < s->K; k++)
        for (int q = 0; q < Q; q++) wt[(size_t)q * s->K + k] = HB_CF(w)[(size_t)k * Q + q];
    conv_job j = {.s = s, .dy = HB_CF(dy), .wt = wt, .dx = HB_F(dx)};
    run_parts(bwd_data_worker, &j, s->N < nthreads(be) ? s->N : nthreads(be));
    free(wt);
}

static void c_conv_bwd_weight(flce_backend *be, const flce_conv_shape *s, const flce_buf *x, const flce_buf *dy,
                              flce_buf *dw) {
    conv_job j = {.s = s, .x = HB_CF(x), .dy = HB_CF(dy), .dw = HB_F(dw)};
    run_parts(bwd_weight_worker, &j, nthreads(be));
}

static void cpu_destroy(flce_backend *be) {
    free(be->ctx);
    free(be);
}

flce_backend *flce_backend_cpu(int threads) {
    flce_backend *be = calloc(1, sizeof *be);
    cpu_ctx *c = calloc(1, sizeof *c);
    if (!be || !c) {
        free(be);
        free(c);
        return NULL;
    }
    c->threads = threads < 1 ? 1 : threads > 16 ? 16 : threads;
    be->name = "cpu";
    snprintf(be->device, sizeof be->device, "host CPU, %d threads, AVX2 mul/add (no FMA)", c->threads);
    be->ctx = c;
    flce_backend_fill_reference(be);
    be->destroy = cpu_destroy;
    be->conv2d_fwd = c_conv_fwd;
    be->conv2d_bwd_data = c_conv_bwd_data;
    be->conv2d_bwd_weight = c_conv_bwd_weight;
    return be;
}
