#version 450
#extension GL_GOOGLE_include_directive : require
// supcon.comp: the supervised contrastive loss (eq:method.losscl) and dz = lambda dL/dz,
// following ref_supcon (reference/ops.c) step by step. One dispatch per phase (push constant
// `phase`), each spread over the whole device; the barrier between dispatches orders them:
//  0 per row i: zn_i = z_i recip(sqrt(sum_j z_ij^2)) (0 when the norm is 0); positives npos_i
//  1 per pair: sim[i][k] = (sum_j zn_ij zn_kj) recip(tau) for k != i
//  2 per anchor i (npos > 0): mx = max_k sim; lse = mx + log(sum_k exp(sim - mx));
//    l_i = sum over positives k of (lse - sim_ik) recip(npos); invocation 0 also counts the
//    anchors A and stores recip(A)
//  3 per pair: coef[i][k] = ((exp(sim_ik - lse) - [positive] recip(npos)) recip(A)) recip(tau)
//  4 per element of gn: gn[m] in the reference's order: over anchors i ascending, at i = m the
//    terms coef[m][k] zn_k for k ascending, at i != m the one term coef[i][m] zn_i;
//    invocation 0 also: loss = sum over anchors (ascending) of l_i recip(A)
//  5 per row: dot_i = zn_i . gn_i
//  6 per element: dz_i = lambda ((gn_i - zn_i dot_i) recip(|z_i|))
// Scratch (binding 3): zn, gn [N D], sim, coef [N N], nrminv, npos, li, lse, dot [N], invA.
#include "common.glsl"
#include "fmath.glsl"
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Z { float v[]; } z;
layout(std430, binding = 1) readonly buffer Lab { int v[]; } y;
layout(std430, binding = 2) writeonly buffer Loss { float v[]; } loss;
layout(std430, binding = 3) buffer S { float v[]; } s;
layout(std430, binding = 4) writeonly buffer DZ { float v[]; } dz;
layout(push_constant) uniform P { int N, D; float tau, lambda; int phase; } p;

void main() {
    int e = int(gid()), N = p.N, D = p.D;
    int ZN = 0, GN = N * D, SIM = 2 * N * D, COEF = SIM + N * N, NRM = COEF + N * N, NPOS = NRM + N,
        LI = NPOS + N, LSE = LI + N, DOT = LSE + N, INVA = DOT + N;
    precise float inv_tau = fm_recip(p.tau);
    if (p.phase == 0) {
        if (e >= N) return;
        int i = e;
        precise float ss = 0.0;
        for (int j = 0; j < D; j++) ss = ss + z.v[i * D + j] * z.v[i * D + j];
        precise float nr = fm_sqrt(ss);
        precise float ni = nr > 0.0 ? fm_recip(nr) : 0.0;
        s.v[NRM + i] = ni;
        for (int j = 0; j < D; j++) {
            precise float zn = z.v[i * D + j] * ni;
            s.v[ZN + i * D + j] = zn;
        }
        int np = 0;
        for (int j = 0; j < N; j++) np += (j != i && y.v[j] == y.v[i]) ? 1 : 0;
        s.v[NPOS + i] = float(np);
    } else if (p.phase == 1) {
        if (e >= N * N) return;
        int i = e / N, k = e % N;
        if (i == k) return;
        precise float d = 0.0;
        for (int j = 0; j < D; j++) d = d + s.v[ZN + i * D + j] * s.v[ZN + k * D + j];
        precise float sm = d * inv_tau;
        s.v[SIM + e] = sm;
    } else if (p.phase == 2) {
        if (e >= N) return;
        int i = e;
        if (i == 0) {
            int anchors = 0;
            for (int k = 0; k < N; k++) anchors += s.v[NPOS + k] > 0.0 ? 1 : 0;
            precise float invA = anchors > 0 ? fm_recip(float(anchors)) : 0.0;
            s.v[INVA] = invA;
        }
        float np = s.v[NPOS + i];
        if (np == 0.0) return;
        precise float invP = fm_recip(np);
        float mx = uintBitsToFloat(0xff7fffffu); // -3.4028235e38
        for (int k = 0; k < N; k++)
            if (k != i && s.v[SIM + i * N + k] > mx) mx = s.v[SIM + i * N + k];
        precise float den = 0.0;
        for (int k = 0; k < N; k++)
            if (k != i) {
                precise float d = s.v[SIM + i * N + k] - mx;
                den = den + fm_exp(d);
            }
        precise float lse = mx + fm_log(den);
        precise float li = 0.0;
        for (int k = 0; k < N; k++)
            if (k != i && y.v[k] == y.v[i]) li = li + (lse - s.v[SIM + i * N + k]) * invP;
        s.v[LI + i] = li;
        s.v[LSE + i] = lse;
    } else if (p.phase == 3) {
        if (e >= N * N) return;
        int i = e / N, k = e % N;
        float np = s.v[NPOS + i];
        if (i == k || np == 0.0) return;
        precise float invP = fm_recip(np);
        precise float d = s.v[SIM + e] - s.v[LSE + i];
        precise float c = ((fm_exp(d) - (y.v[k] == y.v[i] ? invP : 0.0)) * s.v[INVA]) * inv_tau;
        s.v[COEF + e] = c;
    } else if (p.phase == 4) {
        if (e == 0) {
            precise float total = 0.0;
            for (int i = 0; i < N; i++)
                if (s.v[NPOS + i] > 0.0) total = total + s.v[LI + i] * s.v[INVA];
            loss.v[0] = total;
        }
        if (e >= N * D) return;
        int m = e / D, j = e % D;
        precise float g = 0.0;
        for (int i = 0; i < N; i++) {
            if (s.v[NPOS + i] == 0.0) continue;
            if (i == m) {
                for (int k = 0; k < N; k++)
                    if (k != m) g = g + s.v[COEF + m * N + k] * s.v[ZN + k * D + j];
            } else {
                g = g + s.v[COEF + i * N + m] * s.v[ZN + i * D + j];
            }
        }
        s.v[GN + e] = g;
    } else if (p.phase == 5) {
        if (e >= N) return;
        precise float d = 0.0;
        for (int j = 0; j < D; j++) d = d + s.v[ZN + e * D + j] * s.v[GN + e * D + j];
        s.v[DOT + e] = d;
    } else {
        if (e >= N * D) return;
        int i = e / D;
        precise float r = p.lambda * ((s.v[GN + e] - s.v[ZN + e] * s.v[DOT + i]) * s.v[NRM + i]);
        dz.v[e] = r;
    }
}
