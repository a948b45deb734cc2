#version 450
#extension GL_GOOGLE_include_directive : require
// bn_stats.comp: BatchNorm training statistics of one channel per workgroup (reference/ops.h):
// mean = K8(x) invM; var = K8((x - mean)^2) invM; invstd = rsqrt(var + eps); running
// statistics updated with momentum. The 8 invocations are the 8 lanes of the K8 sum
// (element j of the channel goes to lane j mod 8); lane 0 adds the lanes up.
#include "common.glsl"
#include "fmath.glsl"
layout(local_size_x = 8) in;
layout(std430, binding = 0) readonly buffer X { float v[]; } x;
layout(std430, binding = 1) writeonly buffer Mean { float v[]; } mean_out;
layout(std430, binding = 2) writeonly buffer Invstd { float v[]; } invstd;
layout(std430, binding = 3) buffer RM { float v[]; } rm;
layout(std430, binding = 4) buffer RV { float v[]; } rv;
layout(push_constant) uniform P { int N, C, HW; float eps, momentum; } p;
shared float ls[8], lc[8], sh_mean;

// the K8 total of the lanes' (s, c) pairs
float k8_total() {
    precise float s = 0.0, c = 0.0;
    for (int l = 0; l < 8; l++) twosum(s, c, ls[l]);
    for (int l = 0; l < 8; l++) twosum(s, c, lc[l]);
    precise float r = s + c;
    return r;
}

void main() {
    int ch = int(gl_WorkGroupID.x), lane = int(gl_LocalInvocationID.x), M = p.N * p.HW;
    precise float invM = fm_recip(float(M));
    precise float s = 0.0, c = 0.0;
    int n = lane / p.HW, i = lane % p.HW;
    for (int j = lane; j < M; j += 8) {
        twosum(s, c, x.v[(n * p.C + ch) * p.HW + i]);
        i += 8;
        while (i >= p.HW) { i -= p.HW; n++; }
    }
    ls[lane] = s;
    lc[lane] = c;
    barrier();
    if (lane == 0) {
        precise float m = k8_total() * invM;
        sh_mean = m;
    }
    barrier();
    float mean = sh_mean;
    s = 0.0;
    c = 0.0;
    n = lane / p.HW;
    i = lane % p.HW;
    for (int j = lane; j < M; j += 8) {
        precise float d = x.v[(n * p.C + ch) * p.HW + i] - mean;
        precise float dd = d * d;
        twosum(s, c, dd);
        i += 8;
        while (i >= p.HW) { i -= p.HW; n++; }
    }
    barrier();
    ls[lane] = s;
    lc[lane] = c;
    barrier();
    if (lane == 0) {
        precise float var = k8_total() * invM;
        precise float is = fm_rsqrt(var + p.eps);
        mean_out.v[ch] = mean;
        invstd.v[ch] = is;
        precise float unb = var;
        if (M > 1) unb = (var * float(M)) * fm_recip(float(M - 1));
        precise float one_m = 1.0 - p.momentum;
        precise float nm = rm.v[ch] * one_m + mean * p.momentum;
        precise float nv = rv.v[ch] * one_m + unb * p.momentum;
        rm.v[ch] = nm;
        rv.v[ch] = nv;
    }
}
