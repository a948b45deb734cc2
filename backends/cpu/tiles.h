/* tiles.h: the CPU backend's register-tile kernels, written once and instantiated for each
 * vector width: cpu_backend.c with 8-wide AVX2 vectors, gemm512.c with 16-wide AVX-512 ones.
 * Before including define VT (the vector type), VW (its width) and VLD, VST, VBC (load,
 * store, broadcast). Every output element is reduced over k ascending from +0 (or from C),
 * one separately rounded multiply and add per term: the order of reference/ops.h, so the bits
 * do not depend on which tile or which width ran. */

/* C[i][0 .. NV VW) (= 0 when zero, else C) + sum over k of A_i[k] B_k, for the rows i < mr <= MR.
 * Three ways of addressing A and B (the TILE_* macros below):
 *   plain  A_i = A + i lda, its element k; B_k = B + k ldb
 *   off    B_k = B + off[k]: shifted rows of a padded sample (the forward pass's implicit im2col)
 *   rows   A_i = arow[i], its element poff[k]: the weight gradient's implicit im2col */
#define TILE_BODY(MR, NV, AROW, BROW, AT)                                                                     \
    const float *a_[MR];                                                                                      \
    for (int i = 0; i < MR; i++) a_[i] = AROW(i < mr ? i : mr - 1);                                          \
    VT c_[MR][NV];                                                                                            \
    for (int i = 0; i < MR; i++)                                                                              \
        for (int v = 0; v < NV; v++) c_[i][v] = (zero || i >= mr) ? VBC(0.0f) : VLD(C + (size_t)i * ldc + VW * v); \
    for (int k = 0; k < K; k++) {                                                                             \
        const float *b_ = BROW(k);                                                                            \
        VT bv_[NV];                                                                                           \
        for (int v = 0; v < NV; v++) bv_[v] = VLD(b_ + VW * v);                                               \
        for (int i = 0; i < MR; i++) {                                                                        \
            VT x_ = VBC(a_[i][AT(k)]);                                                                        \
            for (int v = 0; v < NV; v++) c_[i][v] = c_[i][v] + x_ * bv_[v];                                   \
        }                                                                                                     \
    }                                                                                                         \
    for (int i = 0; i < mr; i++)                                                                              \
        for (int v = 0; v < NV; v++) VST(C + (size_t)i * ldc + VW * v, c_[i][v]);

#define TILE_A_PLAIN(i) (A + (size_t)(i) * lda)
#define TILE_A_ROWS(i) (arow[i])
#define TILE_B_PLAIN(k) (B + (size_t)(k) * ldb)
#define TILE_B_OFF(k) (B + off[k])
#define TILE_AT_K(k) (k)
#define TILE_AT_POFF(k) (poff[k])

/* tile##S, tile##S##_off, tile##S##_rows: MR rows x NV vectors. */
#define TILES(S, MR, NV)                                                                                      \
    static __attribute__((unused)) void tile##S(int mr, int K, const float *A, int lda, const float *B, int ldb, float *C, int ldc,   \
                        int zero) {                                                                           \
        TILE_BODY(MR, NV, TILE_A_PLAIN, TILE_B_PLAIN, TILE_AT_K)                                              \
    }                                                                                                         \
    static __attribute__((unused)) void tile##S##_off(int mr, int K, const float *A, int lda, const float *B, const int *off, float *C, \
                              int ldc, int zero) {                                                            \
        TILE_BODY(MR, NV, TILE_A_PLAIN, TILE_B_OFF, TILE_AT_K)                                                \
    }                                                                                                         \
    static __attribute__((unused)) void tile##S##_rows(int mr, int K, const float *const *arow, const int *poff, const float *B,      \
                               int ldb, float *C, int ldc, int zero) {                                        \
        TILE_BODY(MR, NV, TILE_A_ROWS, TILE_B_PLAIN, TILE_AT_POFF)                                            \
    }

/* The input gradient of a 3x3, stride-1, pad-1 convolution without col2im, for input row iy of
 * one sample, MR channels x VW columns at a time: over the taps (ky, kx) ascending whose output
 * row oy = iy + 1 - ky exists, t = sum over k ascending of wt[(c, ky, kx)][k] dy[k][oy][ox],
 * then dx = dx + t (from +0): the reference's order. dyp is dy with one zero column on the
 * left and 17 on the right (row length Wd = W + 18), so a column whose tap falls outside
 * adds t = +0, which leaves dx unchanged as long as the weights are finite (the caller
 * checks). Defines NAME(dyp, wt, C, K, OH, W, Wd, iy, dxn). */
#define DX_ROW(NAME, MR)                                                                                      \
    void NAME(const float *dyp, const float *wt, int C, int K, int OH, int W, int Wd, int iy, float *dxn) {   \
        for (int c0 = 0; c0 < C; c0 += MR) {                                                                  \
            int mr = C - c0 < MR ? C - c0 : MR;                                                               \
            for (int ix0 = 0; ix0 < W; ix0 += VW) {                                                           \
                VT acc[MR];                                                                                   \
                for (int i = 0; i < MR; i++) acc[i] = VBC(0.0f);                                              \
                for (int ky = 0; ky < 3; ky++) {                                                              \
                    int oy = iy + 1 - ky;                                                                     \
                    if (oy < 0 || oy >= OH) continue;                                                         \
                    for (int kx = 0; kx < 3; kx++) {                                                          \
                        const float *w[MR];                                                                   \
                        for (int i = 0; i < MR; i++)                                                          \
                            w[i] = wt + ((size_t)(c0 + (i < mr ? i : mr - 1)) * 9 + ky * 3 + kx) * K;         \
                        const float *b = dyp + (size_t)oy * Wd + ix0 + 2 - kx;                                \
                        VT t[MR];                                                                             \
                        for (int i = 0; i < MR; i++) t[i] = VBC(0.0f);                                        \
                        for (int k = 0; k < K; k++) {                                                         \
                            VT bv = VLD(b + (size_t)k * OH * Wd);                                             \
                            for (int i = 0; i < MR; i++) t[i] = t[i] + VBC(w[i][k]) * bv;                     \
                        }                                                                                     \
                        for (int i = 0; i < MR; i++) acc[i] = acc[i] + t[i];                                  \
                    }                                                                                         \
                }                                                                                             \
                int nc = W - ix0 < VW ? W - ix0 : VW;                                                         \
                for (int i = 0; i < mr; i++) {                                                                \
                    float tmp[VW];                                                                            \
                    VST(tmp, acc[i]);                                                                         \
                    float *d = dxn + ((size_t)(c0 + i) * OH + iy) * W + ix0;                                  \
                    for (int q = 0; q < nc; q++) d[q] = tmp[q];                                               \
                }                                                                                             \
            }                                                                                                 \
        }                                                                                                     \
    }

/* The same sums for an image whose width is not a multiple of VW, vectorised over flat
 * positions p = iy Wp + ix of a grid with rows Wp = W + 2 long, so that a vector can span the
 * end of one row and the start of the next: dyp [K][L] holds dy zero-padded by one on every
 * side (dy[k][oy][ox] at (oy + 1) Wp + ox + 1), tap (ky, kx) of position p reads
 * dyp + p + (2 - ky) Wp + 2 - kx, and all nine taps are summed in (ky, kx) order, those outside
 * the image adding t = +0 (finite weights, as above). Positions with ix >= W are computed and
 * thrown away by the caller. out [C][npos], npos a multiple of VW. Defines
 * NAME(dyp, wt, C, K, L, Wp, npos, out). */
#define DX_FLAT(NAME, MR)                                                                                     \
    void NAME(const float *dyp, const float *wt, int C, int K, int L, int Wp, int npos, float *out) {         \
        for (int c0 = 0; c0 < C; c0 += MR) {                                                                  \
            int mr = C - c0 < MR ? C - c0 : MR;                                                               \
            for (int p0 = 0; p0 < npos; p0 += VW) {                                                           \
                VT acc[MR];                                                                                   \
                for (int i = 0; i < MR; i++) acc[i] = VBC(0.0f);                                              \
                for (int tap = 0; tap < 9; tap++) {                                                           \
                    const float *w[MR];                                                                       \
                    for (int i = 0; i < MR; i++) w[i] = wt + ((size_t)(c0 + (i < mr ? i : mr - 1)) * 9 + tap) * K; \
                    const float *b = dyp + p0 + (2 - tap / 3) * Wp + 2 - tap % 3;                             \
                    VT t[MR];                                                                                 \
                    for (int i = 0; i < MR; i++) t[i] = VBC(0.0f);                                            \
                    for (int k = 0; k < K; k++) {                                                             \
                        VT bv = VLD(b + (size_t)k * L);                                                       \
                        for (int i = 0; i < MR; i++) t[i] = t[i] + VBC(w[i][k]) * bv;                         \
                    }                                                                                         \
                    for (int i = 0; i < MR; i++) acc[i] = acc[i] + t[i];                                      \
                }                                                                                             \
                for (int i = 0; i < mr; i++) VST(out + (size_t)(c0 + i) * npos + p0, acc[i]);                 \
            }                                                                                                 \
        }                                                                                                     \
    }
