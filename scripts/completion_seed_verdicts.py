#!/usr/bin/env python3
"""completion_seed_verdicts.py READINGS_DIR STABILITY_OUT CLAIMS_CSV...: would the readings
experiment's KL verdicts change under another completion seed? (issue 29 / 30)

STABILITY_OUT is what `STABILITY_MODES="base seed" scripts/completion_stability.sh OUT READINGS_DIR`
wrote: each finished FLCE trace evaluated with its recorded completion seed (base) and with that
seed + 1000 (seed). For every row of the report's readings_claims.csv whose FLCE reading is the
one its runs were evaluated with (correct/zero: the runs with the text's prototypes; all/zero: the
-flceall runs), this recomputes FLCE's KL minus the baseline's per seed, from the run folders
(the baseline's contributions_rules.csv column of the rule, the data shares from clients.csv, KL
as reference/flce_eq.c's flce_kl) and the 95% interval as the report does (report_mean_ci), once
with the base evaluations (it must equal the report's row: an independent check) and once with
the other seed's. Prints a markdown table and a summary; exit 1 if a base row differs from the
report. Plain Python 3, no packages."""
import csv, glob, math, os, re, sys

T95 = [0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
       2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
CONF = {'IID': 'iid', 'Dirichlet 0.5': 'noniid', 'Dirichlet 0.1': 'dir0.1', 'quantity skew 0.5': 'qskew'}
RULES = {'cos_global': 1, 'cos_mean': 2, 'cos_model': 3, 'weight': 4}


def column(path, c):
    with open(path) as f:
        return [float(r[c]) for r in list(csv.reader(f))[1:] if r]


def kl(p, q):
    return sum(a * math.log(a / b) for a, b in zip(p, q) if a > 0)


def interval(d):
    k = len(d)
    m = sum(d) / k
    h = T95[k - 1] * math.sqrt(sum((x - m) ** 2 for x in d) / (k - 1)) / math.sqrt(k) if k > 1 else float('nan')
    return m, h, 'holds' if m + h < 0 else 'fails' if m - h > 0 else 'inconclusive'


def main():
    if len(sys.argv) < 4:
        sys.exit('usage: scripts/completion_seed_verdicts.py READINGS_DIR STABILITY_OUT CLAIMS_CSV...')
    rdir, sout = sys.argv[1].rstrip('/'), sys.argv[2] + '/logs/'
    trace = {}  # run folder (absolute) -> trace name in the stability logs
    for f in glob.glob(sout + '*.run'):
        with open(f) as g:
            trace[os.path.abspath(g.read().strip())] = os.path.basename(f)[:-4]

    def flce_kl(folder, mode):
        n = trace.get(os.path.abspath(folder))
        if not n or not os.path.exists(f'{sout}{n}.{mode}.log'):
            return None
        with open(f'{sout}{n}.{mode}.log') as g:
            return float(re.search(r'KL\(contributions \|\| data shares\) = ([0-9.eE+-]+)', g.read()).group(1))

    rows, differ, flips = [], 0, 0
    for path in sys.argv[3:]:
        with open(path) as f:
            for r in csv.DictReader(f):
                proto, missing, rule = r['reading'].split('/')
                cfg = next((v for k, v in CONF.items() if f'; {k};' in r['configuration']), None)
                if missing != 'zero' or cfg is None or rule not in RULES:
                    continue
                d0, d1 = [], []
                for s in range(101, 106):
                    run = f'{rdir}/fmnist-readings-{cfg}-s{s}'
                    fl = f'{rdir}/fmnist-readings-{cfg}-flceall-s{s}' if proto == 'all' else run + '/flce'
                    a, b = flce_kl(fl, 'base'), flce_kl(fl, 'seed')
                    bpath = f'{run}/{r["baseline"]}/contributions_rules.csv'
                    if a is None or b is None or not os.path.exists(bpath):
                        continue
                    sizes = column(f'{run}/fedavg/clients.csv', 1)
                    shares = [x / sum(sizes) for x in sizes]
                    bk = kl(column(bpath, RULES[rule]), shares)
                    d0.append(a - bk), d1.append(b - bk)
                if len(d0) != int(r['n']):
                    continue  # not every seed of the row evaluated (yet)
                m0, h0, v0 = interval(d0)
                m1, h1, v1 = interval(d1)
                same = abs(m0 - float(r['mean_difference'])) < 5e-5 and abs(h0 - float(r['half_width_95'])) < 5e-5 and v0 == r['verdict']
                differ += not same
                flips += v0 != v1
                rows.append(f'| {r["configuration"]} | {r["reading"]} | {r["baseline"]} | {float(r["mean_difference"]):+.4f} ± '
                            f'{float(r["half_width_95"]):.4f} {r["verdict"]} | {m0:+.4f} ± {h0:.4f}{"" if same else " DIFFERS"} | '
                            f'{m1:+.4f} ± {h1:.4f} {v1}{" **changed**" if v0 != v1 else ""} |')
    print('| configuration | reading (FLCE prototypes / missing / baseline rule) | baseline | the report: FLCE - baseline, verdict | '
          'recomputed, recorded completion seed | another completion seed (+1000), verdict |')
    print('|---|---|---|---|---|---|')
    print('\n'.join(rows))
    print(f'\n{len(rows)} comparisons; recomputed from the run folders: {len(rows) - differ} equal to the report\'s row, '
          f'{differ} not; under another completion seed {flips} change their verdict.')
    sys.exit(1 if differ or not rows else 0)


if __name__ == '__main__':
    main()
