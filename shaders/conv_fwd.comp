#version 450
#extension GL_GOOGLE_include_directive : require
// conv_fwd.comp: y[n][k][oy][ox] = sum over c, ky, kx (nested, ascending) of w * xpad
// (reference/ops.h). One invocation per output pixel and a block of 8 output channels
// (z of the dispatch): neighbouring invocations read neighbouring input pixels, and the
// weights are the same for the whole workgroup, so their loads are broadcasts. Loads are
// unconditional (a clamped index, then 0 selected outside the image) and the kx loop has a
// constant trip count, so the compiler can issue a row's loads together.
#include "common.glsl"
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer X { float v[]; } x;
layout(std430, binding = 1) readonly buffer Wt { float v[]; } w;
layout(std430, binding = 2) writeonly buffer Y { float v[]; } y;
layout(push_constant) uniform P { int N, C, H, W, K, R, stride, pad, OH, OW; } p;
// one tap of the row: the kx loop for kernels up to 3 wide has a constant trip count
#define TAP(kx)                                                                                    \
    {                                                                                              \
        int ix = ox * p.stride + (kx) - p.pad;                                                     \
        float xl = x.v[row + clamp(ix, 0, p.W - 1)];                                               \
        float xv = (rowin && ix >= 0 && ix < p.W) ? xl : 0.0;                                      \
        int wi = (k0 * p.C + c) * RR + ky * p.R + (kx);                                            \
        for (int j = 0; j < 8; j++)                                                                \
            if (j < nk) acc[j] = acc[j] + w.v[wi + j * ws] * xv;                                   \
    }
void main() {
    int pix = int(gid());
    if (pix >= p.N * p.OH * p.OW) return;
    int ox = pix % p.OW, t = pix / p.OW, oy = t % p.OH, n = t / p.OH;
    int k0 = int(gl_WorkGroupID.z) * 8, RR = p.R * p.R, ws = p.C * RR;
    int nk = min(8, p.K - k0);
    precise float acc[8];
    for (int j = 0; j < 8; j++) acc[j] = 0.0;
    for (int c = 0; c < p.C; c++) {
        int xc = (n * p.C + c) * p.H;
        for (int ky = 0; ky < p.R; ky++) {
            int iy = oy * p.stride + ky - p.pad;
            bool rowin = iy >= 0 && iy < p.H;
            int row = (xc + clamp(iy, 0, p.H - 1)) * p.W;
            for (int kx = 0; kx < 3; kx++) {
                if (kx >= p.R) break;
                TAP(kx)
            }
            for (int kx = 3; kx < p.R; kx++) TAP(kx) // kernels wider than 3: the same, in order
        }
    }
    for (int j = 0; j < 8; j++)
        if (j < nk) y.v[((n * p.K + k0 + j) * p.OH + oy) * p.OW + ox] = acc[j];
}
