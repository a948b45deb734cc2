#version 450
#extension GL_GOOGLE_include_directive : require
// linear_fwd.comp: y[n][o] = (sum over i ascending of w[o][i] x[n][i]) + b[o].
#include "common.glsl"
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float v[]; } x;
layout(std430, binding = 1) readonly buffer Wt { float v[]; } w;
layout(std430, binding = 2) readonly buffer B { float v[]; } b;
layout(std430, binding = 3) writeonly buffer Y { float v[]; } y;
layout(push_constant) uniform P { int N, I, O; } p;
void main() {
    int e = int(gid());
    if (e >= p.N * p.O) return;
    int n = e / p.O, o = e % p.O;
    precise float acc = 0.0;
    for (int i = 0; i < p.I; i++) acc = acc + w.v[o * p.I + i] * x.v[n * p.I + i];
    precise float r = acc + b.v[o];
    y.v[e] = r;
}
