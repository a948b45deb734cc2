#!/usr/bin/env python3
"""attacks_table.py: the strategic-clients study's tables from its run folders alone (Python's
standard library; the exact Student t quantiles of tools/tquant.py). Plans:
docs/results/fmnist-attacks/PLAN.md (the study) and GUARD-PLAN.md (the guard).

  attacks_table.py attacks [--study runs/attacks] [--truth runs/truth] [--guard runs/guard] [--out DIR]
      DIR/attacks.csv: per arm (kind, strength) and method, over the seeds with both runs, the
      attacker's share honest (runs/truth/fmnist-truth-label-k-runs-sS/METHOD) and attacked
      (STUDY/fmnist-attack-ARM-sS/METHOD; FLCE's, where that has none, the guard study's
      GUARD/fmnist-guard-ARM-paper-sS: FLCE alone, the same bytes), their paired difference, half-width and power, the
      plan's verdict, the accuracy difference; then the attacker's rank and the honest clients'
      order (Spearman to the honest run), appended.
  attacks_table.py guard [--study runs/guard] [--truth runs/truth] [--out DIR]
      DIR/guard.csv: GUARD-PLAN.md's three rules.
  attacks_table.py figure [--out DIR]
      DIR/attacks.svg from DIR/attacks.csv and DIR/guard.csv (gnuplot): left, the attacker's mean
      share against forge-prototypes' strength (1: honest), one colour a method (the report's
      palette), the guarded FLCE dashed; right, each arm's paired difference (attacked minus
      honest) with its 95% interval, the plan's threshold 1/(2n) dotted.
  attacks_table.py matrix [--out DIR]
      DIR/attacks.md from DIR/attacks.csv: one row an arm, one column a method, each cell the paired
      difference of the attacker's share with the plan's verdict (M manipulable, R resists, u
      undecided with the seeds it would take, = a control: the honest bytes) and its seeds.

The attacker's share: its contribution over the sum of all clients', contributions below 0 taken
as 0 (uniform where none is above 0); three attackers: their summed share. Accuracy: the mean of
the last min(10, T) rounds of metrics.csv (summary.csv's). KL: KL(contributions || data shares),
the data shares from clients.csv's samples (summary.csv's kl; checked against it where a run has
one). Spearman: average ranks for ties. A run's contributions.csv must be the one its digests.txt
names (the xxh3-64 of the values as float64, tools/flce_digest.py); one edited since is refused."""
import csv
import glob
import json
import math
import os
import re
import stat
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flce_digest import contributions_digest  # noqa: E402
from tquant import power, t_quantile  # noqa: E402

METHODS = ['flce', 'fedavg', 'fedprox', 'ditto', 'moon', 'fedfv', 'cgsv', 'qfedavg', 'fedfa', 'fedsv', 'gtg']


def die(msg):
    print(f'attacks_table.py: {msg}', file=sys.stderr)
    sys.exit(1)


def text(path):
    """A regular file's text (a FIFO or a device is refused, never read: it could block)."""
    try:
        st = os.stat(path)
    except OSError as e:
        die(f'{path}: {e.strerror}')
    if not stat.S_ISREG(st.st_mode):
        die(f'{path}: not a regular file')
    try:
        with open(path, encoding='utf-8', newline='') as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        die(f'{path}: {getattr(e, "strerror", None) or "not text"}')


def read_rows(path):
    rows = list(csv.reader(text(path).splitlines()))
    if not rows:
        die(f'{path}: empty')
    return rows


def number(path, x):
    try:
        v = float(x)
    except ValueError:
        die(f'{path}: {x!r} is not a number')
    if not math.isfinite(v):
        die(f'{path}: {x!r} is not a finite number')
    return v


class Run:
    def __init__(self, d):
        self.dir = d
        if not os.path.isfile(os.path.join(d, 'digests.txt')):
            raise FileNotFoundError(d)
        p = os.path.join(d, 'contributions.csv')
        rows = read_rows(p)
        if rows[0] != ['client', 'contribution'] or any(len(r) != 2 for r in rows[1:]) or len(rows) < 3:
            die(f'{p}: not the header client,contribution and a row of two fields a client')
        self.contrib = [number(p, r[1]) for r in rows[1:]]
        self.digest = dict(ln.split()[:2] for ln in text(os.path.join(d, 'digests.txt')).splitlines() if len(ln.split()) >= 2)
        want = self.digest.get('contributions')  # runs without the line are read as before
        if want is not None and contributions_digest(self.contrib) != want:
            die(f'{p}: not the contributions its digests.txt names (contributions {want}): changed since the run')
        p = os.path.join(d, 'clients.csv')
        rows = read_rows(p)
        if rows[0][:2] != ['client', 'samples'] or any(len(r) < 2 for r in rows[1:]):
            die(f'{p}: header {rows[0]}, or a row without its samples')
        self.samples = [number(p, r[1]) for r in rows[1:]]
        if len(self.samples) != len(self.contrib):
            die(f'{d}: {len(self.samples)} clients in clients.csv, {len(self.contrib)} contributions')
        p = os.path.join(d, 'metrics.csv')
        rows = read_rows(p)
        if 'accuracy' not in rows[0]:
            die(f'{p}: no accuracy column')
        ai = rows[0].index('accuracy')
        acc = [number(p, r[ai]) if ai < len(r) else die(f'{p}: a row without its accuracy') for r in rows[1:] if r]
        if not acc:
            die(f'{p}: no round')
        w = acc[-min(10, len(acc)):]
        self.accuracy = math.fsum(w) / len(w)
        p = os.path.join(d, 'config.json')
        try:
            self.cfg = json.loads(text(p))
        except json.JSONDecodeError as e:
            die(f'{p}: not JSON ({e.msg}, line {e.lineno})')
        att = self.cfg.get('attacks', []) if isinstance(self.cfg, dict) else None
        if not isinstance(att, list) or not all(isinstance(a, str) and re.fullmatch(r'[a-z-]+:\d+(:[^:]+)?', a) for a in att):
            die(f'{p}: "attacks" is not a list of KIND:CLIENT[:STRENGTH]')
        self.attackers = sorted({int(a.split(':')[1]) for a in att})
        if any(i >= len(self.contrib) for i in self.attackers):
            die(f'{p}: an attacker is not one of its {len(self.contrib)} clients')

    def share(self, who):
        c = [max(0.0, x) for x in self.contrib]
        s = math.fsum(c)
        if s == 0:
            return len(who) / len(c)
        return math.fsum(c[i] for i in who) / s

    def kl(self):
        p = self.contrib
        tot = math.fsum(self.samples)
        q = [x / tot for x in self.samples]
        return math.fsum(pi * math.log(pi / qi) for pi, qi in zip(p, q) if pi > 0)

    def rank(self, i):  # 1: the highest contribution; ties: the lower client first
        order = sorted(range(len(self.contrib)), key=lambda k: (-self.contrib[k], k))
        return order.index(i) + 1


def load(d):
    """The run in d, or None where there is none; a folder begun but unfinished (no digests.txt)
    is said on stderr and left out."""
    if not os.path.isdir(d):
        return None
    try:
        return Run(d)
    except FileNotFoundError:
        print(f'attacks_table.py: {d}: unfinished (no digests.txt), left out', file=sys.stderr)
        return None


def ranks(x):
    o = sorted(range(len(x)), key=lambda i: x[i])
    r = [0.0] * len(x)
    i = 0
    while i < len(o):
        j = i
        while j + 1 < len(o) and x[o[j + 1]] == x[o[i]]:
            j += 1
        for k in range(i, j + 1):
            r[o[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(x, y):
    a, b = ranks(x), ranks(y)
    ma, mb = math.fsum(a) / len(a), math.fsum(b) / len(b)
    sab = math.fsum((u - ma) * (v - mb) for u, v in zip(a, b))
    saa = math.fsum((u - ma) ** 2 for u in a)
    sbb = math.fsum((v - mb) ** 2 for v in b)
    return sab / math.sqrt(saa * sbb) if saa > 0 and sbb > 0 else math.nan


def paired(diffs):
    """n, mean, 95% half-width (Student t, exact), sd; half-width empty below two seeds."""
    n = len(diffs)
    if n == 0:
        return 0, math.nan, math.nan
    d = math.fsum(diffs) / n
    if n < 2:
        return n, d, math.nan
    sd = math.sqrt(math.fsum((x - d) ** 2 for x in diffs) / (n - 1))
    return n, d, t_quantile(0.975, n - 1) * sd / math.sqrt(n)


def powcols(d, h, n, thr=0.0):
    """sd, detectable_difference and seeds_to_decide of the distance of d to the threshold."""
    if n < 2 or math.isnan(h):
        return '', '', ''
    sd, det, m = power(d - thr, h, n)
    return f'{sd:.6f}', f'{det:.6f}', m


def f6(x):
    return '' if x is None or (isinstance(x, float) and math.isnan(x)) else f'{x:.6f}'


def verdict_share(n, d, h, thr):
    """PLAN.md's rule: manipulable where d >= thr and d - h > 0; resists where d + h < thr."""
    if n < 2:
        return 'undecided'
    if d >= thr and d - h > 0:
        return 'manipulable'
    if d + h < thr:
        return 'resists'
    return 'undecided'


def seeds_of(study, pattern):
    out = {}
    for d in glob.glob(os.path.join(study, pattern)):
        m = re.search(r'-s(\d+)$', d)
        if m:
            out[int(m.group(1))] = d
    return out


def arm_words(run):
    a = run.cfg.get('attacks', [])
    kinds = sorted({x.split(':')[0] for x in a})
    strength = sorted({(x.split(':') + [''])[2] for x in a})
    return ','.join(kinds), ','.join(s or 'default' for s in strength), len(a)


def cmd_attacks(study, truth, out, guard):
    """FLCE's attacked runs come from the study's folders, or else from the guard's study's
    paper runs (FLCE alone, the same flags and seed: the same bytes, checked where both exist)."""
    def arms_of(base, pat, rx):
        return {re.sub(rx, r'\1', os.path.basename(d)) for d in glob.glob(os.path.join(base, pat))} if base else set()
    arms = sorted(arms_of(study, 'fmnist-attack-*-s*', r'^fmnist-attack-(.*)-s\d+$') |
                  arms_of(guard, 'fmnist-guard-*-paper-s*', r'^fmnist-guard-(.*)-paper-s\d+$'))
    rows = []
    for arm in arms:
        for m in METHODS:
            pairs = []
            seeds = set(seeds_of(study, f'fmnist-attack-{arm}-s*'))
            if m == 'flce' and guard:
                seeds |= set(seeds_of(guard, f'fmnist-guard-{arm}-paper-s*'))
            for s in sorted(seeds):
                a = load(os.path.join(study, f'fmnist-attack-{arm}-s{s}', m))
                g = load(os.path.join(guard, f'fmnist-guard-{arm}-paper-s{s}')) if m == 'flce' and guard else None
                if a and g and a.contrib != g.contrib:
                    die(f'{a.dir} and {g.dir}: the same run, other contributions')
                a = a or g
                h = load(os.path.join(truth, f'fmnist-truth-label-k-runs-s{s}', m))
                if a and h:
                    pairs.append((s, h, a))
            if not pairs:
                continue
            who = pairs[0][2].attackers
            thr = 1 / (2 * len(pairs[0][2].contrib))
            hs = [h.share(who) for _, h, _ in pairs]
            as_ = [a.share(who) for _, _, a in pairs]
            n, d, hw = paired([y - x for x, y in zip(hs, as_)])
            sd, det, need = powcols(d, hw, n, thr)
            _, da, ha = paired([a.accuracy - h.accuracy for _, h, a in pairs])
            others = [i for i in range(len(pairs[0][2].contrib)) if i not in who]
            sp = [spearman([h.contrib[i] for i in others], [a.contrib[i] for i in others]) for _, h, a in pairs]
            same = sum(a.contrib == h.contrib for _, h, a in pairs)  # the values, not digests.txt's line (a run may lack it)
            kind, strength, natt = arm_words(pairs[0][2])
            rows.append([kind, strength, m, n, f6(math.fsum(hs) / n), f6(math.fsum(as_) / n), f6(d), f6(hw), sd, det, need,
                         'control: the honest bytes' if same == n else verdict_share(n, d, hw, thr), f6(da), f6(ha), natt,
                         f6(math.fsum(a.rank(who[0]) for _, _, a in pairs) / n),
                         f6(math.fsum(h.rank(who[0]) for _, h, _ in pairs) / n),
                         f6(math.fsum(sp) / n) if not any(math.isnan(x) for x in sp) else '', same,
                         ' '.join(str(s) for s, _, _ in pairs)])
    write(os.path.join(out, 'attacks.csv'),
          ['kind', 'strength', 'method', 'n', 'honest_share', 'attacked_share', 'difference', 'half_width', 'sd',
           'detectable_difference', 'seeds_to_decide', 'verdict', 'accuracy_difference', 'accuracy_half_width', 'attackers',
           'attacker_rank_attacked', 'attacker_rank_honest', 'honest_order_spearman', 'runs_identical_to_honest', 'seeds'], rows)


def cmd_guard(study, truth, out):
    rows = []
    arms = sorted({re.sub(r'^fmnist-guard-(.*)-(paper|k2)-s\d+$', r'\1', os.path.basename(d))
                   for d in glob.glob(os.path.join(study, 'fmnist-guard-*-s*')) if '-honest-' not in d})
    for arm in arms:
        trip = []
        for s, dk in sorted(seeds_of(study, f'fmnist-guard-{arm}-k2-s*').items()):
            g = load(dk)
            p = load(os.path.join(study, f'fmnist-guard-{arm}-paper-s{s}'))
            hg = load(os.path.join(study, f'fmnist-guard-honest-label-k2-s{s}'))
            if g and p and hg:
                trip.append((s, g, p, hg))
        if not trip:
            continue
        who = trip[0][1].attackers
        thr = 1 / (2 * len(trip[0][1].contrib))
        kind, strength, natt = arm_words(trip[0][1])
        label = f'{kind}:{strength}' + (f' ({natt} attackers)' if natt > 1 else '')
        seeds = ' '.join(str(t[0]) for t in trip)
        # rule 1: guarded attacked against guarded honest
        a, b = [t[3].share(who) for t in trip], [t[1].share(who) for t in trip]
        n, d, hw = paired([y - x for x, y in zip(a, b)])
        sd, det, need = powcols(d, hw, n, thr)
        rows.append(['1', label, 'attacker_share', n, f6(math.fsum(a) / n), f6(math.fsum(b) / n), f6(d), f6(hw),
                     sd, det, need, verdict_share(n, d, hw, thr), '', seeds])
        # rule 2: guarded attacked against the paper's attacked
        a = [t[2].share(who) for t in trip]
        n, d, hw = paired([y - x for x, y in zip(a, b)])
        sd, det, need = powcols(d, hw, n)
        v = 'not shown' if n < 2 else 'lowers the attacker\'s share' if d + hw < 0 else 'raises it' if d - hw > 0 else 'not shown'
        rows.append(['2', label, 'attacker_share', n, f6(math.fsum(a) / n), f6(math.fsum(b) / n), f6(d), f6(hw),
                     sd, det, need, v, '', seeds])
    for fed in ['qskew', 'label', 'noisy', 'dup']:
        trip = []
        for s, dk in sorted(seeds_of(study, f'fmnist-guard-honest-{fed}-k2-s*').items()):
            g = load(dk)
            p = load(os.path.join(truth, f'fmnist-truth-{fed}-k-runs-s{s}', 'flce'))
            vpath = os.path.join(truth, f'fmnist-truth-{fed}-k-s{s}', 'values.csv')
            shap = None
            if os.path.isfile(vpath):
                vr = read_rows(vpath)
                shap = [float(r[vr[0].index('shapley')]) for r in vr[1:]]
            if g and p:
                trip.append((s, g, p, shap))
        if not trip:
            continue
        seeds = ' '.join(str(t[0]) for t in trip)
        same = sum(t[1].digest.get('final_model') is not None and t[1].contrib == t[2].contrib and
                   t[1].digest.get('final_model') == t[2].digest.get('final_model') for t in trip)
        for meas, f, sign in [('accuracy', lambda r, sh: r.accuracy, 1), ('kl_to_data_shares', lambda r, sh: r.kl(), -1),
                              ('spearman_truth_shapley', lambda r, sh: spearman(r.contrib, sh) if sh else math.nan, 1)]:
            a = [f(t[2], t[3]) for t in trip]
            b = [f(t[1], t[3]) for t in trip]
            ok = [(x, y) for x, y in zip(a, b) if not (math.isnan(x) or math.isnan(y))]
            if not ok:
                continue
            n, d, hw = paired([sign * (y - x) for x, y in ok])
            sd, det, need = powcols(d, hw, n)
            v = 'no cost shown' if n < 2 else 'costs' if d + hw < 0 else 'gains' if d - hw > 0 else 'no cost shown'
            rows.append(['3', fed, meas, n, f6(math.fsum(x for x, _ in ok) / n), f6(math.fsum(y for _, y in ok) / n), f6(d), f6(hw),
                         sd, det, need, v, same, seeds])
    write(os.path.join(out, 'guard.csv'),
          ['rule', 'arm_or_federation', 'measure', 'n', 'paper_or_honest', 'guarded', 'difference', 'half_width', 'sd',
           'detectable_difference', 'seeds_to_decide', 'verdict', 'runs_identical_to_paper', 'seeds'], rows)


COLOUR = {'fedavg': '#4e79a7', 'fedprox': '#f28e2b', 'flce': '#e15759', 'fedsv': '#76b7b2', 'ditto': '#59a14f',
          'fedfa': '#edc948', 'moon': '#b07aa1', 'cgsv': '#ff9da7', 'fedfv': '#9c755f', 'qfedavg': '#bab0ac', 'gtg': '#000000'}


def arm_label(r):
    """An attacks.csv row's arm as the figure and the matrix name it: KIND:STRENGTH, xN for N attackers."""
    return f"{r['kind']}:{r['strength']}" + (f" x{r['attackers']}" if r['attackers'] != '1' else '')


def cmd_figure(out):
    import shutil
    import subprocess
    import tempfile
    at = read_rows(os.path.join(out, 'attacks.csv'))
    h, rows = at[0], [dict(zip(at[0], r)) for r in at[1:]]
    gr = read_rows(os.path.join(out, 'guard.csv'))
    grows = [dict(zip(gr[0], r)) for r in gr[1:]]
    if not shutil.which('gnuplot'):
        die('gnuplot: not installed (scripts/setup.sh installs it)')
    tmp = tempfile.mkdtemp(prefix='attacks-fig-')
    # left panel: forge-prototypes with one attacker, share against strength
    left = []
    for m in METHODS:
        pts = sorted((float(r['strength']), r) for r in rows if r['method'] == m and r['kind'] == 'forge-prototypes' and r['attackers'] == '1')
        if not pts:
            continue
        with open(os.path.join(tmp, f'L-{m}.dat'), 'w') as f:
            f.write(f"1 {pts[0][1]['honest_share']}\n")
            for x, r in pts:
                f.write(f"{x:g} {r['attacked_share']}\n")
        left.append(f"'{tmp}/L-{m}.dat' using 1:2 with linespoints lw 2 pt 7 lc rgb '{COLOUR[m]}' title '{m}'")
    g = [(r['arm_or_federation'], r) for r in grows if r['rule'] == '1' and r['arm_or_federation'].startswith('forge-prototypes:') and 'attackers' not in r['arm_or_federation']]
    if g:
        with open(os.path.join(tmp, 'L-guard.dat'), 'w') as f:
            f.write(f"1 {g[0][1]['paper_or_honest']}\n")
            for x, r in sorted((float(a.split(':')[1]), r) for a, r in g):
                f.write(f"{x:g} {r['guarded']}\n")
        left.append(f"'{tmp}/L-guard.dat' using 1:2 with linespoints lw 2 dt 2 pt 6 lc rgb '{COLOUR['flce']}' title 'flce, guard K = 2'")
    # right panel: every arm's paired difference and interval, methods side by side
    arms = []
    for r in rows:
        a = arm_label(r)
        if a not in arms:
            arms.append(a)
    right = []
    ms = [m for m in METHODS if any(r['method'] == m for r in rows)]
    for j, m in enumerate(ms):
        with open(os.path.join(tmp, f'R-{m}.dat'), 'w') as f:
            for r in rows:
                if r['method'] != m:
                    continue
                a = arm_label(r)
                y = arms.index(a) + (j - (len(ms) - 1) / 2) * 0.6 / max(1, len(ms))
                hw = r['half_width'] or '0'
                f.write(f"{r['difference']} {y:.4f} {float(r['difference']) - float(hw):.6f} {float(r['difference']) + float(hw):.6f}\n")
        right.append(f"'{tmp}/R-{m}.dat' using 1:2:3:4 with xerrorbars pt 7 lw 1.5 lc rgb '{COLOUR[m]}' title '{m}'")
    n_clients = 6
    ytics = ', '.join(f'"{a}" {i}' for i, a in enumerate(arms))
    svg = os.path.join(out, 'attacks.svg')
    script = f"""set terminal svg size 1100,{max(420, 60 + 40 * len(arms))} font 'sans,12' background '#ffffff'
set output '{svg}.tmp'
set multiplot layout 1,2
set lmargin 12
set title "forge-prototypes (one attacker): its share against the strength"
set xlabel 'strength (1: the honest run)'
set ylabel "the attacker's mean share of the final contributions"
set logscale x
set xtics (1, 2, 10)
set key below maxcols 4
set grid
plot {', '.join(left) if left else '1/0 notitle'}
unset logscale x
set lmargin 24
set title 'every arm: attacked minus honest share, 95% interval'
set xlabel 'paired difference of the attacker share'
unset ylabel
set ytics ({ytics})
set yrange [-0.7:{len(arms) - 0.3}]
set xtics auto
set arrow from {1 / (2 * n_clients)}, graph 0 to {1 / (2 * n_clients)}, graph 1 nohead dt 3 lc rgb '#555555'
set arrow from 0, graph 0 to 0, graph 1 nohead lc rgb '#999999'
plot {', '.join(right) if right else '1/0 notitle'}
unset multiplot
"""
    try:
        r = subprocess.run(['gnuplot'], input=script, text=True, capture_output=True)
        if r.returncode != 0 or not os.path.isfile(svg + '.tmp'):
            die(f'gnuplot failed: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}')
        os.replace(svg + '.tmp', svg)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f'{svg}: {len(arms)} arms, {len(ms)} methods')


def cmd_matrix(out):
    at = read_rows(os.path.join(out, 'attacks.csv'))
    rows = [dict(zip(at[0], r)) for r in at[1:]]
    arms, ms = [], [m for m in METHODS if any(r['method'] == m for r in rows)]
    for r in rows:
        if arm_label(r) not in arms:
            arms.append(arm_label(r))
    cell = {}
    for r in rows:
        a = arm_label(r)
        v = r['verdict']
        mark = ('=' if v.startswith('control') else '**M**' if v == 'manipulable' else 'R' if v == 'resists'
                else f"u{r['seeds_to_decide']}" if r['seeds_to_decide'] not in ('', 'n/a') else 'u')
        d = float(r['difference'])
        cell[a, r['method']] = f"= ({r['n']})" if mark == '=' else f"{d:+.3f} {mark} ({r['n']})"
    lines = ['| arm | ' + ' | '.join(ms) + ' |', '|---|' + '---|' * len(ms)]
    lines += ['| ' + a + ' | ' + ' | '.join(cell.get((a, m), '') for m in ms) + ' |' for a in arms]
    text_ = ('The attacker\'s share, attacked minus honest, paired by seed (the seeds in parentheses); '
             'M manipulable, R resists, uK undecided (about K seeds would decide; >100: none up to 100), '
             '= the honest bytes (a method that cannot feel the attack). From attacks.csv by '
             '`tools/attacks_table.py matrix`; the rule: PLAN.md.\n\n' + '\n'.join(lines) + '\n')
    path = os.path.join(out, 'attacks.md')
    try:
        with open(path + '.tmp', 'w') as f:
            f.write(text_)
        os.replace(path + '.tmp', path)
    except OSError as e:
        die(f'{path}: {e.strerror}')
    print(f'{path}: {len(arms)} arms, {len(ms)} methods')


def write(path, header, rows):
    if not rows:
        die(f'{path}: no pair of runs to compare (is the study folder right?); nothing written')
    try:
        os.makedirs(os.path.dirname(path) or '.', exist_ok=True)
    except OSError as e:
        die(f'{os.path.dirname(path)}: {e.strerror}')
    tmp = path + '.tmp'
    try:
        with open(tmp, 'w', newline='') as f:
            w = csv.writer(f, lineterminator='\n')
            w.writerow(header)
            w.writerows(rows)
        os.replace(tmp, path)
    except OSError as e:
        die(f'{path}: {e.strerror}')
    print(f'{path}: {len(rows)} rows')


def main(argv):
    if not argv or argv[0] not in ('attacks', 'guard', 'figure', 'matrix'):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    opts = {'--study': None, '--truth': 'runs/truth', '--out': 'docs/results/fmnist-attacks/report', '--guard': None}
    i = 1
    while i < len(argv):
        if argv[i] not in opts or i + 1 >= len(argv):
            print(f'attacks_table.py: {argv[i]}: not an option (--study, --truth, --guard, --out), or no value', file=sys.stderr)
            sys.exit(2)
        opts[argv[i]] = argv[i + 1]
        i += 2
    if argv[0] == 'figure':
        return cmd_figure(opts['--out'])
    if argv[0] == 'matrix':
        return cmd_matrix(opts['--out'])
    study = opts['--study'] or ('runs/attacks' if argv[0] == 'attacks' else 'runs/guard')
    for k in ('--truth',):
        if not os.path.isdir(opts[k]):
            die(f'{opts[k]}: no such folder ({k})')
    if not os.path.isdir(study):
        die(f'{study}: no such folder (--study)')
    if argv[0] == 'attacks':
        guard = opts['--guard']
        if guard is not None and not os.path.isdir(guard):
            die(f'{guard}: no such folder (--guard)')
        if guard is None and os.path.isdir('runs/guard'):
            guard = 'runs/guard'
        cmd_attacks(study, opts['--truth'], opts['--out'], guard)
    else:
        cmd_guard(study, opts['--truth'], opts['--out'])


if __name__ == '__main__':
    main(sys.argv[1:])
