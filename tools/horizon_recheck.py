#!/usr/bin/python3
"""horizon_recheck.py [RUNS_DIR]: the horizon's KL verdicts (issue 30 item 5) recomputed from the
run folders with nothing of the harness's code (Python's standard library only), to check the
report's horizon section (`scripts/horizon_finish.sh`) against: for IID and Dirichlet 0.5, FLCE
trained with the text's prototypes (`correct`, in fmnist-horizon-P-sS/flce) and with the
equation's (`all`, fmnist-horizon-P-flceall-sS), at rounds 30, 100 and 200: FLCE's KL of
RUN/readings/<samples>-zero-rR/contributions.csv (scripts/readings_eval.sh) to the clients' sample
shares (clients.csv), FedAvg's and FedFV's KL of round R (metrics.csv), the paired differences over
seeds 201-203 with Student-t 95% intervals, and the verdict by the plan's rule (docs/decisions.md:
each comparison holds when its interval lies below 0, does not hold when above; the claim holds
when every comparison does, does not hold when one does not; shown: the comparison with the
largest mean difference). Default RUNS_DIR: runs/readings.
"""
import csv, math, sys, os
root = sys.argv[1] if len(sys.argv) > 1 else 'runs/readings'
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776}
def kl(P, Q): return sum(p * math.log(p / q) for p, q in zip(P, Q) if p > 0)
def contrib(path): return [float(r['contribution']) for r in csv.DictReader(open(path))]
def shares(d):
    sz = [float(r['samples']) for r in csv.DictReader(open(d + '/clients.csv'))]
    return [x / sum(sz) for x in sz]
def metric_kl(d, R):
    for r in csv.DictReader(open(d + '/metrics.csv')):
        if int(r['round']) == R: return float(r['kl'])
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
                d = [f - x for f, x in zip(fl, v)]
                m = sum(d) / n; sd = math.sqrt(sum((x - m) ** 2 for x in d) / (n - 1)); h = T975[n - 1] * sd / math.sqrt(n)
                comps.append((m, b, h, 'holds' if m + h < 0 else ('does not hold' if m - h > 0 else 'inconclusive')))
            vs = [c[3] for c in comps]
            v = 'holds' if all(x == 'holds' for x in vs) else ('does not hold' if 'does not hold' in vs else 'inconclusive')
            m, b, h, _ = max(comps)  # the comparison furthest from the claim: the largest mean difference
            print(f'{part:6s} {ps:7s} r{R:<3d} n={n} FLCE {sum(fl)/n:.4f} FedAvg {sum(base["fedavg"])/n:.4f} FedFV {sum(base["fedfv"])/n:.4f}  worst {b} {m:+.4f} ± {h:.4f}  {v}')
