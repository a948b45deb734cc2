#version 450
#extension GL_GOOGLE_include_directive : require
// bn_bwd_apply.comp: dx = ((gamma invstd) invM) ((M dy - dbeta) - xhat dgamma).
#include "common.glsl"
#include "fmath.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer DY { float v[]; } dy;
layout(std430, binding = 1) readonly buffer Xhat { float v[]; } xhat;
layout(std430, binding = 2) readonly buffer G { float v[]; } gamma;
layout(std430, binding = 3) readonly buffer IS { float v[]; } invstd;
layout(std430, binding = 4) readonly buffer DG { float v[]; } dgamma;
layout(std430, binding = 5) readonly buffer DB { float v[]; } dbeta;
layout(std430, binding = 6) writeonly buffer DX { float v[]; } dx;
layout(push_constant) uniform P { int N, C, HW; } p;
void main() {
    int e = int(gid());
    if (e >= p.N * p.C * p.HW) return;
    int c = (e / p.HW) % p.C, M = p.N * p.HW;
    precise float invM = fm_recip(float(M));
    precise float Mf = float(M);
    precise float k = (gamma.v[c] * invstd.v[c]) * invM;
    precise float o = k * ((Mf * dy.v[e] - dbeta.v[c]) - xhat.v[e] * dgamma.v[c]);
    dx.v[e] = o;
}
