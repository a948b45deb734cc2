#version 450
#extension GL_GOOGLE_include_directive : require
// fmath.comp: the GLSL math library on a table of inputs, for the C-against-GLSL identity
// check of `flce check` (case FMATH): out = recip(x), div(x, y), rsqrt(x), sqrt(x), exp(x), log(x).
#include "common.glsl"
#include "fmath.glsl"
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float v[]; } xs;
layout(std430, binding = 1) readonly buffer Y { float v[]; } ys;
layout(std430, binding = 2) writeonly buffer Out { float v[]; } outp;
layout(push_constant) uniform P { uint n; } p;
void main() {
    uint i = gid();
    if (i >= p.n) return;
    float x = xs.v[i];
    outp.v[6 * i] = fm_recip(x);
    outp.v[6 * i + 1] = fm_div(x, ys.v[i]);
    outp.v[6 * i + 2] = fm_rsqrt(x);
    outp.v[6 * i + 3] = fm_sqrt(x);
    outp.v[6 * i + 4] = fm_exp(x);
    outp.v[6 * i + 5] = fm_log(x);
}
