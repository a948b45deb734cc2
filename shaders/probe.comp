#version 450
#extension GL_GOOGLE_include_directive : require
// probe.comp: the start-up check of the float behaviour the contract needs (docs/bit-exact.md),
// in the mode the backend is to compute in (denormals preserved, or flushed to zero). For each
// triple (a, b, c), eleven results: a*b, a+b, a-b and a*b+c as two separately rounded operations;
// a < b (1 or 0), the larger and the smaller of a and b by comparison (as the op shaders pick),
// a ReLU of a; and the math library's recip(a), log(a) and exp(c), which take subnormal
// inputs and give subnormal results. The host computes the same in the same mode and compares
// the bits: a fused multiply-add, a denormal treated otherwise than the mode says, a flushed
// zero of the wrong sign or an incorrectly rounded result shows up as a difference.
#include "common.glsl"
#include "fmath.glsl"
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
    outp.v[11 * i] = m;
    outp.v[11 * i + 1] = s;
    outp.v[11 * i + 2] = d;
    outp.v[11 * i + 3] = f;
    outp.v[11 * i + 4] = a < b ? 1.0 : 0.0;
    outp.v[11 * i + 5] = a < b ? b : a;
    outp.v[11 * i + 6] = b < a ? b : a;
    outp.v[11 * i + 7] = a > 0.0 ? a : 0.0;
    outp.v[11 * i + 8] = fm_recip(a);
    outp.v[11 * i + 9] = fm_log(a);
    outp.v[11 * i + 10] = fm_exp(c);
}
