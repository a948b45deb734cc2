#version 450
#extension GL_GOOGLE_include_directive : require
// conv_bwd_weight.comp, first pass: the per-sample partial sums of the weight gradient,
// part[n][q] = sum over oy, ox (nested, ascending, from +0) of dy[n][k][oy][ox] xpad, for
// q = (k, c, ky, kx) flat; sample n is the z of the dispatch, so all samples run at once.
// sum_rows.comp then adds the samples in ascending order (reference/ops.h). The pixel loop
// loads 8 pixels' operands at a time (unconditional loads: a clamped index, then 0 selected
// outside the image) before adding them in order, so the loads overlap.
#include "common.glsl"
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer X { float v[]; } x;
layout(std430, binding = 1) readonly buffer DY { float v[]; } dy;
layout(std430, binding = 2) writeonly buffer Part { float v[]; } part;
layout(push_constant) uniform P { int N, C, H, W, K, R, stride, pad, OH, OW; } p;
void main() {
    int q = int(gid()), RR = p.R * p.R, Q = p.K * p.C * RR;
    if (q >= Q) return;
    int n = int(gl_WorkGroupID.z);
    int kx = q % p.R, ky = (q / p.R) % p.R, c = (q / RR) % p.C, k = q / (RR * p.C);
    int xc = (n * p.C + c) * p.H, dyb = (n * p.K + k) * p.OH * p.OW;
    precise float t = 0.0;
    for (int oy = 0; oy < p.OH; oy++) {
        int iy = oy * p.stride + ky - p.pad;
        bool rowin = iy >= 0 && iy < p.H;
        int row = (xc + clamp(iy, 0, p.H - 1)) * p.W, drow = dyb + oy * p.OW;
        for (int ox0 = 0; ox0 < p.OW; ox0 += 8) {
            float dv[8], xv[8];
            for (int u = 0; u < 8; u++) {
                int ox = min(ox0 + u, p.OW - 1), ix = ox * p.stride + kx - p.pad;
                float xl = x.v[row + clamp(ix, 0, p.W - 1)];
                xv[u] = (rowin && ix >= 0 && ix < p.W) ? xl : 0.0;
                dv[u] = dy.v[drow + ox];
            }
            for (int u = 0; u < 8; u++)
                if (ox0 + u < p.OW) t = t + dv[u] * xv[u];
        }
    }
    part.v[n * Q + q] = t;
}
