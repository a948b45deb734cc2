/* gemm512.c: the CPU backend's GEMM tiles for AVX-512 machines (16-wide vectors, 32
 * registers): 8 x 32 and 8 x 16 tiles, separate multiply and add (no FMA: the build uses
 * -ffp-contract=off), every element reduced over k ascending exactly as the AVX2 tiles and
 * the reference do, so the bits do not depend on which tile ran. Compiled with -mavx512f and
 * only called when the CPU has it (cpu_backend.c checks at start-up). */
#include <stddef.h>

typedef float v16 __attribute__((vector_size(64), aligned(4)));

static inline v16 ld16(const float *p) { return *(const v16 *)p; }
static inline void st16(float *p, v16 v) { *(v16 *)p = v; }
static inline v16 bc16(float s) { return (v16){s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s}; }

#define TILE_8xV(NAME, NV)                                                                                     \
    static void NAME(int mr, int K, const float *A, int lda, const float *B, int ldb, float *C, int ldc,      \
                     int zero) {                                                                               \
        const float *a[8];                                                                                     \
        for (int i = 0; i < 8; i++) a[i] = A + (size_t)(i < mr ? i : mr - 1) * lda;                           \
        v16 c[8][NV];                                                                                          \
        for (int i = 0; i < 8; i++)                                                                            \
            for (int v = 0; v < NV; v++) c[i][v] = (zero || i >= mr) ? bc16(0.0f) : ld16(C + (size_t)i * ldc + 16 * v); \
        for (int k = 0; k < K; k++) {                                                                          \
            const float *b = B + (size_t)k * ldb;                                                              \
            v16 bv[NV];                                                                                        \
            for (int v = 0; v < NV; v++) bv[v] = ld16(b + 16 * v);                                             \
            for (int i = 0; i < 8; i++) {                                                                      \
                v16 x = bc16(a[i][k]);                                                                         \
                for (int v = 0; v < NV; v++) c[i][v] = c[i][v] + x * bv[v];                                    \
            }                                                                                                  \
        }                                                                                                      \
        for (int i = 0; i < mr; i++)                                                                           \
            for (int v = 0; v < NV; v++) st16(C + (size_t)i * ldc + 16 * v, c[i][v]);                          \
    }
TILE_8xV(tile_8x32, 2)
TILE_8xV(tile_8x16, 1)

/* The same tiles with B's row k at B + off[k] (an implicit im2col: the rows are shifted
 * views of a padded input), C zeroed first. */
#define TILE_8xV_OFF(NAME, NV)                                                                                 \
    static void NAME(int mr, int K, const float *A, int lda, const float *B, const int *off, float *C, int ldc) { \
        const float *a[8];                                                                                     \
        for (int i = 0; i < 8; i++) a[i] = A + (size_t)(i < mr ? i : mr - 1) * lda;                           \
        v16 c[8][NV];                                                                                          \
        for (int i = 0; i < 8; i++)                                                                            \
            for (int v = 0; v < NV; v++) c[i][v] = bc16(0.0f);                                                 \
        for (int k = 0; k < K; k++) {                                                                          \
            const float *b = B + off[k];                                                                       \
            v16 bv[NV];                                                                                        \
            for (int v = 0; v < NV; v++) bv[v] = ld16(b + 16 * v);                                             \
            for (int i = 0; i < 8; i++) {                                                                      \
                v16 x = bc16(a[i][k]);                                                                         \
                for (int v = 0; v < NV; v++) c[i][v] = c[i][v] + x * bv[v];                                    \
            }                                                                                                  \
        }                                                                                                      \
        for (int i = 0; i < mr; i++)                                                                           \
            for (int v = 0; v < NV; v++) st16(C + (size_t)i * ldc + 16 * v, c[i][v]);                          \
    }
TILE_8xV_OFF(tile_8x32_off, 2)
TILE_8xV_OFF(tile_8x16_off, 1)

/* C[M][0..n) = A B for n = 16 or 32 columns whose B rows are B + off[k]. */
void flce_gemm512_off(int M, int n, int K, const float *A, int lda, const float *B, const int *off, float *C, int ldc) {
    for (int i = 0; i < M; i += 8) {
        int mr = M - i < 8 ? M - i : 8;
        if (n == 32) tile_8x32_off(mr, K, A + (size_t)i * lda, lda, B, off, C + (size_t)i * ldc, ldc);
        else tile_8x16_off(mr, K, A + (size_t)i * lda, lda, B, off, C + (size_t)i * ldc, ldc);
    }
}

/* C[M][j0..) (+)= A B over the columns j0.. in whole 16-column blocks; returns the first
 * column left to the caller. */
int flce_gemm512(int M, int j0, int j1, int K, const float *A, int lda, const float *B, int ldb, float *C, int ldc,
                 int zero) {
    int j = j0;
    for (; j + 32 <= j1; j += 32)
        for (int i = 0; i < M; i += 8)
            tile_8x32(M - i < 8 ? M - i : 8, K, A + (size_t)i * lda, lda, B + j, ldb, C + (size_t)i * ldc + j, ldc, zero);
    for (; j + 16 <= j1; j += 16)
        for (int i = 0; i < M; i += 8)
            tile_8x16(M - i < 8 ? M - i : 8, K, A + (size_t)i * lda, lda, B + j, ldb, C + (size_t)i * ldc + j, ldc, zero);
    return j;
}

/* Tiles whose A rows are given as pointers, element k of row i at arow[i][poff[k]] (the
 * weight gradient's implicit im2col), B rows at B + k ldb: C[M][0..j1) (+)= A B, 32- and
 * 16-column blocks; returns the first column left to the caller. */
#define TILE_8xV_ROWS(NAME, NV)                                                                                \
    static void NAME(int mr, int K, const float *const *arow, const int *poff, const float *B, int ldb,       \
                     float *C, int ldc, int zero) {                                                            \
        const float *a[8];                                                                                     \
        for (int i = 0; i < 8; i++) a[i] = arow[i < mr ? i : mr - 1];                                          \
        v16 c[8][NV];                                                                                          \
        for (int i = 0; i < 8; i++)                                                                            \
            for (int v = 0; v < NV; v++) c[i][v] = (zero || i >= mr) ? bc16(0.0f) : ld16(C + (size_t)i * ldc + 16 * v); \
        for (int k = 0; k < K; k++) {                                                                          \
            const float *b = B + (size_t)k * ldb;                                                              \
            int o = poff[k];                                                                                   \
            v16 bv[NV];                                                                                        \
            for (int v = 0; v < NV; v++) bv[v] = ld16(b + 16 * v);                                             \
            for (int i = 0; i < 8; i++) {                                                                      \
                v16 x = bc16(a[i][o]);                                                                         \
                for (int v = 0; v < NV; v++) c[i][v] = c[i][v] + x * bv[v];                                    \
            }                                                                                                  \
        }                                                                                                      \
        for (int i = 0; i < mr; i++)                                                                           \
            for (int v = 0; v < NV; v++) st16(C + (size_t)i * ldc + 16 * v, c[i][v]);                          \
    }
TILE_8xV_ROWS(tile_8x32_rows, 2)
TILE_8xV_ROWS(tile_8x16_rows, 1)

int flce_gemm512_rows(int M, int j1, int K, const float *const *arow, const int *poff, const float *B, int ldb,
                      float *C, int ldc, int zero) {
    int j = 0;
    for (; j + 32 <= j1; j += 32)
        for (int i = 0; i < M; i += 8)
            tile_8x32_rows(M - i < 8 ? M - i : 8, K, arow + i, poff, B + j, ldb, C + (size_t)i * ldc + j, ldc, zero);
    for (; j + 16 <= j1; j += 16)
        for (int i = 0; i < M; i += 8)
            tile_8x16_rows(M - i < 8 ? M - i : 8, K, arow + i, poff, B + j, ldb, C + (size_t)i * ldc + j, ldc, zero);
    return j;
}

/* The input gradient of a 3x3, stride-1, pad-1 convolution without col2im, for input row iy of
 * one sample: for 8 channels x 16 columns at a time, over the taps (ky, kx) ascending whose
 * output row oy = iy + 1 - ky exists: t = sum over k ascending of wt[(c, ky, kx)][k] dy[k][oy][ox],
 * then dx = dx + t (from +0). dyp is dy with one zero column on the left and 17 on the right
 * (row length Wd = W + 18), so a column whose tap falls outside adds t = +0, which leaves dx
 * unchanged as long as the weights are finite (the caller checks). The order is the
 * reference's; see cpu_backend.c. */
void flce_dx_row512(const float *dyp, const float *wt, int C, int K, int OH, int W, int Wd, int iy, float *dxn) {
    for (int c0 = 0; c0 < C; c0 += 8) {
        int mr = C - c0 < 8 ? C - c0 : 8;
        for (int ix0 = 0; ix0 < W; ix0 += 16) {
            v16 acc[8];
            for (int i = 0; i < 8; i++) acc[i] = bc16(0.0f);
            for (int ky = 0; ky < 3; ky++) {
                int oy = iy + 1 - ky;
                if (oy < 0 || oy >= OH) continue;
                for (int kx = 0; kx < 3; kx++) {
                    const float *w[8];
                    for (int i = 0; i < 8; i++) w[i] = wt + ((size_t)(c0 + (i < mr ? i : mr - 1)) * 9 + ky * 3 + kx) * K;
                    const float *b = dyp + (size_t)oy * Wd + ix0 + 2 - kx;
                    v16 t[8];
                    for (int i = 0; i < 8; i++) t[i] = bc16(0.0f);
                    for (int k = 0; k < K; k++) {
                        v16 bv = ld16(b + (size_t)k * OH * Wd);
                        for (int i = 0; i < 8; i++) t[i] = t[i] + bc16(w[i][k]) * bv;
                    }
                    for (int i = 0; i < 8; i++) acc[i] = acc[i] + t[i];
                }
            }
            int nc = W - ix0 < 16 ? W - ix0 : 16;
            for (int i = 0; i < mr; i++) {
                float tmp[16];
                st16(tmp, acc[i]);
                float *d = dxn + ((size_t)(c0 + i) * OH + iy) * W + ix0;
                for (int q = 0; q < nc; q++) d[q] = tmp[q];
            }
        }
    }
}
