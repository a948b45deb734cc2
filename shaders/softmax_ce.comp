#version 450
#extension GL_GOOGLE_include_directive : require
// softmax_ce.comp: mean softmax cross-entropy (reference/ops.h), one workgroup. Per sample:
// m = max (first maximum gives pred); s = sum exp(l - m); lse = m + log(s);
// dl_j = (exp(l_j - m) recip(s) - [j = y]) recip(N). The per-sample losses go to part[];
// invocation 0 then adds them in ascending order: loss = (sum loss_n) recip(N).
#include "common.glsl"
#include "fmath.glsl"
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer L { float v[]; } logits;
layout(std430, binding = 1) readonly buffer Lab { int v[]; } labels;
layout(std430, binding = 2) writeonly buffer Loss { float v[]; } loss;
layout(std430, binding = 3) writeonly buffer DL { float v[]; } dl;
layout(std430, binding = 4) writeonly buffer Pred { int v[]; } pred;
layout(std430, binding = 5) coherent buffer Part { float v[]; } part;
layout(push_constant) uniform P { int N, C; } p;
void main() {
    int t = int(gl_LocalInvocationID.x);
    precise float invN = fm_recip(float(p.N));
    for (int n = t; n < p.N; n += 64) {
        int base = n * p.C, y = labels.v[n];
        float m = logits.v[base];
        int arg = 0;
        for (int j = 1; j < p.C; j++)
            if (logits.v[base + j] > m) { m = logits.v[base + j]; arg = j; }
        pred.v[n] = arg;
        precise float s = 0.0;
        for (int j = 0; j < p.C; j++) {
            precise float d = logits.v[base + j] - m;
            s = s + fm_exp(d);
        }
        precise float inv = fm_recip(s);
        precise float lse = m + fm_log(s);
        precise float ln = lse - logits.v[base + y];
        part.v[n] = ln;
        for (int j = 0; j < p.C; j++) {
            precise float d = logits.v[base + j] - m;
            precise float g = (fm_exp(d) * inv - (j == y ? 1.0 : 0.0)) * invN;
            dl.v[base + j] = g;
        }
    }
    memoryBarrierBuffer();
    barrier();
    if (t == 0) {
        precise float total = 0.0;
        for (int n = 0; n < p.N; n++) total = total + part.v[n];
        precise float r = total * invN;
        loss.v[0] = r;
    }
}
