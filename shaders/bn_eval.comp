#version 450
#extension GL_GOOGLE_include_directive : require
// bn_eval.comp: y = ((x - running_mean) rsqrt(running_var + eps)) gamma + beta; relu = 1 fuses the
// ReLU after it (y = o > 0 ? o : 0).
#include "common.glsl"
#include "fmath.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer X { float v[]; } x;
layout(std430, binding = 1) readonly buffer G { float v[]; } gamma;
layout(std430, binding = 2) readonly buffer B { float v[]; } beta;
layout(std430, binding = 3) readonly buffer RM { float v[]; } rm;
layout(std430, binding = 4) readonly buffer RV { float v[]; } rv;
layout(std430, binding = 5) writeonly buffer Y { float v[]; } y;
layout(push_constant) uniform P { int N, C, HW; float eps; int relu; } p;
void main() {
    int e = int(gid());
    if (e >= p.N * p.C * p.HW) return;
    int c = (e / p.HW) % p.C;
    precise float is = fm_rsqrt(rv.v[c] + p.eps);
    precise float o = ((x.v[e] - rm.v[c]) * is) * gamma.v[c] + beta.v[c];
    y.v[e] = p.relu != 0 && !(o > 0.0) ? 0.0 : o;
}
