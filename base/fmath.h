/* fmath.h: the deterministic float32 math library of the bit-exact contract
 * (docs/bit-exact.md). Reciprocal, division, reciprocal square root, square root, exp
 * and log built from float + - * (each rounded on its own: the build uses
 * -ffp-contract=off), integer bit operations, comparisons and exact int<->float
 * conversions only. shaders/fmath.glsl is its twin, line for line; change both together.
 *
 * Domain: finite inputs give finite results where the true result is representable;
 * subnormal inputs are scaled into the normal range first. Accuracy (tests/test_fmath.c):
 * measured worst cases over 300,000 random inputs: recip 1.96, rsqrt 1.72, sqrt 2.5, div 2.8,
 * exp 1.2, log 4.0 ulp (asserted: 2, 2, 3, 3, 3, 4). Not correctly rounded, but the same bits
 * everywhere. */
#ifndef FLCE_FMATH_H
#define FLCE_FMATH_H

#include <stdint.h>
#include <string.h>

static inline uint32_t fm_bits(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

static inline float fm_float(uint32_t u) {
    float x;
    memcpy(&x, &u, 4);
    return x;
}

/* 2^e for -126 <= e <= 127, exactly. */
static inline float fm_pow2i(int32_t e) { return fm_float((uint32_t)(e + 127) << 23); }

/* 1/x: x = m 2^e with m in [1,2); r0 = 24/17 - 8/17 m (max rel. error 1/17), three Newton
 * steps r = r (2 - m r), then scale by 2^-e. */
static inline float fm_recip(float x) {
    uint32_t u = fm_bits(x), sign = u & 0x80000000u, a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return x;                          /* NaN */
    if (a == 0x7f800000u) return fm_float(sign);            /* 1/inf = 0 */
    if (a == 0) return fm_float(sign | 0x7f800000u);        /* 1/0 = inf */
    float pre = 1.0f;
    if (a < 0x00800000u) {                                  /* subnormal: scale up by 2^24 */
        a = fm_bits(fm_float(a) * 16777216.0f);
        pre = 16777216.0f;
    }
    int32_t e = (int32_t)(a >> 23) - 127;
    float m = fm_float((a & 0x007fffffu) | 0x3f800000u);
    float r = 1.41176471f - 0.470588237f * m;
    r = r * (2.0f - m * r);
    r = r * (2.0f - m * r);
    r = r * (2.0f - m * r);
    float res;
    if (e >= 127) res = (r * fm_pow2i(-126)) * fm_pow2i(-(e - 126)); /* result may be subnormal */
    else res = r * fm_pow2i(-e);
    res = res * pre;
    return fm_float(fm_bits(res) | sign);
}

static inline float fm_div(float a, float b) { return a * fm_recip(b); }

/* 1/sqrt(x) for x >= 0: x = m 4^k with m in [1,4); r0 linear in m, four Newton steps
 * r = r (1.5 - 0.5 m r^2), then scale by 2^-k. */
static inline float fm_rsqrt(float x) {
    uint32_t u = fm_bits(x);
    if (u > 0x7f800000u) return fm_float(0x7fc00000u);      /* negative or NaN */
    if (u == 0x7f800000u) return 0.0f;
    if (u == 0) return fm_float(0x7f800000u);
    float post = 1.0f;
    if (u < 0x00800000u) {                                  /* subnormal: x 2^24, result x 2^12 */
        u = fm_bits(fm_float(u) * 16777216.0f);
        post = 4096.0f;
    }
    int32_t e = (int32_t)(u >> 23) - 127;
    int32_t k = e >= 0 ? e / 2 : -((1 - e) / 2);           /* floor(e / 2) */
    int32_t rem = e - 2 * k;                                /* 0 or 1 */
    float m = fm_float((u & 0x007fffffu) | 0x3f800000u) * (rem ? 2.0f : 1.0f);
    float r = 1.1f - 0.15f * m;
    r = r * (1.5f - 0.5f * m * r * r);
    r = r * (1.5f - 0.5f * m * r * r);
    r = r * (1.5f - 0.5f * m * r * r);
    r = r * (1.5f - 0.5f * m * r * r);
    return r * fm_pow2i(-k) * post;
}

/* sqrt(x): y = x rsqrt(x), then one correction y + (r/2)(x - y^2); 0 and inf map to
 * themselves. */
static inline float fm_sqrt(float x) {
    uint32_t u = fm_bits(x);
    if (u == 0 || u == 0x7f800000u) return x;
    float r = fm_rsqrt(x);
    float y = x * r;
    if (u < 0x00800000u || u > 0x7e800000u) return y; /* y*y would leave the normal range */
    return y + (0.5f * r) * (x - y * y);
}

/* exp(x): k = round(x / ln2) by exact conversions, r = x - k ln2 (two-part ln2),
 * degree-7 Taylor polynomial in Horner form, times 2^k. */
static inline float fm_exp(float x) {
    if (x != x) return x;
    if (x > 88.72283f) return fm_float(0x7f800000u);
    if (x < -103.97208f) return 0.0f;
    float t = x * 1.44269504f;
    int32_t k = (int32_t)(t < 0.0f ? t - 0.5f : t + 0.5f);  /* round half away from 0 */
    float kf = (float)k;
    float r = (x - kf * 0.693145752f) - kf * 1.42860677e-06f;
    float p = 1.0f + r * (1.0f + r * (0.5f + r * (0.166666672f + r * (0.0416666679f +
              r * (0.00833333377f + r * (0.00138888892f + r * 0.000198412701f))))));
    if (k < -126) return (p * fm_pow2i(k + 64)) * fm_pow2i(-64);
    if (k > 127) return (p * fm_pow2i(k - 1)) * 2.0f;
    return p * fm_pow2i(k);
}

/* log(x): x = m 2^e with m in [sqrt(1/2), sqrt(2)); s = (m-1)/(m+1);
 * log(m) = 2 (s + s^3/3 + ... + s^11/11); log(x) = e ln2 + log(m). */
static inline float fm_log(float x) {
    uint32_t u = fm_bits(x);
    if (u > 0x7f800000u) return fm_float(0x7fc00000u);      /* negative or NaN */
    if (u == 0x7f800000u) return x;
    if (u == 0) return fm_float(0xff800000u);               /* -inf */
    int32_t adj = 0;
    if (u < 0x00800000u) {
        u = fm_bits(fm_float(u) * 16777216.0f);
        adj = -24;
    }
    int32_t e = (int32_t)(u >> 23) - 127 + adj;
    float m = fm_float((u & 0x007fffffu) | 0x3f800000u);
    if (m > 1.41421354f) {
        m = m * 0.5f;
        e = e + 1;
    }
    float s = (m - 1.0f) * fm_recip(m + 1.0f);
    float s2 = s * s;
    float p = 2.0f + s2 * (0.666666687f + s2 * (0.400000006f + s2 * (0.285714298f +
              s2 * (0.222222224f + s2 * 0.181818187f))));
    float ef = (float)e;
    return ef * 0.693145752f + (ef * 1.42860677e-06f + s * p);
}

#endif
