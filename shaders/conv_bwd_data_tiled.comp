#version 450
#extension GL_GOOGLE_include_directive : require
// conv_bwd_data_tiled.comp: dx[n][c][iy][ix] = sum over the taps (ky, kx) (ascending, from +0)
// that reach an output pixel (oy, ox) of t, t = sum over k (ascending, from +0) of
// w[k][c][ky][kx] * dy[n][k][oy][ox] (reference/ops.h; a tap that reaches no output pixel is
// skipped, not added as zero). A tiled GEMM per tap: a workgroup computes 32 input channels c
// (z of the dispatch) by 64 input pixels (its flat x-y index), every invocation a 4 x 4 block;
// for each tap the k reduction walks chunks of 16, staged in shared memory (weights: 16 x 32, dy
// at the tap's output pixels: 16 x 64), into 16 registers t that are then added to the 16 sums
// where the tap reaches a pixel. Each value is still computed in the reference's order.
#include "common.glsl"
#define TM 32 // input channels per workgroup
#define TN 64 // input pixels per workgroup
#define TL 16 // output channels k per chunk
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer DY { float v[]; } dy;
layout(std430, binding = 1) readonly buffer Wt { float v[]; } w;
layout(std430, binding = 2) writeonly buffer DX { float v[]; } dx;
layout(push_constant) uniform P { int N, C, H, W, K, R, stride, pad, OH, OW; } p;
shared float As[TL][TM];
shared float Bs[TL][TN];
// the output pixel that tap (ky, kx) of input pixel (iy, ix) reaches, as oy * OW + ox; -1 if none
int reach(int iy, int ix, int ky, int kx) {
    int ty = iy + p.pad - ky, tx = ix + p.pad - kx;
    if (ty < 0 || tx < 0 || ty % p.stride != 0 || tx % p.stride != 0) return -1;
    int oy = ty / p.stride, ox = tx / p.stride;
    return (oy < p.OH && ox < p.OW) ? oy * p.OW + ox : -1;
}
void main() {
    int lid = int(gl_LocalInvocationID.x);
    int tile = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
    int p0 = tile * TN, c0 = int(gl_WorkGroupID.z) * TM;
    int RR = p.R * p.R, HW = p.H * p.W, OHW = p.OH * p.OW, NP = p.N * HW;
    if (p0 >= NP) return; // a whole workgroup (the grid's last row may have spare ones)
    // the pixel this invocation stages (column lid % 64 of every chunk)
    int sp = p0 + lid % TN, sn = sp / HW, siy = (sp % HW) / p.W, six = sp % p.W;
    bool spin = sp < NP;
    int tm = lid / 16, tn = lid % 16; // this invocation's values: channels c0+tm+8i, pixels p0+tn+16j
    int my[4]; // its pixels as (n, iy, ix) packed: n * HW + iy * W + ix, or -1 beyond the last
    for (int j = 0; j < 4; j++) my[j] = p0 + tn + 16 * j < NP ? p0 + tn + 16 * j : -1;
    precise float acc[16];
    precise float t[16];
    for (int i = 0; i < 16; i++) acc[i] = 0.0;
    for (int ky = 0; ky < p.R; ky++)
        for (int kx = 0; kx < p.R; kx++) {
            int sq = spin ? reach(siy, six, ky, kx) : -1;
            for (int i = 0; i < 16; i++) t[i] = 0.0;
            for (int k0 = 0; k0 < p.K; k0 += TL) {
                for (int e = 0; e < 4; e++) { // weights of the tap: 16 k x 32 c
                    int idx = lid + 128 * e, mm = idx % TM, ll = idx / TM, c = c0 + mm, k = k0 + ll;
                    As[ll][mm] = (c < p.C && k < p.K) ? w.v[(k * p.C + c) * RR + ky * p.R + kx] : 0.0;
                }
                for (int e = 0; e < 8; e++) { // dy at the tap's output pixels: 16 k x 64 pixels
                    int ll = lid / TN + 2 * e, k = k0 + ll;
                    Bs[ll][lid % TN] = (sq >= 0 && k < p.K) ? dy.v[(sn * p.K + k) * OHW + sq] : 0.0;
                }
                barrier();
                int kend = min(TL, p.K - k0); // the last chunk stops at K
                TILE_MADD(As, Bs, t, kend, tm, tn)
                barrier();
            }
            for (int j = 0; j < 4; j++) {
                if (my[j] < 0) continue;
                int r = my[j] % HW;
                if (reach(r / p.W, r % p.W, ky, kx) < 0) continue; // the tap reaches no output pixel: skipped
                for (int i = 0; i < 4; i++) acc[i * 4 + j] = acc[i * 4 + j] + t[i * 4 + j];
            }
        }
    for (int j = 0; j < 4; j++) {
        if (my[j] < 0) continue;
        int n = my[j] / HW, r = my[j] % HW;
        for (int i = 0; i < 4; i++) {
            int c = c0 + tm + 8 * i;
            if (c < p.C) dx.v[(n * p.C + c) * HW + r] = acc[i * 4 + j];
        }
    }
}
