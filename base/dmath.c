/* dmath.c: deterministic double-precision log and exp for the host side (random
 * distributions, partitions). Only + - * /, sqrt-free polynomials, exact scaling and
 * bit operations, so every platform computes the same bits (libm differs between
 * versions). Accuracy: within 2 ulp of libm over the tested range (tests/test_rng.c). */
#include "base.h"

#include <math.h>
#include <string.h>

static const double LN2_HI = 6.93147180369123816490e-01; /* trailing zeros: k*LN2_HI exact */
static const double LN2_LO = 1.90821492927058770002e-10;
static const double INV_LN2 = 1.44269504088896338700e+00;

/* log(x) = e*ln2 + 2 atanh(f), f = (m-1)/(m+1), m in [sqrt(1/2), sqrt(2)). */
double flce_dlog(double x) {
    if (x != x) return x;
    if (x < 0.0) return NAN;
    if (x == 0.0) return -INFINITY;
    if (x == INFINITY) return x;
    int e = 0;
    if (x < 2.2250738585072014e-308) { /* subnormal: scale into the normal range, exactly */
        x *= 18014398509481984.0;         /* 2^54 */
        e = -54;
    }
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    e += (int)((b >> 52) & 0x7ff) - 1023;
    b = (b & 0x000fffffffffffffull) | 0x3ff0000000000000ull; /* m in [1, 2) */
    double m;
    memcpy(&m, &b, sizeof m);
    if (m > 1.4142135623730951) {
        m *= 0.5;
        e += 1;
    }
    double f = (m - 1.0) / (m + 1.0);
    double s = f * f;
    double p = 1.0 / 25.0; /* sum_{j=0}^{12} s^j / (2j+1), Horner from the top */
    for (int j = 11; j >= 0; j--) p = p * s + 1.0 / (double)(2 * j + 1);
    double lm = 2.0 * f * p;
    return (double)e * LN2_HI + ((double)e * LN2_LO + lm);
}

/* exp(x) = 2^k exp(r), r = x - k ln2 in [-ln2/2, ln2/2], exp(r) by degree-14 Taylor. */
double flce_dexp(double x) {
    if (x != x) return x;
    if (x > 709.782712893384) return INFINITY;
    if (x < -745.1332191019412) return 0.0;
    double k = floor(x * INV_LN2 + 0.5);
    double r = (x - k * LN2_HI) - k * LN2_LO;
    double p = 1.0;
    for (int j = 14; j >= 1; j--) p = 1.0 + p * r / (double)j;
    return ldexp(p, (int)k);
}
