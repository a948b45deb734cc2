#!/usr/bin/python3
"""horizon_recheck.py [RUNS_DIR [REPORT_DIR]]: the horizon's KL verdicts (issue 30 item 5) recomputed
from the run folders with nothing of the harness's code (Python's standard library only, and
tools/tquant.py beside it), to check the report's horizon section (`scripts/horizon_finish.sh`)
against: for IID and Dirichlet 0.5, FLCE trained with the text's prototypes (`correct`, in
fmnist-horizon-P-sS/flce) and with the equation's (`all`, fmnist-horizon-P-flceall-sS), at rounds
30, 100 and 200: FLCE's KL of RUN/readings/<samples>-zero-rR/contributions.csv
(scripts/readings_eval.sh) to the clients' sample shares (clients.csv), FedAvg's and FedFV's KL of
round R (metrics.csv), the paired differences over seeds 201-203 with Student-t 95% intervals
(the exact 0.975 quantile with n - 1 degrees of freedom, 4.302653 for 3 seeds, from
tools/tquant.py's closed forms), and the verdict by the plan's rule (docs/decisions.md: each
comparison holds when its interval lies below 0, does not hold when above; the claim holds when
every comparison does, does not hold when one does not; shown: the comparison with the largest
mean difference). Beside an inconclusive verdict, what deciding would take
(docs/commands/report.md, "What deciding would take"; tools/tquant.py's power(d, h, n)): of the
inconclusive comparisons the one that needs the most seeds (one that no number up to 100
decides before any that some number does; among those, the one whose |d| lies furthest below
what its seeds detect), "decides at about m seeds (FLCE - B)" or "the n seeds run detect only
|d| >= x (FLCE - B)". Default RUNS_DIR: runs/readings.

With REPORT_DIR (the report's folder, e.g. docs/results/fmnist-readings/horizon-report): each of
these lines is compared with its row of report.md's section "The horizon" (FLCE's, FedAvg's and
FedFV's KL, mean and half-width over seeds; the verdict, the comparison shown with its mean,
half-width and n; the words beside an inconclusive verdict), to the 4 decimals the report
prints. A report made before 2026-12-06 (its claims.csv without the column seeds_to_decide)
took t from a three-decimal table (4.303 for 3 seeds) and wrote no such words: its rows are
checked with the quantile so rounded, and without the words. Prints "agree" or "DIFFERS" per row,
then "N agree, M differ"; exit status 1 when a row differs or has no counterpart.
"""
import csv, math, os, re, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tquant import power, t_quantile  # noqa: E402

root = sys.argv[1] if len(sys.argv) > 1 else 'runs/readings'
rep = sys.argv[2] if len(sys.argv) > 2 else None
EXACT = True  # the report's t quantile: exact, or (before 2026-12-06) the three-decimal table's
if rep:
    EXACT = 'seeds_to_decide' in open(os.path.join(rep, 'claims.csv')).readline().strip().split(',')
def t975(df): return t_quantile(0.975, df) if EXACT else round(t_quantile(0.975, df), 3)
def kl(P, Q): return sum(p * math.log(p / q) for p, q in zip(P, Q) if p > 0)
def contrib(path): return [float(r['contribution']) for r in csv.DictReader(open(path))]
def shares(d):
    sz = [float(r['samples']) for r in csv.DictReader(open(d + '/clients.csv'))]
    return [x / sum(sz) for x in sz]
def metric_kl(d, R):
    for r in csv.DictReader(open(d + '/metrics.csv')):
        if int(r['round']) == R: return float(r['kl'])
def ci(x):
    n = len(x); m = sum(x) / n
    return m, t975(n - 1) * math.sqrt(sum((v - m) ** 2 for v in x) / (n - 1)) / math.sqrt(n)
def words(comps, n):
    """What deciding would take, for the inconclusive comparisons (m, b, h, verdict)."""
    best = None
    for m, b, h, v in comps:
        if v != 'inconclusive': continue
        sd, det, seeds = power(m, h, n)
        key = int(seeds) if seeds not in ('>100', 'n/a') else 1e6 + (det - abs(m))
        if best is None or key > best[0]: best = (key, sd, det, seeds, b)
    if best is None: return ''
    _, sd, det, seeds, b = best
    if sd == 0: return f'every seed gives the same difference: no number of seeds changes the verdict (FLCE - {b})'
    if seeds not in ('>100', 'n/a'): return f'decides at about {seeds} seeds (FLCE - {b})'
    return f'the {n} seeds run detect only |d| >= {det:.4f} (FLCE - {b})'

mine = {}
for part in ['iid', 'noniid']:
    for ps in ['correct', 'all']:
        for R in [30, 100, 200]:
            fl, base = [], {'fedavg': [], 'fedfv': []}
            for s in [201, 202, 203]:
                main = f'{root}/fmnist-horizon-{part}-s{s}'
                fd = f'{main}/flce' if ps == 'correct' else f'{root}/fmnist-horizon-{part}-flceall-s{s}'
                p = f'{fd}/readings/{ps}-zero-r{R}/contributions.csv'
                if not os.path.exists(p): break
                fl.append(kl(contrib(p), shares(fd)))
                for b in base: base[b].append(metric_kl(f'{main}/{b}', R))
            n = len(fl)
            if n < 2: print(part, ps, R, 'seeds', n); continue
            comps = []
            for b, v in base.items():
                m, h = ci([f - x for f, x in zip(fl, v)])
                comps.append((m, b, h, 'holds' if m + h < 0 else ('does not hold' if m - h > 0 else 'inconclusive')))
            vs = [c[3] for c in comps]
            v = 'holds' if all(x == 'holds' for x in vs) else ('does not hold' if 'does not hold' in vs else 'inconclusive')
            m, b, h, _ = max(comps)  # the comparison furthest from the claim: the largest mean difference
            w = words(comps, n) if v == 'inconclusive' else ''
            mine[(part, R, ps)] = (ci(fl), ci(base['fedavg']), ci(base['fedfv']), v, b, m, h, n, w)
            print(f'{part:6s} {ps:7s} r{R:<3d} n={n} FLCE {sum(fl)/n:.4f} FedAvg {sum(base["fedavg"])/n:.4f} FedFV {sum(base["fedfv"])/n:.4f}  worst {b} {m:+.4f} ± {h:.4f}  {v}' + (f'; {w}' if w else ''))

if rep:
    # report.md's horizon tables: '### fmnist; IID; 200 rounds: ...' then rows
    # | round | samples | FLCE's KL | fedavg | fedfv | verdict: FLCE - B m ± h (n=N)[; words] |
    ok = bad = 0; part = None; seen = set(); sec = False
    for ln in open(os.path.join(rep, 'report.md')):
        if ln.startswith('## '): sec = ln.startswith('## The horizon'); continue
        if not sec: continue
        if ln.startswith('### '): part = 'iid' if '; IID;' in ln else ('noniid' if 'Dirichlet 0.5' in ln else None); continue
        c = [x.strip() for x in re.split(r'(?<!\\)\|', ln.strip())[1:-1]]
        if len(c) != 6 or not c[0].isdigit() or part is None: continue
        key = (part, int(c[0]), c[1]); seen.add(key)
        if key not in mine: bad += 1; print(f'DIFFERS  {part} {c[1]} r{c[0]}: not recomputed here'); continue
        fl, fa, fv, v, b, m, h, n, w = mine[key]
        want = [f'{x[0]:.4f} ± {x[1]:.4f}' for x in (fl, fa, fv)]
        want.append(f'{v}: FLCE - {b} {m:+.4f} ± {h:.4f} (n={n})' + (f'; {w}' if w and EXACT else ''))
        got = c[2:5] + [c[5].replace('\\|', '|').replace('&gt;', '>')]
        diff = [f'{g!r} mine {x!r}' for g, x in zip(got, want) if g != x]
        if diff: bad += 1; print(f'DIFFERS  {part} {c[1]} r{c[0]}: ' + '; '.join(diff))
        else: ok += 1; print(f'agree    {part} {c[1]} r{c[0]}: {want[3]}')
    for key in sorted(set(mine) - seen): bad += 1; print(f'DIFFERS  {key}: no row in the report')
    print(f'{ok} agree, {bad} differ ({"exact t quantiles" if EXACT else "the three-decimal t table"})')
    sys.exit(1 if bad else 0)
