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
