// fmath.glsl: the twin of core/fmath.h, line for line (docs/bit-exact.md). Change both
// together. Constants are written as their float32 bits (uintBitsToFloat) so that no
// decimal-to-float conversion of the shader compiler can differ from the C compiler's; the
// C value is in the comment. Every float result is `precise` (no fused multiply-add, no
// reassociation). NaN tests use the bits instead of x != x, which some compilers fold.

uint fm_bits(float x) { return floatBitsToUint(x); }
float fm_float(uint u) { return uintBitsToFloat(u); }

// 2^e for -126 <= e <= 127, exactly.
float fm_pow2i(int e) { return uintBitsToFloat(uint(e + 127) << 23); }

// 1/x: x = m 2^e with m in [1,2); r0 = 24/17 - 8/17 m, three Newton steps, scale by 2^-e.
float fm_recip(float x) {
    uint u = fm_bits(x), sgn = u & 0x80000000u, a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return x;                          // NaN
    if (a == 0x7f800000u) return fm_float(sgn);             // 1/inf = 0
    if (a == 0u) return fm_float(sgn | 0x7f800000u);        // 1/0 = inf
    precise float pre = 1.0;
    if (a < 0x00800000u) {                                  // subnormal: scale up by 2^24
        precise float sc = fm_float(a) * fm_float(0x4b800000u); // 16777216
        a = fm_bits(sc);
        pre = fm_float(0x4b800000u);
    }
    int e = int(a >> 23) - 127;
    precise float m = fm_float((a & 0x007fffffu) | 0x3f800000u);
    precise float r = fm_float(0x3fb4b4b5u) - fm_float(0x3ef0f0f1u) * m; // 1.41176471 - 0.470588237 m
    r = r * (2.0 - m * r);
    r = r * (2.0 - m * r);
    r = r * (2.0 - m * r);
    precise float res;
    if (e >= 127) res = (r * fm_pow2i(-126)) * fm_pow2i(-(e - 126)); // result may be subnormal
    else res = r * fm_pow2i(-e);
    res = res * pre;
    return fm_float(fm_bits(res) | sgn);
}

float fm_div(float a, float b) { precise float q = a * fm_recip(b); return q; }

// 1/sqrt(x) for x >= 0: x = m 4^k with m in [1,4); r0 linear in m, four Newton steps.
float fm_rsqrt(float x) {
    uint u = fm_bits(x);
    if (u > 0x7f800000u) return fm_float(0x7fc00000u);      // negative or NaN
    if (u == 0x7f800000u) return 0.0;
    if (u == 0u) return fm_float(0x7f800000u);
    precise float post = 1.0;
    if (u < 0x00800000u) {                                  // subnormal: x 2^24, result x 2^12
        precise float sc = fm_float(u) * fm_float(0x4b800000u);
        u = fm_bits(sc);
        post = fm_float(0x45800000u);                       // 4096
    }
    int e = int(u >> 23) - 127;
    int k = e >= 0 ? e / 2 : -((1 - e) / 2);                // floor(e / 2)
    int rem = e - 2 * k;                                    // 0 or 1
    precise float m = fm_float((u & 0x007fffffu) | 0x3f800000u) * (rem != 0 ? 2.0 : 1.0);
    precise float r = fm_float(0x3f8ccccdu) - fm_float(0x3e19999au) * m; // 1.1 - 0.15 m
    r = r * (1.5 - 0.5 * m * r * r);
    r = r * (1.5 - 0.5 * m * r * r);
    r = r * (1.5 - 0.5 * m * r * r);
    r = r * (1.5 - 0.5 * m * r * r);
    precise float res = r * fm_pow2i(-k) * post;
    return res;
}

// sqrt(x): y = x rsqrt(x), then one correction y + (r/2)(x - y^2).
float fm_sqrt(float x) {
    uint u = fm_bits(x);
    if (u == 0u || u == 0x7f800000u) return x;
    precise float r = fm_rsqrt(x);
    precise float y = x * r;
    if (u < 0x00800000u || u > 0x7e800000u) return y;       // y*y would leave the normal range
    precise float res = y + (0.5 * r) * (x - y * y);
    return res;
}

// exp(x): k = round(x / ln2), r = x - k ln2 (two-part ln2), degree-7 Taylor, times 2^k.
float fm_exp(float x) {
    if ((fm_bits(x) & 0x7fffffffu) > 0x7f800000u) return x; // NaN
    if (x > fm_float(0x42b17217u)) return fm_float(0x7f800000u);  // 88.72283
    if (x < fm_float(0xc2cff1b4u)) return 0.0;                    // -103.97208
    precise float t = x * fm_float(0x3fb8aa3bu);                  // 1.44269504
    precise float th = t < 0.0 ? t - 0.5 : t + 0.5;
    int k = int(th);                                        // round half away from 0
    precise float kf = float(k);
    precise float r = (x - kf * fm_float(0x3f317200u)) - kf * fm_float(0x35bfbe8eu); // 0.693145752, 1.42860677e-06
    precise float p = 1.0 + r * (1.0 + r * (0.5 + r * (fm_float(0x3e2aaaabu) + r * (fm_float(0x3d2aaaabu) +
              r * (fm_float(0x3c088889u) + r * (fm_float(0x3ab60b61u) + r * fm_float(0x39500d01u)))))));
    precise float res;
    if (k < -126) res = (p * fm_pow2i(k + 64)) * fm_pow2i(-64);
    else if (k > 127) res = (p * fm_pow2i(k - 1)) * 2.0;
    else res = p * fm_pow2i(k);
    return res;
}

// log(x): x = m 2^e with m in [sqrt(1/2), sqrt(2)); s = (m-1)/(m+1); odd series to s^11.
float fm_log(float x) {
    uint u = fm_bits(x);
    if (u > 0x7f800000u) return fm_float(0x7fc00000u);      // negative or NaN
    if (u == 0x7f800000u) return x;
    if (u == 0u) return fm_float(0xff800000u);              // -inf
    int adj = 0;
    if (u < 0x00800000u) {
        precise float sc = fm_float(u) * fm_float(0x4b800000u);
        u = fm_bits(sc);
        adj = -24;
    }
    int e = int(u >> 23) - 127 + adj;
    precise float m = fm_float((u & 0x007fffffu) | 0x3f800000u);
    if (m > fm_float(0x3fb504f3u)) {                        // 1.41421354
        m = m * 0.5;
        e = e + 1;
    }
    precise float s = (m - 1.0) * fm_recip(m + 1.0);
    precise float s2 = s * s;
    precise float p = 2.0 + s2 * (fm_float(0x3f2aaaabu) + s2 * (fm_float(0x3ecccccdu) + s2 * (fm_float(0x3e924925u) +
              s2 * (fm_float(0x3e638e39u) + s2 * fm_float(0x3e3a2e8cu)))));
    precise float ef = float(e);
    precise float res = ef * fm_float(0x3f317200u) + (ef * fm_float(0x35bfbe8eu) + s * p);
    return res;
}
