#!/usr/bin/python3
"""released_recheck.py STUDY_DIR REPORT_DIR: the verdicts of the report section "The paper's text
and its released code" (the study under the authors' released code, issue 62) recomputed from the
run folders alone, with nothing of the harness's code (Python 3's standard library only, no
NumPy), to check the report's REPORT_DIR/released_claims.csv and, where it is there,
REPORT_DIR/released_nocmc.csv (the diagnostic table "Without completion") against.

Usage: nice python3 tools/released_recheck.py STUDY_DIR REPORT_DIR
  e.g. nice python3 tools/released_recheck.py runs/released docs/results/fmnist-released/iid-report
Prints one line per row of each CSV (recomputed, then [reported]; "agree", "DIFFERS (the fields)"
or "NOT RECOMPUTED" with why), then "N agree, M differ[, K not recomputed]". Exit status 0 when every row
agrees, 1 when any row differs or could not be recomputed, 2 for a usage error or an input file
that cannot be read (one line naming the file).

What is recomputed, and where each definition comes from:
- The folders (scripts/presets/run.sh, case `released`): STUDY_DIR/DS-rel-TAG-ARM-sSEED/METHOD
  (the folder itself where the arm trains one method), TAG iid | noniid | noise; ARM text (a), released (b), first, sweep, initial, fedsvrel,
  localtrain, clscale, mean, balance (not IID), noisecode (noise only), each training the methods
  the preset gives it; a method an arm does not train comes from (a) on the same seed (the report's
  own words: "its other methods from (a) on the same seeds"), one it trains never does. The
  evaluation-side arms read (a)'s FLCE evaluated by scripts/released_eval.sh:
  RUN/flce/released/{velocity,absent,nocmc,first} and, without completion as well,
  {nocmc-velocity,nocmc-absent,nocmc-first}; the baselines' L2 rule is FedAvg's `l2_update` column
  of contributions_rules.csv (docs/formats.md), and (b) scores FedAvg by it too
  (docs/decisions.md). A run counts only when finished: config.json, contributions.csv and
  digests.txt there and metrics.csv holding config.json's `rounds` rows; a seed whose runs are
  not all finished (or whose two runs' partition digests differ, or whose KL is NaN) is left out
  of that comparison and its n says so (docs/decisions.md, "Stated more exactly").
- Accuracy and macro-F1: the mean over the last min(10, T) rounds of metrics.csv (docs/decisions.md,
  "Accuracy and macro-F1 in the summary are means over the last min(10, T) rounds").
- The text's metric: KL(P || Qd) = sum_k P_k ln(P_k / Qd_k), P the normalised contributions,
  Qd_k = samples_k / sum samples from the run's clients.csv, terms with P_k = 0 are 0 (docs/flce.md,
  "Metrics"; for an evaluation, the clients.csv of the run whose trace was evaluated).
- The released metric: each contribution min-max rescaled to [0.01, 1]
  (0.01 + 0.99 (x - min) / (max - min)), then KL(P || Q) with both normalised (scipy's entropy), Q
  uniform, or where clients.csv marks clients noisy the quality reference 1 for clean and 1e-6 for
  noisy clients (the study's noise is label noise only) (docs/flce.md, "The released code", row
  "the KL"; docs/decisions.md). All contributions equal: NaN, the seed left out.
- Each comparison, paired by seed: d_s in the claim's direction (FLCE minus the baseline for
  accuracy and macro-F1; the baseline's KL minus FLCE's for the two KL claims; FLCE's KL without
  completion, RUN/released/nocmc, minus its KL for "the completion helps"; docs/decisions.md, "The
  report", the forest plot's direction, and scripts/released_finish.sh), mean m and half-width
  h = t sd / sqrt(n) (sd with n - 1; t Student's 0.975 quantile with n - 1 degrees of freedom,
  exact: 4.3026527 for 3 seeds, tools/tquant.py's t_quantile from the closed forms of the t
  distribution), verdict "holds" when n >= 2 and m - h > 0, "fails" when n >= 2 and m + h < 0,
  "inconclusive" otherwise (scripts/released_finish.sh). Each row of released_claims.csv is one
  comparison. What deciding would take (docs/commands/report.md, "What deciding would take"), where
  released_claims.csv has the columns (reports since 2026-12-06): sd, detectable_difference and
  seeds_to_decide of each row as tools/tquant.py's power(m, h, n) gives them from the m and h
  recomputed here (all three empty where n < 2).
- "Without completion" (released_nocmc.csv): FLCE's KL to the data shares without completion per
  arm ((a) RUN/flce/released/nocmc; (b) its own contributions.csv; a trained arm its
  released/nocmc; an evaluated departure (a)'s released/nocmc-<departure>), kl_mean and n_kl over
  the seeds that have it; each arm minus (a), paired by seed (no partition check: the report says
  the balancing step and the released noise make another partition, each KL to its own), with its
  interval: "lowers it" below 0, "raises it" above, "no clear change" otherwise; (a)'s row has no
  difference, n_pairs 0 and no reading (docs/decisions.md, "Without completion"); where the table
  has them (reports since 2026-12-07), sd, detectable_difference and seeds_to_decide of each arm's
  paired difference as for released_claims.csv (empty in (a)'s rows and where n_pairs < 2).
Numbers agree within 1e-6 relative (1e-12 absolute near 0); n, seeds_to_decide and verdicts
exactly. A half-width with n < 2 is not compared. Arms and claims are recognised by the words of
their labels; a label not recognised, or a configuration with no folders, is reported NOT
RECOMPUTED.
Reports made before 2026-12-06 (released_claims.csv without the three columns) took t from a
table to three decimals (4.303 for 3 seeds; 1.96 beyond 30 degrees of freedom), 8e-5 relative
from the exact quantile: for such a report this script takes the exact quantile rounded the same
way, so that old reports check as before.
"""
import csv, json, math, os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tquant import power, t_quantile  # noqa: E402  (closed forms of the t distribution)

PROG = 'released_recheck.py'
RTOL, ATOL = 1e-6, 1e-12


class Bad(Exception):
    """An input file that cannot be read: one line naming it, exit 2."""


class Skip(Exception):
    """A seed left out of a comparison: a run missing or unfinished, an evaluation not made."""


class Unjudged(Exception):
    """A row this script has no definition for (reported NOT RECOMPUTED)."""


# ---- Student t: the exact 0.975 quantile (tools/tquant.py); a report made before 2026-12-06
# (no power columns) used the three-decimal table, the exact value rounded (1.96 beyond 30) ----
EXACT = True
POWER_COLS = ('sd', 'detectable_difference', 'seeds_to_decide')


def t975(df):
    if EXACT:
        return t_quantile(0.975, df)
    return round(t_quantile(0.975, df), 3) if df <= 30 else 1.96


def interval(ds):
    """mean, half-width (None for n < 2), n of paired differences."""
    n = len(ds)
    if n == 0: return None, None, 0
    m = sum(ds) / n
    if n < 2: return m, None, n
    sd = math.sqrt(sum((x - m) ** 2 for x in ds) / (n - 1))
    return m, t975(n - 1) * sd / math.sqrt(n), n


def verdict(m, h, n):
    if n >= 2 and m - h > 0: return 'holds'
    if n >= 2 and m + h < 0: return 'fails'
    return 'inconclusive'


def reading(m, h, n):
    if n >= 2 and m + h < 0: return 'lowers it'
    if n >= 2 and m - h > 0: return 'raises it'
    return 'no clear change'


# ---- files -----------------------------------------------------------------------------------
_cache = {}
def read_csv(path, need=()):
    if path in _cache: return _cache[path]
    try:
        with open(path, newline='') as f:
            rows = list(csv.DictReader(f))
            fields = rows[0].keys() if rows else []
    except OSError as e:
        raise Bad(f'{path}: cannot read ({e.strerror})')
    except csv.Error as e:
        raise Bad(f'{path}: not a CSV ({e})')
    for c in need:
        if rows and c not in fields: raise Bad(f'{path}: no column {c}')
    if not rows: raise Bad(f'{path}: no rows')
    _cache[path] = rows
    return rows


def num(path, row, col):
    try:
        return float(row[col])
    except (TypeError, ValueError):
        raise Bad(f'{path}: column {col}: not a number: {row.get(col)!r}')


def read_config(path):
    """(rounds, algo) of a run's config.json."""
    try:
        with open(path) as f: cfg = json.load(f)
    except OSError as e: raise Bad(f'{path}: cannot read ({e.strerror})')
    except ValueError as e: raise Bad(f'{path}: not JSON ({e})')
    r = cfg.get('rounds') if isinstance(cfg, dict) else None
    if not isinstance(r, int) or r < 1: raise Bad(f'{path}: no positive "rounds"')
    return r, cfg.get('algo')


def unfinished(d, method):
    """None when the run folder d of method is finished, else why not."""
    if not os.path.isdir(d): return 'no folder'
    for f in ('config.json', 'contributions.csv', 'digests.txt', 'metrics.csv'):
        if not os.path.isfile(os.path.join(d, f)): return f'no {f} (not finished)'
    T, algo = read_config(os.path.join(d, 'config.json'))
    if algo != method: return f'a run of {algo}, not of {method}'
    got = len(read_csv(os.path.join(d, 'metrics.csv'), ('round',)))
    if got != T: return f'metrics.csv has {got} of {T} rounds (not finished)'
    return None


def partition(d):
    p = os.path.join(d, 'digests.txt')
    try:
        for line in open(p):
            w = line.split()
            if len(w) == 2 and w[0] == 'partition': return w[1]
    except OSError as e: raise Bad(f'{p}: cannot read ({e.strerror})')
    raise Bad(f'{p}: no partition line')


def window_mean(d, col):
    p = os.path.join(d, 'metrics.csv')
    rows = read_csv(p, ('round', col))
    rows = sorted(rows, key=lambda r: num(p, r, 'round'))
    last = rows[-min(10, len(rows)):]
    return sum(num(p, r, col) for r in last) / len(last)


def clients(d):
    p = os.path.join(d, 'clients.csv')
    rows = read_csv(p, ('client', 'samples'))
    return {int(num(p, r, 'client')): (num(p, r, 'samples'), num(p, r, 'noisy') if 'noisy' in r else 0.0) for r in rows}


def contributions(path, col):
    rows = read_csv(path, ('client', col))
    return {int(num(path, r, 'client')): num(path, r, col) for r in rows}


def kl(P, Q):
    sp, sq = sum(P), sum(Q)
    if not (sp > 0 and sq > 0) or any(math.isnan(x) for x in P + Q): return math.nan
    s = 0.0
    for p, q in zip(P, Q):
        p, q = p / sp, q / sq
        if p > 0:
            if q <= 0: return math.inf
            s += p * math.log(p / q)
    return s


def kl_of(contrib_path, col, run_dir, metric):
    """FLCE's or a baseline's KL: metric 'shares' (to the data shares) or 'released' (min-max)."""
    cl = clients(run_dir)
    c = contributions(contrib_path, col)
    if sorted(c) != sorted(cl):
        raise Bad(f'{contrib_path}: its clients are not those of {run_dir}/clients.csv')
    ks = sorted(cl)
    x = [c[k] for k in ks]
    if metric == 'shares':
        return kl(x, [cl[k][0] for k in ks])
    lo, hi = min(x), max(x)
    if not hi > lo: return math.nan
    P = [0.01 + 0.99 * (v - lo) / (hi - lo) for v in x]
    noisy = [cl[k][1] != 0 for k in ks]
    Q = [1e-6 if z else 1.0 for z in noisy] if any(noisy) else [1.0] * len(ks)
    return kl(P, Q)


# ---- the study's arms (scripts/presets/run.sh, case released) --------------------------------
TRAINS = {'text': {'flce', 'fedavg', 'fedsv'}, 'released': {'flce', 'fedavg', 'fedsv'},
          'first': {'flce'}, 'sweep': {'flce'}, 'initial': {'flce'}, 'fedsvrel': {'fedsv'},
          'localtrain': {'flce', 'fedavg'}, 'clscale': {'flce'}, 'mean': {'fedavg', 'fedsv'},
          'balance': {'flce', 'fedavg', 'fedsv'}, 'noisecode': {'flce', 'fedavg', 'fedsv'}}


def arm_of(label):
    """(folder arm, evaluated departure or None, FedAvg's rule column) from an arm's label."""
    l = label.lower()
    if l.startswith('(a)'): return 'text', None, 'contribution'
    if l.startswith('(b)'): return 'released', None, 'l2_update'
    if '(evaluated)' in l:
        for key, dep in (('velocity', 'velocity'), ('absent', 'absent'), ('no completion', 'nocmc'),
                         ('first', 'first')):
            if key in l: return 'text', dep, 'contribution'
        return None
    if 'l2' in l: return 'text', None, 'l2_update'
    for key, arm in (('first', 'first'), ('l_cl', 'clscale'), ('initial', 'initial'),
                     ('fedsv\'s form', 'fedsvrel'), ('selection', 'sweep'), ('local training', 'localtrain'),
                     ('plain-mean', 'mean'), ('balanc', 'balance'), ('noise', 'noisecode')):
        if key in l: return arm, None, 'contribution'
    return None


def claim_of(label):
    l = label.lower()
    if 'completion helps' in l: return 'completion'
    if 'macro-f1' in l: return 'macro_f1'
    if 'accuracy' in l: return 'accuracy'
    if 'released metric' in l: return 'released'
    if "text's metric" in l or 'data shares' in l: return 'shares'
    return None


def config_of(label):
    """(dataset, tag) from the report's configuration label."""
    parts = [p.strip() for p in label.split(';')]
    l = label.lower()
    tag = 'noise' if 'noise' in l or 'noisy' in l else 'iid' if 'iid' in [p.lower() for p in parts] \
        else 'noniid' if 'dirichlet 0.5' in l else None
    return parts[0], tag


class Study:
    def __init__(self, root):
        self.root = root
        try: self.names = os.listdir(root)
        except OSError as e: raise Bad(f'{root}: cannot read ({e.strerror})')

    def seeds(self, ds, tag):
        pat = re.compile(re.escape(f'{ds}-rel-{tag}-') + r'[a-z]+-s(\d+)$')
        return sorted({int(m.group(1)) for m in map(pat.match, self.names) if m})

    def method_dir(self, ds, tag, arm, seed, method):
        """the method's run: RUN/METHOD where the arm trains several methods, RUN itself where it
        trains one (flce run with one --algo writes into --out)"""
        a = arm if method in TRAINS.get(arm, ()) else 'text'
        top = os.path.join(self.root, f'{ds}-rel-{tag}-{a}-s{seed}')
        return top if len(TRAINS[a]) == 1 else os.path.join(top, method)

    def run(self, ds, tag, arm, seed, method):
        """the finished run folder of method under arm at seed (Skip when it is not)"""
        d = self.method_dir(ds, tag, arm, seed, method)
        why = unfinished(d, method)
        if why: raise Skip(f'{d}: {why}')
        return d


def flce_contrib(study, ds, tag, arm, dep, seed):
    """(contributions.csv path, run folder) of FLCE under an arm, evaluated departure dep."""
    d = study.run(ds, tag, arm, seed, 'flce')
    if dep is None: return os.path.join(d, 'contributions.csv'), d
    p = os.path.join(d, 'released', dep, 'contributions.csv')
    if not os.path.isfile(p): raise Skip(f'{p}: not there')
    return p, d


def nocmc_of(study, ds, tag, arm, dep, seed):
    """(path, run folder) of FLCE's contributions without completion under an arm."""
    if arm == 'released' and dep is None:
        d = study.run(ds, tag, arm, seed, 'flce')
        return os.path.join(d, 'contributions.csv'), d
    if dep is None: return flce_contrib(study, ds, tag, arm, 'nocmc', seed)
    if dep in ('velocity', 'absent', 'first'): return flce_contrib(study, ds, tag, arm, 'nocmc-' + dep, seed)
    raise Unjudged(f'no evaluation without completion for the departure {dep}')


def finite(x):
    return x is not None and not math.isnan(x) and not math.isinf(x)


def claim_diff(study, ds, tag, kind, arm, dep, rule, base, seed):
    """d_s of one comparison at one seed, in the claim's direction."""
    if kind in ('accuracy', 'macro_f1'):
        if base not in ('fedavg', 'fedsv'): raise Unjudged(f'comparison {base}: not a baseline of the study')
        f = study.run(ds, tag, arm, seed, 'flce')
        b = study.run(ds, tag, arm, seed, base)
        if partition(f) != partition(b): raise Skip(f'seed {seed}: the partitions of {f} and {b} differ')
        return window_mean(f, kind) - window_mean(b, kind)
    if kind in ('shares', 'released'):
        if base != 'fedavg': raise Unjudged(f'comparison {base}: the KL claims compare with FedAvg')
        fp, fd = flce_contrib(study, ds, tag, arm, dep, seed)
        b = study.run(ds, tag, arm, seed, 'fedavg')
        if partition(fd) != partition(b): raise Skip(f'seed {seed}: the partitions of {fd} and {b} differ')
        bp = os.path.join(b, 'contributions.csv' if rule == 'contribution' else 'contributions_rules.csv')
        return kl_of(bp, rule, b, kind) - kl_of(fp, 'contribution', fd, kind)
    if kind == 'completion':
        if arm == 'released' or dep is not None:
            raise Unjudged('the completion claim has no comparison under this arm in the plan')
        fp, fd = flce_contrib(study, ds, tag, arm, None, seed)
        np_, _ = nocmc_of(study, ds, tag, arm, None, seed)
        return kl_of(np_, 'contribution', fd, 'shares') - kl_of(fp, 'contribution', fd, 'shares')
    raise Unjudged(f'claim kind {kind}')


def collect(study, ds, tag, fn):
    """the paired values over the configuration's seeds and the notes of the seeds left out."""
    vals, notes = [], []
    for s in study.seeds(ds, tag):
        try:
            v = fn(s)
        except Skip as e:
            notes.append(str(e)); continue
        if not finite(v):
            notes.append(f'seed {s}: not finite (a NaN or infinite KL)'); continue
        vals.append((s, v))
    return vals, notes


def close(a, b):
    if a is None or b is None: return a is None and b is None
    return abs(a - b) <= max(ATOL, RTOL * max(abs(a), abs(b)))


def fnum(s, path, line, col):
    if s is None or s.strip() == '': return None
    try: return float(s)
    except ValueError: raise Bad(f'{path} line {line}: column {col}: not a number: {s!r}')


def fint(s, path, line, col):
    try: return int(s)
    except (TypeError, ValueError): raise Bad(f'{path} line {line}: column {col}: not an integer: {s!r}')


def g(x):
    return 'n/a' if x is None else f'{x:.10g}'


def check_claims(study, path, tally):
    rows = read_csv(path, ('claim', 'configuration', 'arm', 'comparison', 'mean_difference',
                           'half_width_95', 'n', 'verdict'))
    for i, r in enumerate(rows, start=2):
        head = f'released_claims.csv line {i}: {r["configuration"]} | {r["claim"][:40]} | {r["arm"]} | vs {r["comparison"]}'
        rm = fnum(r['mean_difference'], path, i, 'mean_difference')
        rh = fnum(r['half_width_95'], path, i, 'half_width_95')
        rn = fint(r['n'], path, i, 'n')
        rv = r['verdict']
        ds, tag = config_of(r['configuration'])
        kind, arm = claim_of(r['claim']), arm_of(r['arm'])
        why = None if tag else 'configuration label not recognised'
        why = why or (None if kind else 'claim label not recognised')
        why = why or (None if arm else 'arm label not recognised')
        why = why or (None if study.seeds(ds, tag) else f'no folders {ds}-rel-{tag}-* in {study.root}')
        if why:
            tally['skip'] += 1; print(f'NOT RECOMPUTED  {head}: {why}'); continue
        a, dep, rule = arm
        base = r['comparison'] if kind != 'completion' else 'without completion'
        try:
            vals, notes = collect(study, ds, tag, lambda s: claim_diff(study, ds, tag, kind, a, dep, rule, base, s))
        except Unjudged as e:
            tally['skip'] += 1; print(f'NOT RECOMPUTED  {head}: {e}'); continue
        m, h, n = interval([v for _, v in vals])
        if n == 0:
            tally['skip'] += 1; print(f'NOT RECOMPUTED  {head}: no seed has the runs ({"; ".join(notes)})'); continue
        v = verdict(m, h, n)
        bad = []
        if not close(m, rm): bad.append('mean')
        if n >= 2 and not close(h, rh): bad.append('half-width')
        if n != rn: bad.append('n')
        if v != rv: bad.append('verdict')
        pw = check_power(r, m, h, n, path, i, bad)  # what deciding would take, from the m and h recomputed here
        line = (f'{head}: mean {g(m)} [{g(rm)}] half-width {g(h)} [{g(rh)}] n {n} [{rn}] {v} [{rv}]{pw}'
                + (f' (left out: {"; ".join(notes)})' if notes else ''))
        tally['bad' if bad else 'ok'] += 1
        print(('DIFFERS (' + ', '.join(bad) + ')  ' if bad else 'agree  ') + line)


def check_power(r, d, h, n, path, i, bad):
    """The row's power columns, where it has them, against power(d, h, n) (all three empty where n < 2):
    the names of those that differ appended to bad; the words for the report line ('' without them)."""
    if not all(c in r for c in POWER_COLS): return ''
    if n >= 2:
        p_sd, det, seeds = power(d, h, n)
    else:
        p_sd = det = None; seeds = ''
    rsd, rdet = fnum(r['sd'], path, i, 'sd'), fnum(r['detectable_difference'], path, i, 'detectable_difference')
    if not close(p_sd, rsd): bad.append('sd')
    if not close(det, rdet): bad.append('detectable_difference')
    if seeds != r['seeds_to_decide']: bad.append('seeds_to_decide')
    return f' sd {g(p_sd)} [{g(rsd)}] detectable {g(det)} [{g(rdet)}] seeds {seeds or "-"} [{r["seeds_to_decide"] or "-"}]'


def check_nocmc(study, path, tally):
    rows = read_csv(path, ('configuration', 'arm', 'kl_mean', 'n_kl', 'difference_from_text',
                           'half_width_95', 'n_pairs', 'reading'))
    for i, r in enumerate(rows, start=2):
        head = f'released_nocmc.csv line {i}: {r["configuration"]} | {r["arm"]}'
        ds, tag = config_of(r['configuration'])
        arm = arm_of(r['arm'])
        why = None if tag else 'configuration label not recognised'
        why = why or (None if arm else 'arm label not recognised')
        why = why or (None if study.seeds(ds, tag) else f'no folders {ds}-rel-{tag}-* in {study.root}')
        if not why and arm[1] is None and arm[0] not in ('text', 'released') and 'flce' not in TRAINS[arm[0]]:
            why = 'this arm does not train FLCE: no KL without completion of its own'
        if not why and arm[2] == 'l2_update' and arm[0] == 'text':
            why = "the baselines' rule does not change FLCE"
        if not why and arm[1] == 'nocmc':
            why = 'no completion is (a) itself here'
        if why:
            tally['skip'] += 1; print(f'NOT RECOMPUTED  {head}: {why}'); continue
        a, dep, _ = arm
        def kl_nc(s, a=a, dep=dep):
            p, d = nocmc_of(study, ds, tag, a, dep, s)
            return kl_of(p, 'contribution', d, 'shares')
        vals, notes = collect(study, ds, tag, kl_nc)
        text, tnotes = collect(study, ds, tag, lambda s: kl_nc(s, 'text', None))
        rk = fnum(r['kl_mean'], path, i, 'kl_mean'); rnk = fint(r['n_kl'], path, i, 'n_kl')
        rd = fnum(r['difference_from_text'], path, i, 'difference_from_text')
        rh = fnum(r['half_width_95'], path, i, 'half_width_95'); rnp = fint(r['n_pairs'], path, i, 'n_pairs')
        rr = r['reading']
        if not vals:
            tally['skip'] += 1; print(f'NOT RECOMPUTED  {head}: no seed has the evaluation ({"; ".join(notes)})'); continue
        k = sum(v for _, v in vals) / len(vals)
        bad = []
        if not close(k, rk): bad.append('kl_mean')
        if len(vals) != rnk: bad.append('n_kl')
        if a == 'text' and dep is None:
            d = h = None; np_ = 0; rd_ = ''
        else:
            tv = dict(text)
            diffs = [v - tv[s] for s, v in vals if s in tv]
            d, h, np_ = interval(diffs)
            rd_ = reading(d, h, np_) if np_ else 'no clear change'
        if not close(d, rd): bad.append('difference')
        if np_ >= 2 and not close(h, rh): bad.append('half-width')
        if np_ != rnp: bad.append('n_pairs')
        if rd_ != rr: bad.append('reading')
        pw = check_power(r, d, h, np_, path, i, bad)  # released_nocmc.csv since 2026-12-07
        allnotes = notes + [f'(a): {x}' for x in tnotes if a != 'text' or dep is not None]
        line = (f'{head}: KL {g(k)} [{g(rk)}] n {len(vals)} [{rnk}] minus (a) {g(d)} [{g(rd)}] half-width {g(h)} [{g(rh)}]'
                f' pairs {np_} [{rnp}] "{rd_}" ["{rr}"]{pw}' + (f' (left out: {"; ".join(allnotes)})' if allnotes else ''))
        tally['bad' if bad else 'ok'] += 1
        print(('DIFFERS (' + ', '.join(bad) + ')  ' if bad else 'agree  ') + line)


def main(argv):
    if len(argv) != 3 or argv[1].startswith('-'):
        print(f'usage: {PROG} STUDY_DIR REPORT_DIR (e.g. runs/released docs/results/fmnist-released/iid-report)',
              file=sys.stderr)
        return 2
    root, rep = argv[1], argv[2]
    for d in (root, rep):
        if not os.path.isdir(d):
            print(f'{PROG}: {d}: no such folder', file=sys.stderr); return 2
    claims = os.path.join(rep, 'released_claims.csv')
    if not os.path.isfile(claims):
        print(f'{PROG}: {claims}: no such file', file=sys.stderr); return 2
    tally = {'ok': 0, 'bad': 0, 'skip': 0}
    global EXACT
    with open(claims, newline='') as f:
        header = next(csv.reader(f), None) or []
    EXACT = all(c in header for c in POWER_COLS)
    print(f'(t quantiles: {"exact" if EXACT else "the three-decimal table of reports before 2026-12-06"}; '
          f'what deciding would take: {"checked" if EXACT else "no columns"})')
    try:
        study = Study(root)
        check_claims(study, claims, tally)
        nocmc = os.path.join(rep, 'released_nocmc.csv')
        if os.path.isfile(nocmc): check_nocmc(study, nocmc, tally)
        else: print(f'(no {nocmc}: the table "Without completion" not checked)')
    except Bad as e:
        print(f'{PROG}: {e}', file=sys.stderr); return 2
    print(f'{tally["ok"]} agree, {tally["bad"]} differ' + (f', {tally["skip"]} not recomputed' if tally['skip'] else ''))
    return 0 if tally['bad'] == 0 and tally['skip'] == 0 else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
