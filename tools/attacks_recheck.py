#!/usr/bin/env python3
"""attacks_recheck.py: an independent recomputation of the strategic-clients study's table
(docs/results/fmnist-attacks/report/attacks.csv, PLAN.md's rule) from the run folders alone.

It shares no code with tools/attacks_table.py, tools/tquant.py or tools/flce_digest.py and imports
none of them: runs are found, paired and summed here from the plan's definitions, and the Student
t quantiles come from a regularized incomplete beta function (a continued fraction written below)
inverted by bisection. Python's standard library only.

  python3 tools/attacks_recheck.py [--table docs/results/fmnist-attacks/report/attacks.csv]
      [--study runs/attacks] [--truth runs/truth] [--guard runs/guard] [--selftest]

Attacked runs: STUDY/fmnist-attack-ARM-sS/METHOD, for FLCE where that has none the guard study's
GUARD/fmnist-guard-ARM-paper-sS; honest: TRUTH/fmnist-truth-label-k-runs-sS/METHOD; a run counts
once it has digests.txt. Runs are grouped by the attacks their config.json names (not by folder
name) and method, paired by seed. A control: every pair's contributions equal, value for value.
One seed gives no interval: 'undecided' unless a control. Every field of every table row is
recomputed; numbers must agree within 1e-6, words exactly. Also reported as problems: a config
seed other than its folder's, an honest run with attackers, an attacked run without, the study's
and the guard's run of one arm and seed with other contributions. Prints a line a row, then
'N agree, M differ'; exits 1 where a row differs, on a problem, or where the table and the
recomputation have other rows; 2 on a usage error. --selftest: the t quantiles against KNOWN_T."""
import argparse
import csv
import json
import math
import os
import re
import sys

METHODS = ['flce', 'fedavg', 'fedprox', 'ditto', 'moon', 'fedfv', 'cgsv', 'qfedavg', 'fedfa', 'fedsv', 'gtg']
COLUMNS = ['kind', 'strength', 'method', 'n', 'honest_share', 'attacked_share', 'difference', 'half_width', 'sd',
           'detectable_difference', 'seeds_to_decide', 'verdict', 'accuracy_difference', 'accuracy_half_width',
           'attackers', 'attacker_rank_attacked', 'attacker_rank_honest', 'honest_order_spearman',
           'runs_identical_to_honest', 'seeds']
# A printed t table. t(0.80, 9) is 0.883404 (R: qt(0.8, 9) = 0.8834039), not 0.883035, a value once
# quoted for it: Simpson's rule on the t9 density gives P(T <= 0.883035) = 0.79991.
KNOWN_T = [(0.975, 2, 4.302653), (0.975, 9, 2.262157), (0.80, 2, 1.060660), (0.80, 9, 0.883404)]
TOL = 1e-6


def fail(msg):
    print(f'attacks_recheck.py: {msg}', file=sys.stderr)
    sys.exit(1)


def betainc(a, b, x):
    """I_x(a, b): lead * (f - 1), f = 1 + 1/(1 + d1/(1 + d2/(1 + ...))) by modified Lentz."""
    if x <= 0 or x >= 1:
        return 0.0 if x <= 0 else 1.0
    if x > (a + 1) / (a + b + 2):  # the fraction converges fast on this side only
        return 1.0 - betainc(b, a, 1 - x)
    lead = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)) / a
    tiny, f, c, d = 1e-300, 1.0, 1.0, 0.0
    for i in range(400):
        m = i // 2  # numerators: 1, then d_(2m+1) for odd i, d_(2m) for even i
        num = (1.0 if i == 0 else -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)) if i % 2
               else m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)))
        d = 1 / ((1 + num * d) if abs(1 + num * d) > tiny else tiny)
        c = (1 + num / c) if abs(1 + num / c) > tiny else tiny
        f *= c * d
        if abs(c * d - 1) < 1e-16:
            break
    return lead * (f - 1)


def t_cdf(t, df):
    tail = 0.5 * betainc(df / 2, 0.5, df / (df + t * t))  # P(T > |t|)
    return 1 - tail if t > 0 else tail


_tq = {}


def t_q(p, df):
    """The p quantile (p >= 0.5) of Student's t with df degrees of freedom, by bisection."""
    if (p, df) not in _tq:
        lo, hi = 0.0, 1e4
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if t_cdf(mid, df) < p else (lo, mid)
        _tq[(p, df)] = (lo + hi) / 2
    return _tq[(p, df)]


def read_csv(path):
    try:
        with open(path, newline='', encoding='utf-8') as f:
            return [r for r in csv.reader(f) if r]
    except OSError as e:
        fail(f'{path}: {e.strerror}')


def load(d):
    """A finished run's contributions, accuracy, attacks, attackers and seed; None if unfinished."""
    if not os.path.isfile(os.path.join(d, 'digests.txt')):
        return None
    try:
        rows = read_csv(os.path.join(d, 'contributions.csv'))
        assert rows[0] == ['client', 'contribution'] and [int(r[0]) for r in rows[1:]] == list(range(len(rows) - 1))
        contrib = [float(r[1]) for r in rows[1:]]
        rows = read_csv(os.path.join(d, 'metrics.csv'))
        acc = [float(r[rows[0].index('accuracy')]) for r in rows[1:]][-10:]  # the last min(10, T) rounds
        with open(os.path.join(d, 'config.json'), encoding='utf-8') as f:
            cfg = json.load(f)
        attacks = tuple(sorted(tuple(a.split(':')) for a in cfg.get('attacks') or []))
        return {'dir': d, 'contrib': contrib, 'acc': math.fsum(acc) / len(acc), 'attacks': attacks,
                'who': sorted({int(a[1]) for a in attacks}), 'seed': cfg.get('seed')}
    except OSError as e:
        fail(f'{d}: {e.filename}: {e.strerror}')
    except (AssertionError, ValueError, IndexError, KeyError, ZeroDivisionError, AttributeError, TypeError) as e:
        fail(f'{d}: a file not as expected ({type(e).__name__}: {e})')


def attacked_runs(study, guard, problems):
    """{(attacks, method): {seed: run}}: the study's runs, then the guard's paper runs (FLCE) where
    the study has no finished one of that arm and seed."""
    out = {}
    found = [(re.fullmatch(r'fmnist-attack-.+-s(\d+)', n), os.path.join(study, n), METHODS) for n in sorted(os.listdir(study))]
    found += [(re.fullmatch(r'fmnist-guard-.+-paper-s(\d+)', n), os.path.join(guard, n), [None]) for n in sorted(os.listdir(guard))]
    for m, path, methods in found:
        for meth in methods if m else []:
            run = load(os.path.join(path, meth) if meth else path)
            seed, meth = int(m.group(1)), meth or 'flce'
            if run is None:
                continue
            if not run['who']:
                problems.append(f'{run["dir"]}: an attacked run without attackers')
                continue
            if run['seed'] != seed:
                problems.append(f'{run["dir"]}: config seed {run["seed"]}, folder seed {seed}')
            got = out.setdefault((run['attacks'], meth), {})
            if seed in got and got[seed]['contrib'] != run['contrib']:
                problems.append(f'{got[seed]["dir"]} and {run["dir"]}: the same arm and seed, other contributions')
            got.setdefault(seed, run)
    return out


def mean(x):
    return math.fsum(x) / len(x)


def interval(diffs):
    """Mean, 95% half-width and sample sd (None, None below two values)."""
    n, d = len(diffs), mean(diffs)
    if n < 2:
        return d, None, None
    sd = math.sqrt(math.fsum((x - d) ** 2 for x in diffs) / (n - 1))
    return d, t_q(0.975, n - 1) * sd / math.sqrt(n), sd


def share(contrib, who):
    c = [max(x, 0.0) for x in contrib]
    return len(who) / len(c) if math.fsum(c) == 0 else math.fsum(c[i] for i in who) / math.fsum(c)


def rank_of(contrib, i):  # 1: the highest; ties: the lower client index first
    return 1 + sum(1 for k, x in enumerate(contrib) if x > contrib[i] or (x == contrib[i] and k < i))


def spearman(x, y):
    rx, ry = ([sum(v < u for v in z) + (sum(v == u for v in z) + 1) / 2 for u in z] for z in (x, y))  # average ranks
    mx, my = mean(rx), mean(ry)
    sxy = math.fsum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx, syy = math.fsum((a - mx) ** 2 for a in rx), math.fsum((b - my) ** 2 for b in ry)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else None


def row_of(attacks, method, pairs):
    """The table's columns for one group of (seed, honest, attacked): numbers, words, None (empty)."""
    who, n_cl, n = pairs[0][2]['who'], len(pairs[0][2]['contrib']), len(pairs)
    thr = 1 / (2 * n_cl)
    hs = [share(h['contrib'], who) for _, h, _ in pairs]
    at = [share(a['contrib'], who) for _, _, a in pairs]
    d, h, sd = interval([y - x for x, y in zip(hs, at)])
    da, ha, _ = interval([a['acc'] - hh['acc'] for _, hh, a in pairs])
    same = sum(a['contrib'] == hh['contrib'] for _, hh, a in pairs)
    det = need = None
    if sd is not None:  # power of the distance to the threshold
        det = (t_q(0.975, n - 1) + t_q(0.80, n - 1)) * sd / math.sqrt(n)
        need = 'n/a' if d - thr == 0 or sd == 0 else next(
            (m for m in range(2, 101) if (t_q(0.975, m - 1) + t_q(0.80, m - 1)) * sd / math.sqrt(m) <= abs(d - thr)), '>100')
    verdict = ('control: the honest bytes' if same == n else 'undecided' if h is None else
               'manipulable' if d >= thr and d - h > 0 else 'resists' if d + h < thr else 'undecided')
    others = [i for i in range(n_cl) if i not in who]
    sp = [spearman([hh['contrib'][i] for i in others], [a['contrib'][i] for i in others]) for _, hh, a in pairs]
    return {'kind': ','.join(sorted({a[0] for a in attacks})), 'method': method, 'n': n,
            'strength': ','.join(sorted({a[2] if len(a) > 2 and a[2] else 'default' for a in attacks})),
            'honest_share': mean(hs), 'attacked_share': mean(at), 'difference': d, 'half_width': h, 'sd': sd,
            'detectable_difference': det, 'seeds_to_decide': need, 'verdict': verdict, 'accuracy_difference': da,
            'accuracy_half_width': ha, 'attackers': len(who),
            'attacker_rank_attacked': mean([rank_of(a['contrib'], who[0]) for _, _, a in pairs]),
            'attacker_rank_honest': mean([rank_of(hh['contrib'], who[0]) for _, hh, _ in pairs]),
            'honest_order_spearman': None if None in sp else mean(sp), 'runs_identical_to_honest': same,
            'seeds': ' '.join(str(s) for s, _, _ in pairs)}


def recompute(study, truth, guard, problems):
    rows = []
    for (attacks, method), by_seed in attacked_runs(study, guard, problems).items():
        pairs = []
        for s, a in sorted(by_seed.items()):
            hon = load(os.path.join(truth, f'fmnist-truth-label-k-runs-s{s}', method))
            if hon is not None:
                if hon['who'] or hon['seed'] != s or len(hon['contrib']) != len(a['contrib']):
                    problems.append(f'{hon["dir"]}: not an honest run of seed {s} with {len(a["contrib"])} clients')
                pairs.append((s, hon, a))
        if pairs:
            rows.append(row_of(attacks, method, pairs))
    return rows


def same_field(table_value, mine):
    if mine is None or (isinstance(mine, str) and not mine.isdigit()):
        return table_value == (mine or '')
    try:
        return abs(float(table_value) - float(mine)) <= TOL
    except ValueError:
        return False


def main():
    ap = argparse.ArgumentParser(description='Recompute attacks.csv independently of attacks_table.py.')
    ap.add_argument('--table', default='docs/results/fmnist-attacks/report/attacks.csv')
    ap.add_argument('--study', default='runs/attacks')
    ap.add_argument('--truth', default='runs/truth')
    ap.add_argument('--guard', default='runs/guard')
    ap.add_argument('--selftest', action='store_true', help='check the t quantiles against KNOWN_T and stop')
    args = ap.parse_args()
    if args.selftest:
        print('\n'.join(f't({p}, {df}) = {t_q(p, df):.6f} (table {w:.6f})' for p, df, w in KNOWN_T))
        return int(any(abs(t_q(p, df) - w) > 5e-7 for p, df, w in KNOWN_T))
    if not os.path.isfile(args.table):
        fail(f'{args.table}: no such file (--table)')
    for opt, path in (('--study', args.study), ('--truth', args.truth), ('--guard', args.guard)):
        if not os.path.isdir(path):
            fail(f'{path}: no such folder ({opt})')
    table = read_csv(args.table)
    if not table or table[0] != COLUMNS or any(len(r) != len(COLUMNS) for r in table[1:]):
        fail(f'{args.table}: not the header {",".join(COLUMNS)} and rows of {len(COLUMNS)} fields')
    problems, mine = [], {}
    key = lambda r: (r['kind'], r['strength'], r['method'], str(r['attackers']))  # noqa: E731
    name = lambda k: ' '.join(k[:3]) + (f' x{k[3]}' if k[3] != '1' else '')  # noqa: E731
    for r in recompute(args.study, args.truth, args.guard, problems):
        if key(r) in mine:
            problems.append(f'two groups of runs give the row {name(key(r))}')
        mine[key(r)] = r
    agree = differ = 0
    seen = set()
    for t in (dict(zip(COLUMNS, r)) for r in table[1:]):
        k = key(t)
        if k in seen or k not in mine:
            print(f'{name(k)}: differ: ' + ('a second row of it in the table' if k in seen else 'no runs to recompute it from'))
            differ += 1
            continue
        seen.add(k)
        bad = [f'{c} (table {t[c]!r}, here {mine[k][c]!r})' for c in COLUMNS if not same_field(t[c], mine[k][c])]
        print(f'{name(k)}: ' + ('differ: ' + '; '.join(bad) if bad else 'agree'))
        agree, differ = agree + (not bad), differ + bool(bad)
    extra = sorted(k for k in mine if k not in seen)
    for k in extra:
        print(f'{name(k)}: recomputed (seeds {mine[k]["seeds"]}), not in the table')
    for p in problems:
        print(f'problem: {p}')
    print(f'{agree} agree, {differ} differ' + (f', {len(extra)} rows missing from the table' if extra else '')
          + (f', {len(problems)} problems' if problems else ''))
    return 1 if differ or extra or problems else 0


if __name__ == '__main__':
    sys.exit(main())
