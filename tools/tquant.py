#!/usr/bin/env python3
"""Student t quantiles and the report's power columns, worked out here another way than the
report does (apps/report/report_stats.c inverts the incomplete beta function): for whole degrees
of freedom the t distribution has closed forms (Abramowitz and Stegun 26.7.3 and 26.7.4, with
theta = atan(t / sqrt(df))), inverted by bisection.

  python3 tools/tquant.py check CSV D H N SD DET SEEDS: every row of CSV whose columns D (the
  difference), H (the half-width) and N (the seeds) are filled: SD, DET and SEEDS as issue 80
  defines them (sd = h sqrt(n) / t(0.975, n - 1); detectable = (t(0.975, n - 1) + t(0.80, n - 1))
  sd / sqrt(n); seeds: the smallest m >= 2 with (t(0.975, m - 1) + t(0.80, m - 1)) sd / sqrt(m) <=
  |d|, ">100" where none to 100, "n/a" where d or sd is 0); rows without a half-width have the
  three empty. Prints how many rows it checked; exits 1 at the first that differs."""
import csv
import math
import sys


def t_cdf(t, df):
    """P(T <= t), A&S 26.7.3 (odd df) and 26.7.4 (even df)."""
    th = math.atan(t / math.sqrt(df))
    c, s = math.cos(th), math.sin(th)
    if df % 2:  # odd
        if df == 1:
            a = 2 / math.pi * th
        else:
            term, tot = c, c
            for k in range(3, df - 1, 2):  # cos + 2/3 cos^3 + 2*4/(3*5) cos^5 ...
                term *= (k - 1) / k * c * c
                tot += term
            a = 2 / math.pi * (th + s * tot)
    else:
        term, tot = 1.0, 1.0
        for k in range(2, df - 1, 2):  # 1 + 1/2 cos^2 + 1*3/(2*4) cos^4 ...
            term *= (k - 1) / k * c * c
            tot += term
        a = s * tot
    return 0.5 + a / 2


_memo = {}


def t_quantile(p, df):
    if (p, df) not in _memo:
        lo, hi = -1e4, 1e4
        for _ in range(200):
            mid = (lo + hi) / 2
            if t_cdf(mid, df) < p:
                lo = mid
            else:
                hi = mid
        _memo[(p, df)] = (lo + hi) / 2
    return _memo[(p, df)]


def power(d, h, n):
    t = t_quantile(0.975, n - 1)
    sd = h * math.sqrt(n) / t
    det = (t + t_quantile(0.8, n - 1)) * sd / math.sqrt(n)
    if d == 0 or sd == 0:
        return sd, det, "n/a"
    for m in range(2, 101):
        if (t_quantile(0.975, m - 1) + t_quantile(0.8, m - 1)) * sd / math.sqrt(m) <= abs(d):
            return sd, det, str(m)
    return sd, det, ">100"


def near(a, b):
    return abs(a - b) <= 1e-7 * max(1.0, abs(b))


def check(path, dc, hc, nc, sc, ec, mc):
    rows = 0
    for r in csv.DictReader(open(path)):
        if r[hc] == "" or int(r[nc]) < 2:
            if (r[sc], r[ec], r[mc]) != ("", "", ""):
                sys.exit(f"{path}: {r}: no half-width, yet power columns")
            continue
        sd, det, m = power(float(r[dc]), float(r[hc]), int(r[nc]))
        if not (near(float(r[sc]), sd) and near(float(r[ec]), det) and r[mc] == m):
            sys.exit(f"{path}: {r}: worked out here sd {sd}, detectable {det}, seeds {m}")
        rows += 1
    print(rows)


if __name__ == "__main__":
    if len(sys.argv) == 9 and sys.argv[1] == "check":
        check(*sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "t":
        print(repr(t_quantile(float(sys.argv[2]), int(sys.argv[3]))))
    else:
        sys.exit(__doc__)
