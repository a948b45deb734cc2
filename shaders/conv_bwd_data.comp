#version 450
#extension GL_GOOGLE_include_directive : require
// conv_bwd_data.comp: dx[n][c][iy][ix] = sum over ky, kx (ascending) of
// t = sum over k (ascending) of w[k][c][ky][kx] dy[n][k][oy][ox] (reference/ops.h).
// One invocation per input pixel and a block of 8 input channels (z of the dispatch); the
// weights are broadcasts. The k loop loads 4 output channels' dy at a time before adding.
#include "common.glsl"
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer DY { float v[]; } dy;
layout(std430, binding = 1) readonly buffer Wt { float v[]; } w;
layout(std430, binding = 2) writeonly buffer DX { float v[]; } dx;
layout(push_constant) uniform P { int N, C, H, W, K, R, stride, pad, OH, OW; } p;
// one tap (ky, kx): its dot product over k into t, then added to acc; taps without an output
// pixel are skipped (continue: the enclosing kx loop)
#define TAP(kx)                                                                                    \
    {                                                                                              \
        int ty = iy + p.pad - ky, tx = ix + p.pad - (kx);                                          \
        if (ty < 0 || tx < 0 || ty % st != 0 || tx % st != 0) continue;                            \
        int oy = ty / st, ox = tx / st;                                                            \
        if (oy >= p.OH || ox >= p.OW) continue;                                                    \
        for (int j = 0; j < 8; j++) t[j] = 0.0;                                                    \
        int db = n * p.K * OHW + oy * p.OW + ox;                                                   \
        for (int k0 = 0; k0 < p.K; k0 += 4) {                                                      \
            float d[4];                                                                            \
            for (int u = 0; u < 4; u++) d[u] = dy.v[db + min(k0 + u, p.K - 1) * OHW];             \
            for (int u = 0; u < 4; u++) {                                                          \
                if (k0 + u >= p.K) break;                                                          \
                int wi = ((k0 + u) * p.C + c0) * RR + ky * p.R + (kx);                             \
                for (int j = 0; j < 8; j++)                                                        \
                    if (j < nc) t[j] = t[j] + w.v[wi + j * RR] * d[u];                             \
            }                                                                                      \
        }                                                                                          \
        for (int j = 0; j < 8; j++) acc[j] = acc[j] + t[j];                                        \
    }
void main() {
    int pix = int(gid());
    if (pix >= p.N * p.H * p.W) return;
    int ix = pix % p.W, t0 = pix / p.W, iy = t0 % p.H, n = t0 / p.H;
    int c0 = int(gl_WorkGroupID.z) * 8, RR = p.R * p.R, st = p.stride, OHW = p.OH * p.OW;
    int nc = min(8, p.C - c0);
    precise float acc[8];
    precise float t[8];
    for (int j = 0; j < 8; j++) acc[j] = 0.0;
    for (int ky = 0; ky < p.R; ky++) {
        for (int kx = 0; kx < 3; kx++) {
            if (kx >= p.R) break;
            TAP(kx)
        }
        for (int kx = 3; kx < p.R; kx++) TAP(kx) // kernels wider than 3: the same, in order
    }
    for (int j = 0; j < 8; j++)
        if (j < nc) dx.v[((n * p.C + c0 + j) * p.H + iy) * p.W + ix] = acc[j];
}
