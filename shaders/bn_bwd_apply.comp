#version 450
#extension GL_GOOGLE_include_directive : require
// bn_bwd_apply.comp: d = dy through the fused ReLU's mask (relu = 1: yr > 0 ? dy : 0),
// xhat = (x - mean) invstd (recomputed: the forward pass's two operations),
// dx = ((gamma invstd) invM) ((M d - dbeta) - xhat dgamma).
#include "common.glsl"
#include "fmath.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer DY { float v[]; } dy;
layout(std430, binding = 1) readonly buffer YR { float v[]; } yr;
layout(std430, binding = 2) readonly buffer X { float v[]; } x;
layout(std430, binding = 3) readonly buffer Mean { float v[]; } mean;
layout(std430, binding = 4) readonly buffer G { float v[]; } gamma;
layout(std430, binding = 5) readonly buffer IS { float v[]; } invstd;
layout(std430, binding = 6) readonly buffer DG { float v[]; } dgamma;
layout(std430, binding = 7) readonly buffer DB { float v[]; } dbeta;
layout(std430, binding = 8) writeonly buffer DX { float v[]; } dx;
layout(push_constant) uniform P { int N, C, HW, relu; } p;
void main() {
    int e = int(gid());
    if (e >= p.N * p.C * p.HW) return;
    int c = (e / p.HW) % p.C, M = p.N * p.HW;
    float d = p.relu != 0 && !(yr.v[e] > 0.0) ? 0.0 : dy.v[e];
    precise float xh = (x.v[e] - mean.v[c]) * invstd.v[c];
    precise float invM = fm_recip(float(M));
    precise float Mf = float(M);
    precise float k = (gamma.v[c] * invstd.v[c]) * invM;
    precise float o = k * ((Mf * d - dbeta.v[c]) - xh * dgamma.v[c]);
    dx.v[e] = o;
}
