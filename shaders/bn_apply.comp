#version 450
#extension GL_GOOGLE_include_directive : require
// bn_apply.comp: BatchNorm training output per element: xhat = (x - mean) invstd,
// y = xhat gamma + beta, with the channel's statistics from bn_stats.comp; relu = 1 fuses the
// ReLU that follows (y > 0 ? y : 0, as eltwise.comp). xhat is not stored: the backward pass
// recomputes it with the same two operations.
#include "common.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer X { float v[]; } x;
layout(std430, binding = 1) readonly buffer Mean { float v[]; } mean;
layout(std430, binding = 2) readonly buffer Invstd { float v[]; } invstd;
layout(std430, binding = 3) readonly buffer G { float v[]; } gamma;
layout(std430, binding = 4) readonly buffer B { float v[]; } beta;
layout(std430, binding = 5) writeonly buffer Y { float v[]; } y;
layout(push_constant) uniform P { int N, C, HW, relu; } p;
void main() {
    int e = int(gid());
    if (e >= p.N * p.C * p.HW) return;
    int c = (e / p.HW) % p.C;
    precise float xh = (x.v[e] - mean.v[c]) * invstd.v[c];
    precise float o = xh * gamma.v[c] + beta.v[c];
    y.v[e] = p.relu != 0 && !(o > 0.0) ? 0.0 : o;
}
