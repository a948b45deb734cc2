#!/usr/bin/env python3
"""completion_seed_verdicts.py RUNS_DIR STABILITY_OUT CLAIMS_CSV...: would the KL verdicts of the
readings experiment (its readings_claims.csv) or of the study (its claims.csv) change under
another completion seed? (issues 29 and 30)

STABILITY_OUT is what `STABILITY_MODES="base seed" scripts/completion_stability.sh OUT RUNS_DIR`
wrote: each finished FLCE trace evaluated with its recorded completion seed (base) and with that
seed + 1000 (seed). Each comparison FLCE - baseline behind a KL verdict is recomputed from the
run folders (FLCE's KL from those evaluations; the baseline's from its contributions, the data
shares from clients.csv, KL as reference/flce_eq.c's flce_kl) with the 95% interval as the
report computes it (report_mean_ci), once with the base evaluations (which must give the
report's row: an independent check) and once with the other seed's.
  readings_claims.csv: the rows whose FLCE reading is the one its runs were evaluated with
    (correct/zero: the runs with the text's prototypes; all/zero: the -flceall runs); the
    baseline's column of its contribution rule in contributions_rules.csv.
  claims.csv (the study): the rows of "FLCE's KL the lowest except FedSV", paired over the seeds
    both methods ran; the baseline's contributions.csv.
Prints a markdown table and a summary; exit 1 if a base row differs from the report's. Plain
Python 3, no packages."""
import csv, glob, math, os, re, sys

T95 = [0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
       2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
READINGS = {'IID': 'iid', 'Dirichlet 0.5': 'noniid', 'Dirichlet 0.1': 'dir0.1', 'quantity skew 0.5': 'qskew'}
STUDY = {'IID; 30 rounds': 'iid', 'Dirichlet 0.5; 30 rounds': 'noniid', 'Dirichlet 0.1; 30 rounds': 'dir0.1',
         'Dirichlet 0.3; 30 rounds': 'dir0.3', 'Dirichlet 1; 30 rounds': 'dir1', 'Dirichlet 5; 30 rounds': 'dir5',
         'Dirichlet 0.5; noise L0 F0.5; 30 rounds': 'noniid-feature', 'Dirichlet 0.5; noise L0.3 F0.5; 30 rounds': 'noniid-both',
         'Dirichlet 0.5; noise L0.3 F0; 30 rounds': 'noniid-label', 'IID; lr 0.05; 15 rounds': 'main'}
RULES = {'cos_global': 1, 'cos_mean': 2, 'cos_model': 3, 'weight': 4}


def column(path, c):
    with open(path) as f:
        return [float(r[c]) for r in list(csv.reader(f))[1:] if r]


def kl(p, q):
    return sum(a * math.log(a / b) for a, b in zip(p, q) if a > 0)


def shares(folder):
    sizes = column(folder + '/clients.csv', 1)
    return [x / sum(sizes) for x in sizes]


def interval(d):
    k = len(d)
    m = sum(d) / k
    h = T95[k - 1] * math.sqrt(sum((x - m) ** 2 for x in d) / (k - 1)) / math.sqrt(k) if k > 1 else float('nan')
    return m, h, 'holds' if m + h < 0 else 'fails' if m - h > 0 else 'inconclusive'


def main():
    if len(sys.argv) < 4:
        sys.exit('usage: scripts/completion_seed_verdicts.py RUNS_DIR STABILITY_OUT CLAIMS_CSV...')
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

    rows, tally = [], {'differ': 0, 'flips': 0}

    def compare(label, mean, half, verdict, pairs):
        """pairs: (FLCE folder, baseline KL) per seed; None if a seed is missing"""
        d0, d1 = [], []
        for fl, bk in pairs:
            a, b = flce_kl(fl, 'base'), flce_kl(fl, 'seed')
            if a is None or b is None:
                return
            d0.append(a - bk), d1.append(b - bk)
        m0, h0, v0 = interval(d0)
        m1, h1, v1 = interval(d1)
        same = abs(m0 - mean) < 5e-5 and abs(h0 - half) < 5e-5 and v0 == verdict
        tally['differ'] += not same
        tally['flips'] += v0 != v1
        rows.append(f'| {label} | {mean:+.4f} ± {half:.4f} {verdict} | {m0:+.4f} ± {h0:.4f}{"" if same else " DIFFERS"} | '
                    f'{m1:+.4f} ± {h1:.4f} {v1}{" **changed**" if v0 != v1 else ""} |')

    for path in sys.argv[3:]:
        with open(path) as f:
            recs = list(csv.DictReader(f))
        for r in recs:
            if 'comparison' in r:  # the study's claims.csv
                cfg = next((v for k, v in STUDY.items() if r['configuration'].endswith('; ' + k)), None)
                if not r['claim'].startswith("FLCE's KL the lowest") or cfg is None:
                    continue
                base = r['comparison'].split(' - ')[1]
                runs = [d for d in sorted(glob.glob(f'{rdir}/fmnist-{cfg}-s[0-9]*'))
                        if os.path.exists(f'{d}/{base}/contributions.csv') and os.path.exists(f'{d}/flce/contributions.csv')]
                if len(runs) != int(r['n']):
                    continue
                verdict = r['comparison_verdict'] if r['comparison_verdict'] in ('holds', 'fails') else 'inconclusive'
                compare(f'{r["configuration"]} | (the study) | {base}', float(r['difference']), float(r['half_width']), verdict,
                        [(d + '/flce', kl(column(f'{d}/{base}/contributions.csv', 1), shares(f'{d}/{base}'))) for d in runs])
                continue
            proto, missing, rule = r['reading'].split('/')
            cfg = next((v for k, v in READINGS.items() if f'; {k};' in r['configuration']), None)
            if missing != 'zero' or cfg is None or rule not in RULES:
                continue
            pairs = []
            for s in range(101, 106):
                run = f'{rdir}/fmnist-readings-{cfg}-s{s}'
                bpath = f'{run}/{r["baseline"]}/contributions_rules.csv'
                if os.path.exists(bpath):
                    fl = f'{rdir}/fmnist-readings-{cfg}-flceall-s{s}' if proto == 'all' else run + '/flce'
                    pairs.append((fl, kl(column(bpath, RULES[rule]), shares(run + '/fedavg'))))
            if len(pairs) == int(r['n']):
                compare(f'{r["configuration"]} | {r["reading"]} | {r["baseline"]}', float(r['mean_difference']),
                        float(r['half_width_95']), r['verdict'], pairs)
    print('| configuration | reading (FLCE prototypes / missing / baseline rule) | baseline | the report: FLCE - baseline, verdict | '
          'recomputed, recorded completion seed | another completion seed (+1000), verdict |')
    print('|---|---|---|---|---|---|')
    print('\n'.join(rows))
    print(f'\n{len(rows)} comparisons; recomputed from the run folders: {len(rows) - tally["differ"]} equal to the report\'s row, '
          f'{tally["differ"]} not; under another completion seed {tally["flips"]} change their verdict.')
    sys.exit(1 if tally['differ'] or not rows else 0)


if __name__ == '__main__':
    main()
