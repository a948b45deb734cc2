#version 450
#extension GL_GOOGLE_include_directive : require
// bn_bwd_stats.comp: dbeta = K8(dy), dgamma = K8(dy xhat) of one channel per workgroup,
// the 8 invocations being the 8 lanes (reference/ops.h).
#include "common.glsl"
layout(local_size_x = 8) in;
layout(std430, binding = 0) readonly buffer DY { float v[]; } dy;
layout(std430, binding = 1) readonly buffer Xhat { float v[]; } xhat;
layout(std430, binding = 2) writeonly buffer DG { float v[]; } dgamma;
layout(std430, binding = 3) writeonly buffer DB { float v[]; } dbeta;
layout(push_constant) uniform P { int N, C, HW; } p;
shared float bs[8], bc[8], gs[8], gc[8];
void main() {
    int ch = int(gl_WorkGroupID.x), lane = int(gl_LocalInvocationID.x), M = p.N * p.HW;
    precise float sb = 0.0, cb = 0.0, sg = 0.0, cg = 0.0;
    int n = lane / p.HW, i = lane % p.HW;
    for (int j = lane; j < M; j += 8) {
        int e = (n * p.C + ch) * p.HW + i;
        float d = dy.v[e];
        precise float dx = d * xhat.v[e];
        twosum(sb, cb, d);
        twosum(sg, cg, dx);
        i += 8;
        while (i >= p.HW) { i -= p.HW; n++; }
    }
    bs[lane] = sb; bc[lane] = cb; gs[lane] = sg; gc[lane] = cg;
    barrier();
    if (lane == 0) {
        precise float s = 0.0, c = 0.0;
        for (int l = 0; l < 8; l++) twosum(s, c, bs[l]);
        for (int l = 0; l < 8; l++) twosum(s, c, bc[l]);
        precise float db = s + c;
        s = 0.0;
        c = 0.0;
        for (int l = 0; l < 8; l++) twosum(s, c, gs[l]);
        for (int l = 0; l < 8; l++) twosum(s, c, gc[l]);
        precise float dg = s + c;
        dbeta.v[ch] = db;
        dgamma.v[ch] = dg;
    }
}
