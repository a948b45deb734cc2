#version 450
#extension GL_GOOGLE_include_directive : require
// probe.comp: the start-up check of the float behaviour the contract needs (docs/bit-exact.md):
// for each triple (a, b, c): a*b, a+b, a-b and a*b+c as two separately rounded operations.
// The host compares the bits with its own; a fused multiply-add, a flushed denormal or an
// incorrectly rounded result shows up as a difference.
#include "common.glsl"
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { float v[]; } inp;
layout(std430, binding = 1) writeonly buffer Out { float v[]; } outp;
layout(push_constant) uniform P { uint n; } p;
void main() {
    uint i = gid();
    if (i >= p.n) return;
    float a = inp.v[3 * i], b = inp.v[3 * i + 1], c = inp.v[3 * i + 2];
    precise float m = a * b;
    precise float s = a + b;
    precise float d = a - b;
    precise float f = a * b + c;
    outp.v[4 * i] = m;
    outp.v[4 * i + 1] = s;
    outp.v[4 * i + 2] = d;
    outp.v[4 * i + 3] = f;
}
