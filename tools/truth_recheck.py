#!/usr/bin/python3
"""truth_recheck.py TRUTH_DIR... [--report REPORT_DIR --runs RUNS_DIR...]: the retrained ground
truth (issue 63, `flce truth`) and the report's section "Against the retrained ground truth"
recomputed from the files alone, with nothing of the harness's code (Python's standard library
only), written from docs/decisions.md ("The retrained ground truth", "The ground-truth study"),
docs/formats.md ("The ground truth") and docs/commands/{truth,report}.md.

What it checks:
1. Each TRUTH_DIR (a folder with truth.json): utilities.csv as the docs describe it (the header,
   every row's mask and members, its train seeds seed .. seed + R - 1, every coalition the
   `coalitions` setting needs, none twice), then from its text alone, by enumeration of the
   closed-form definitions, on the table of the utility `utility` names (accuracy,
   accuracy_window, or minus loss, loss_window) averaged over the R train seeds:
     Shapley  phi_i  = sum_{S not holding i} |S|! (n-|S|-1)! / n! (v(S+i) - v(S))
     Banzhaf  beta_i = 1/2^(n-1) sum_{S not holding i} (v(S+i) - v(S))
     leave-one-out  v(N) - v(N-i);   alone  v({i}) - v(empty)
   (`coalitions sample:M`: Shapley and Banzhaf by the size strata of docs/decisions.md;
   `loo`: leave-one-out and alone only, Shapley and Banzhaf must be empty), and each `_sd`
   column: the sample standard deviation over the seeds' own tables' values (empty for R = 1).
   Compared with values.csv (written %.9g: agree within 1e-8 relative).
2. With --report (needs --runs): the report's truth_scores.csv, row by row: for each truth, each
   method run of its federation (a run of the RUNS_DIRs with the truth's partition digest,
   clients and rounds, and K = the truth's clients a round, or K = n for `participation full`)
   from its contributions.csv, and the four trivial rules (uniform; rounds selected: the number
   of rows of round_contributions.csv a client has; size weights over the rounds selected: sum
   over the rounds a client was selected of samples_k / the samples of that round's selected
   clients (clients.csv); data sizes: clients.csv's samples): Spearman with the truth's Shapley
   values (ties: average ranks, the docs' rule for the report's other Spearman correlations,
   docs/commands/report.md "ties: their mean rank"), Pearson with Shapley, Spearman with
   Banzhaf and with leave-one-out, the KL and the Jensen-Shannon divergence of the method's shares to the Shapley shares
   (sum p log(p / q) over p > 0; negatives clamped to 0 on both sides; `inf` where q = 0 < p),
   the top and bottom quarter agreement (max(1, floor(n / 4)) clients: the share of the method's
   top (bottom) quarter that is in the Shapley values' top (bottom) quarter), and the removal
   curves' means (the utility of the mean table for N without the k clients valued most, resp.
   least, k = 0 .. n - 1, averaged over k); the removal curves themselves against
   truthNN_removal.csv (the method's two columns and the exact Shapley order's); for a truth of
   every coalition and several seeds, the heading's Spearman between its seeds' own Shapley
   values (each seed's table alone; the mean over pairs of seeds); the pairing of
   truths with runs; and, over the truths of one configuration (truth.json equal but for the seed,
   the partition digest and the number of truth seeds, PLAN.md's ten-seed plan putting truths of
   one and of two truth seeds in one configuration; truth_format aside too), report.md's table: each method's and rule's mean Spearman with its
   95% half-width (Student t, n - 1 degrees of freedom, the exact quantile: 4.302653 for 3
   truths; tools/tquant.py works it out from the closed forms of the t distribution), "tracks"
   (interval above 0), "adds"
   (mean above the best trivial rule's mean; the uniform rule has no Spearman), the paired-seed
   effectiveness claim (FLCE minus FedAvg: holds above 0, fails below, not shown otherwise) and
   the count of configurations with K of n a round (participation k) in which FLCE tracks, with
   the plan's answer (yes at 3 of 4; no where the configurations left cannot reach 3; otherwise
   not yet decided).
   The ten-seed plan (docs/results/fmnist-truth/PLAN.md, "The extension to ten seeds", issue 80):
   in each configuration's section, the mean over its truths with two truth seeds or more (and
   every coalition) of the heading's Spearman between the seeds' own Shapley values, against the
   sentence "The truth's own seeds agree to a Spearman of X (mean over the N truths with two
   truth seeds): the configuration informs the question" (X to its decimals, N, and "informs"
   where the mean is at least 0.5, "cannot inform the question" below), or that there is no such
   sentence where none of its truths has two seeds; and over the configurations of arm k (those
   the original answer counts) the paragraph "The ten-seed plan's answer": I of the K
   configurations inform it, FLCE tracks the truth in J of those I: **yes** where J >= 3/4 I,
   **no** where not, **cannot be decided** where I < 2; or that there is no such paragraph where
   some of the K has no truth of two seeds (the plan's rule needs each configuration's measure;
   docs/commands/report.md: the answer is given "where every configuration measured its truth's
   agreement with itself").
   What deciding would take (docs/commands/report.md, "What deciding would take"; reports since
   2026-12-06): each row of truth_verdicts.csv (configuration, test `tracks` or `flce minus
   fedavg`, method or rule, difference, half-width, n, verdict holds / fails / inconclusive) to
   the digits written (%.10g), and its sd, detectable_difference and seeds_to_decide as
   tools/tquant.py's power(d, h, n)
   gives them; beside each inconclusive verdict of report.md's table and effectiveness sentence,
   the words "decides at about m seeds" or "the n seeds run detect only |d| >= x".
   A report made before then (no truth_verdicts.csv) tabulated its quantiles to three decimals
   (4.303 for 3 truths): its half-widths are checked against those, and the rest as before. A
   truth_scores.csv made before the JS column (f10993c; the committed three-seed report) is
   checked without js_shapley_shares.
   With --runs, beside the report, the truths' own claims about the runs (docs/decisions.md):
   v(empty)'s model digest is every run's initial_model, and for a truth of one train seed with
   participation k, v(N)'s row is the federation's own run of the truth's method (its final
   accuracy and final_model digest).
   A number of the report is compared to the decimals it is written with (agree within half a
   unit of its last digit); `inf`, `nan` and `n/a` must match as such.

Points the docs leave open, taken from the C code (and the doc that should say them):
  - "client alone" is v({i}) - v(empty), not v({i}) (reference/values.h:38; docs/formats.md
    and docs/commands/truth.md name the column without defining it).
  - Ties in a method's order (the quarters and the removal curves): clients are ordered by value,
    the most valued first, ties the lower client first; "least valued first" and the bottom
    quarter are that order reversed, so among tied clients the higher one counts as less valued
    (apps/report/report_truth.c:214-235 and 273; docs/commands/report.md should say it). With
    the ascending order and ties the lower client first instead, truth_scores.csv's
    `removal_low_mean` of "rounds selected (rule)" differs (seed 401: 0.545667 against 0.555667;
    seed 402: 0.587333 against 0.668667), the rule's selection counts being tied.
  - Shares of a vector with no value above 0 are uniform (reference/values.h:74; docs/decisions.md
    "Two scores read with care" should say it). Not reached by the study's data.
  - The ten-seed plan's criterion (PLAN.md: "over its federations with two truth seeds, the mean
    Spearman correlation between the two trainings' Shapley values"): a truth of more than two
    truth seeds counts once, with its heading's mean over pairs; a truth whose seeds' Spearman is
    undefined (one seed's Shapley values all equal) is left out of the mean and of N, and a
    configuration whose truths of two seeds are all such has no measure (report_truth.c,
    truth_table: `!isnan(t->seed_sp)`). Not reached by the study's data. "At least 0.5" is read
    on the unrounded mean, not on the three decimals printed (report_truth.c, truth_over_seeds:
    `self >= TR_INFORMS`).
  - The ten-seed plan's answer: K is the configurations of arm k the report judged (FLCE scored
    over two truths or more), not the plan's four; a report over part of the study answers over
    those it holds (report_truth.c, truth_answer; it adds "(of those judged here)", not checked).
    PLAN.md's rule is "at ten seeds"; the report applies it over the seeds it is given, with no
    word that they are fewer than ten, and so does this check (on seeds 401-408: 8 truths).
  - truth_format is left out of a configuration's key, as the report's key leaves it
    (report_truth.c, truth_load: the run flags but --seed, coalitions, utility, participation,
    window). Unlike the report's, the key here keeps algo, clients, per_round and rounds: equal
    where the run flags are, in the study.
Not recomputed (listed as such when met): a truth of `coalitions loo` in the report (no Shapley
values; the docs do not say what the report scores against then), and the scores of a truth whose
values could not be recomputed (an unfinished utilities.csv).

Output: one line per compared item group ("agree" or "DIFFER" with the values), one per item that
could not be recomputed with the reason, and a last line "N agree, M differ, K not recomputed".
Exit status: 0 when everything compared agrees, 1 when anything differs or a file is damaged (one
line naming the file), 2 for a usage error.

Example (the study's archive: scripts/truth_pack.sh unpack runs/truth):
  T=runs/truth/fmnist-truth-qskew-k
  build/flce report $T-runs-s401 $T-s401 $T-runs-s402 $T-s402 --out /tmp/truth-report
  tools/truth_recheck.py $T-s401 $T-s402 --report /tmp/truth-report --runs $T-runs-s401 $T-runs-s402
Checked 2026-12-06: arm k's four configurations at seeds 401-408 (a report over the 64 folders):
1120 agree, none differs, in about 1 s; the committed three-seed report (both arms, 24 truths):
980 agree (971 before the ten-seed plan's 9 items), none differs.
"""
import csv, json, math, os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tquant import power, t_quantile  # noqa: E402  (closed forms of the t distribution)

PROG = 'truth_recheck.py'
USAGE = f'usage: {PROG} TRUTH_DIR... [--report REPORT_DIR --runs RUNS_DIR...]'


class Damaged(Exception):
    pass


def usage(msg):
    print(f'{PROG}: {msg}\n{USAGE}', file=sys.stderr)
    sys.exit(2)


# ---------------------------------------------------------------- tally of the comparisons
class Tally:
    def __init__(self):
        self.agree = self.differ = self.skipped = 0

    def item(self, name, ok, detail=''):
        if ok:
            self.agree += 1
            print(f'agree   {name}' + (f': {detail}' if detail else ''))
        else:
            self.differ += 1
            print(f'DIFFER  {name}: {detail}')

    def skip(self, name, why):
        self.skipped += 1
        print(f'not recomputed  {name}: {why}')


# ---------------------------------------------------------------- reading
def read_csv(path, header=None):
    try:
        with open(path, newline='') as f:
            rows = list(csv.reader(f))
    except OSError as e:
        raise Damaged(f'{path}: {e.strerror}')
    if not rows:
        raise Damaged(f'{path}: empty')
    if header is not None and rows[0] != header:
        raise Damaged(f'{path}: header {",".join(rows[0])!r}, not {",".join(header)!r}')
    return rows[0], rows[1:]


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise Damaged(f'{path}: {e.strerror}')
    except ValueError as e:
        raise Damaged(f'{path}: not JSON ({e})')


def num(text, where):
    try:
        x = float(text)
    except ValueError:
        raise Damaged(f'{where}: {text!r} is not a number')
    return x


# ---------------------------------------------------------------- the truth
UTIL_COLUMN = {'accuracy': ('accuracy', 1), 'accuracy-window': ('accuracy_window', 1),
               'loss': ('loss', -1), 'loss-window': ('loss_window', -1)}
UHEADER = 'mask,members,train_seed,accuracy,loss,accuracy_window,loss_window,model_digest'.split(',')
VHEADER = 'client,shapley,shapley_sd,banzhaf,banzhaf_sd,loo,loo_sd,alone,alone_sd'.split(',')


def loo_masks(n):
    full = (1 << n) - 1
    return {0, full} | {1 << i for i in range(n)} | {full ^ (1 << i) for i in range(n)}


class Truth:
    """truth.json and utilities.csv of a truth folder, checked as the docs describe them."""

    def __init__(self, d):
        self.dir = d
        self.name = d.rstrip('/')
        j = read_json(os.path.join(d, 'truth.json'))
        self.json = j
        try:
            self.n, self.R, self.seed = int(j['clients']), int(j['truth_seeds']), int(j['seed'])
            self.K, self.T = int(j['per_round']), int(j['rounds'])
            self.coal, self.part, self.utility = j['coalitions'], j['participation'], j['utility']
            self.digest, self.algo = j['partition_digest'], j['algo']
        except (KeyError, TypeError, ValueError) as e:
            raise Damaged(f'{d}/truth.json: missing or bad member {e}')
        if self.utility not in UTIL_COLUMN:
            raise Damaged(f'{d}/truth.json: utility {self.utility!r} is none of {", ".join(UTIL_COLUMN)}')
        if not (self.coal in ('all', 'loo') or re.fullmatch(r'sample:\d+', str(self.coal))):
            raise Damaged(f'{d}/truth.json: coalitions {self.coal!r} is none of all, loo, sample:M')
        n = self.n
        if not (1 <= n <= (16 if self.coal == 'all' else 32)) or self.R < 1:
            raise Damaged(f'{d}/truth.json: clients {n} or truth_seeds {self.R} out of range')
        upath = os.path.join(d, 'utilities.csv')
        fmt = j.get('truth_format', 1)
        if fmt not in (1, 2):
            raise Damaged(f'{d}/truth.json: truth_format {fmt!r}, not 1 or 2')
        _, rows = read_csv(upath, UHEADER + (['settings'] if fmt == 2 else []))
        if fmt == 2:  # each row names the settings it was trained under: one digest for the whole table
            sets = {r[-1] for r in rows if r}
            if len(sets) > 1 or any(not re.fullmatch(r'[0-9a-f]{16}', x) for x in sets):
                raise Damaged(f'{upath}: rows of {len(sets)} settings digests ({", ".join(sorted(sets))[:80]}); one truth has one')
            rows = [r[:-1] for r in rows]
        col, sign = UTIL_COLUMN[self.utility]
        ci = UHEADER.index(col)
        self.rows = {}  # (mask, seed) -> row
        self.u = {}     # mask -> [utility of each seed]
        seeds = list(range(self.seed, self.seed + self.R))
        for ln, r in enumerate(rows, 2):
            where = f'{upath} line {ln}'
            if len(r) != len(UHEADER):
                raise Damaged(f'{where}: {len(r)} fields, not {len(UHEADER)}')
            try:
                mask, seed = int(r[0]), int(r[2])
            except ValueError:
                raise Damaged(f'{where}: mask or train_seed not an integer')
            if not 0 <= mask < (1 << n):
                raise Damaged(f'{where}: mask {mask} out of 0 .. 2^{n} - 1')
            members = ';'.join(str(i) for i in range(n) if mask >> i & 1)
            if r[1] != members:
                raise Damaged(f'{where}: members {r[1]!r}, the mask says {members!r}')
            if seed not in seeds:
                raise Damaged(f'{where}: train seed {seed} is not one of {seeds[0]} .. {seeds[-1]}')
            if (mask, seed) in self.rows:
                raise Damaged(f'{where}: mask {mask}, seed {seed} a second time')
            for k in range(3, 7):
                num(r[k], f'{where} ({UHEADER[k]})')
            self.rows[(mask, seed)] = r
        need = set(range(1 << n)) if self.coal == 'all' else loo_masks(n)
        have = {m for m, _ in self.rows}
        missing = [(m, s) for m in sorted(need | have) for s in seeds if (m, s) not in self.rows]
        self.complete = not missing
        self.missing = missing
        if self.complete and list(self.rows) != sorted(self.rows):
            raise Damaged(f'{upath}: rows not in (mask, train seed) order (a finished table is)')
        if self.complete:
            for m in sorted(have):
                self.u[m] = [sign * float(self.rows[(m, s)][ci]) for s in seeds]
            self.v = {m: math.fsum(x) / self.R for m, x in self.u.items()}  # the mean table
        self.has_values = os.path.isfile(os.path.join(d, 'values.csv'))

    def key(self):
        """The configuration: truth.json but for the seed, the partition digest and --seed, the number
        of truth seeds (PLAN.md's ten-seed plan: a configuration's ten federations are its three
        original truths, of one truth seed but for label skew's, and its seven new ones of two) and
        truth_format (the format of utilities.csv, not a setting: format 1 truths resume as such)."""
        j = dict(self.json)
        flags = list(j.get('run_flags', []))
        while '--seed' in flags:
            i = flags.index('--seed')
            del flags[i:i + 2]
        j['run_flags'] = flags
        for k in ('seed', 'partition_digest', 'truth_seeds', 'truth_format'):
            j.pop(k, None)
        return json.dumps(j, sort_keys=True)

    def seed_spearman(self):
        """The Spearman between its seeds' own Shapley values (each train seed's table alone), the
        mean over pairs of seeds; None where it has one seed or not every coalition (or is
        unfinished), nan where a seed's Shapley values are all equal."""
        if self.R < 2 or self.coal != 'all' or not self.complete:
            return None
        if not hasattr(self, '_seed_sp'):
            phis = [shapley(self.n, {m: x[r] for m, x in self.u.items()}) for r in range(self.R)]
            sps = [spearman(phis[a], phis[b]) for a in range(self.R) for b in range(a + 1, self.R)]
            self._seed_sp = math.fsum(sps) / len(sps)
        return self._seed_sp

    def key_flags(self):
        return json.loads(self.key())['run_flags']


# ---------------------------------------------------------------- values by enumeration
def shapley(n, v):
    f = math.factorial
    w = [f(s) * f(n - s - 1) / f(n) for s in range(n)]
    out = []
    for i in range(n):
        b = 1 << i
        out.append(math.fsum(w[bin(S).count('1')] * (v[S | b] - v[S]) for S in range(1 << n) if not S & b))
    return out


def banzhaf(n, v):
    out = []
    for i in range(n):
        b = 1 << i
        out.append(math.fsum(v[S | b] - v[S] for S in range(1 << n) if not S & b) / 2 ** (n - 1))
    return out


def strata(n, v):
    """Shapley and Banzhaf by size strata (docs/decisions.md, "Sampled coalitions")."""
    phi, beta = [], []
    for i in range(n):
        b = 1 << i
        terms = []
        for s in range(1, n + 1):
            A = [u for m, u in v.items() if m & b and bin(m).count('1') == s]
            B = [u for m, u in v.items() if not m & b and bin(m).count('1') == s - 1]
            if not A or not B:
                return None, None
            terms.append((s, math.fsum(A) / len(A) - math.fsum(B) / len(B)))
        phi.append(math.fsum(t for _, t in terms) / n)
        beta.append(math.fsum(math.comb(n - 1, s - 1) * t for s, t in terms) / 2 ** (n - 1))
    return phi, beta


def values_of(t, v):
    n, full = t.n, (1 << t.n) - 1
    out = {'loo': [v[full] - v[full ^ (1 << i)] for i in range(n)],
           'alone': [v[1 << i] - v[0] for i in range(n)]}
    if t.coal == 'all':
        out['shapley'], out['banzhaf'] = shapley(n, v), banzhaf(n, v)
    elif t.coal.startswith('sample:'):
        out['shapley'], out['banzhaf'] = strata(n, v)
    return out


def sd(xs):
    m = math.fsum(xs) / len(xs)
    return math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def check_values(t, tally):
    name = f'{t.name}/values.csv'
    if not t.complete:
        m, s = t.missing[0]
        tally.skip(name, f'utilities.csv lacks {len(t.missing)} rows (first: mask {m}, seed {s}): unfinished')
        return None
    vals = values_of(t, t.v)
    if 'shapley' in vals and vals['shapley'] is None:
        tally.skip(name, 'a size stratum of the sampled table is empty for some client')
        return None
    per_seed = [values_of(t, {m: x[r] for m, x in t.u.items()}) for r in range(t.R)]
    if not t.has_values:
        tally.skip(name, 'no values.csv (the truth has not finished)')
        return vals
    try:
        _, rows = read_csv(os.path.join(t.dir, 'values.csv'), VHEADER)
    except Damaged as e:
        tally.item(name, False, str(e))
        return vals
    bad, worst = [], 0.0
    if [r[0] for r in rows] != [str(i) for i in range(t.n)]:
        bad.append(f'clients {[r[0] for r in rows]}, not 0..{t.n - 1}')
        rows = []
    for i, r in enumerate(rows):
        for c, col in enumerate(VHEADER[1:], 1):
            base = col[:-3] if col.endswith('_sd') else col
            if base not in vals:
                mine = None
            elif col.endswith('_sd'):
                mine = sd([p[base][i] for p in per_seed]) if t.R > 1 else None
            else:
                mine = vals[base][i]
            text = r[c] if c < len(r) else '<missing>'
            if mine is None:
                if text != '':
                    bad.append(f'client {i} {col}: {text!r}, expected empty')
                continue
            try:
                theirs = float(text)
            except ValueError:
                bad.append(f'client {i} {col}: {text!r}, mine {mine:.9g}')
                continue
            err = abs(theirs - mine)
            worst = max(worst, err)
            if err > 1e-12 + 1e-8 * abs(mine):
                bad.append(f'client {i} {col}: file {text}, mine {mine:.9g}')
    what = [k for k in ('shapley', 'banzhaf', 'loo', 'alone') if k in vals]
    tally.item(f'{name} ({t.n} clients, {t.R} seed(s), {t.utility}; {", ".join(what)}'
               f'{", their sd" if t.R > 1 else ""})', not bad,
               '; '.join(bad[:6]) + (f' (and {len(bad) - 6} more)' if len(bad) > 6 else '') if bad
               else f'largest difference {worst:.2g}')
    return vals


# ---------------------------------------------------------------- scores
def ranks(x):
    """Average ranks (1-based) of x ascending."""
    order = sorted(range(len(x)), key=lambda i: x[i])
    r = [0.0] * len(x)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and x[order[j + 1]] == x[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def pearson(a, b):
    n = len(a)
    ma, mb = math.fsum(a) / n, math.fsum(b) / n
    sab = math.fsum((x - ma) * (y - mb) for x, y in zip(a, b))
    saa = math.fsum((x - ma) ** 2 for x in a)
    sbb = math.fsum((y - mb) ** 2 for y in b)
    if saa == 0 or sbb == 0:
        return math.nan
    return sab / math.sqrt(saa * sbb)


def spearman(a, b):
    return pearson(ranks(a), ranks(b))


def shares(x):
    c = [max(0.0, v) for v in x]
    s = math.fsum(c)
    return [1 / len(x)] * len(x) if s == 0 else [v / s for v in c]


def kl(p, q):
    if any(pi > 0 and qi == 0 for pi, qi in zip(p, q)):
        return math.inf
    return math.fsum(pi * math.log(pi / qi) for pi, qi in zip(p, q) if pi > 0)


def js(p, q):
    """Jensen-Shannon divergence, natural log: the mean of KL(p, m) and KL(q, m), m = (p + q) / 2."""
    m = [(a + b) / 2 for a, b in zip(p, q)]
    return (kl(p, m) + kl(q, m)) / 2


def order(x):
    """Clients by value, the most valued first; ties: the lower client first. The least valued
    first is this order reversed (apps/report/report_truth.c; see the docstring)."""
    return sorted(range(len(x)), key=lambda i: (-x[i], i))


def quarter(x, y, most):
    q = max(1, len(x) // 4)
    ox, oy = order(x), order(y)
    a, b = (ox[:q], oy[:q]) if most else (ox[-q:], oy[-q:])
    return len(set(a) & set(b)) / q


def removal(t, x, most):
    full, v, curve, gone = (1 << t.n) - 1, t.v, [], 0
    o = order(x) if most else order(x)[::-1]
    for k in range(t.n):
        curve.append(v[full & ~gone])
        gone |= 1 << o[k]
    return curve


def scores(t, vals, x):
    constant = len(set(x)) == 1
    sh = vals['shapley']
    s = {'spearman_shapley': spearman(x, sh), 'pearson_shapley': pearson(x, sh),
         'spearman_banzhaf': spearman(x, vals['banzhaf']), 'spearman_loo': spearman(x, vals['loo']),
         'kl_shapley_shares': kl(shares(x), shares(sh)), 'js_shapley_shares': js(shares(x), shares(sh))}
    if constant:  # no order: no quarter, no removal curve
        s.update(top_quarter=math.nan, bottom_quarter=math.nan, removal_high_mean=math.nan,
                 removal_low_mean=math.nan)
        return s, None, None
    hi, lo = removal(t, x, True), removal(t, x, False)
    s.update(top_quarter=quarter(x, sh, True), bottom_quarter=quarter(x, sh, False),
             removal_high_mean=math.fsum(hi) / t.n, removal_low_mean=math.fsum(lo) / t.n)
    if t.coal != 'all':
        s.update(removal_high_mean=math.nan, removal_low_mean=math.nan)
        return s, None, None
    return s, hi, lo


def same(text, mine):
    """The report's text against my number: to the decimals it is written with; inf/nan/n/a as such."""
    t = text.strip()
    if t.lower() in ('nan', 'n/a', '') or mine is None or (isinstance(mine, float) and math.isnan(mine)):
        return t.lower() in ('nan', 'n/a', '') and (mine is None or math.isnan(mine))
    if t.lower() in ('inf', '+inf', '-inf'):
        return math.isinf(mine) and (mine < 0) == t.startswith('-')
    if math.isinf(mine):
        return False
    try:
        x = float(t)
    except ValueError:
        return False
    d = len(t.split('.')[1]) if '.' in t else 0
    return abs(x - mine) <= 0.5 * 10 ** -d + 1e-12


def fmt(x):
    return 'n/a' if x is None else ('inf' if isinstance(x, float) and math.isinf(x) else
                                    ('nan' if isinstance(x, float) and math.isnan(x) else f'{x:.6f}'))


# ---------------------------------------------------------------- runs
class Run:
    def __init__(self, d):
        self.dir = d
        self.cfg = read_json(os.path.join(d, 'config.json'))
        self.algo = self.cfg.get('algo', '?')
        self.dig = {}
        p = os.path.join(d, 'digests.txt')
        try:
            for ln in open(p):
                w = ln.split()
                if len(w) == 2:
                    self.dig[w[0]] = w[1]
        except OSError as e:
            raise Damaged(f'{p}: {e.strerror}')
        _, rows = read_csv(os.path.join(d, 'contributions.csv'), ['client', 'contribution'])
        self.contrib = [num(r[1], f'{d}/contributions.csv line {k}') for k, r in enumerate(rows, 2)]
        if [r[0] for r in rows] != [str(i) for i in range(len(rows))]:
            raise Damaged(f'{d}/contributions.csv: clients not 0 .. {len(rows) - 1} in order')
        h, rows = read_csv(os.path.join(d, 'clients.csv'))
        if h[:2] != ['client', 'samples']:
            raise Damaged(f'{d}/clients.csv: header {",".join(h)!r}')
        self.samples = [num(r[1], f'{d}/clients.csv line {k}') for k, r in enumerate(rows, 2)]
        h, rows = read_csv(os.path.join(d, 'round_contributions.csv'))
        if h[:2] != ['round', 'client']:
            raise Damaged(f'{d}/round_contributions.csv: header {",".join(h)!r}')
        self.sel = {}
        for k, r in enumerate(rows, 2):
            try:
                self.sel.setdefault(int(r[0]), []).append(int(r[1]))
            except (ValueError, IndexError):
                raise Damaged(f'{d}/round_contributions.csv line {k}: round or client not an integer')
        self.final_acc = None
        h, rows = read_csv(os.path.join(d, 'metrics.csv'))
        if rows and 'accuracy' in h:
            self.final_acc = rows[-1][h.index('accuracy')]


def expand_runs(dirs):
    runs = []
    for d in dirs:
        if os.path.isfile(os.path.join(d, 'summary.csv')):
            h, rows = read_csv(os.path.join(d, 'summary.csv'))
            if 'dir' not in h:
                raise Damaged(f'{d}/summary.csv: no dir column')
            for r in rows:  # each method from the folder's own subfolder (docs/commands/report.md)
                runs.append(Run(os.path.join(d, os.path.basename(r[h.index('dir')].rstrip('/')))))
        elif os.path.isfile(os.path.join(d, 'config.json')):
            runs.append(Run(d))
        else:
            usage(f'{d}: neither a run (config.json) nor a folder of runs (summary.csv)')
    return runs


def of_federation(t, r):
    c = r.cfg
    k = t.n if t.part == 'full' else t.K
    return (r.dig.get('partition') == t.digest and int(c.get('clients', -1)) == t.n and
            int(c.get('rounds', -1)) == t.T and int(c.get('per_round', -1)) == k)


def rules(t, runs):
    """The trivial rules from the runs' selections and data sizes; None with the reason where the
    runs disagree on them."""
    sels = {json.dumps(r.sel, sort_keys=True) for r in runs}
    sizes = {tuple(r.samples) for r in runs}
    if len(sels) != 1 or len(sizes) != 1:
        return None, 'the runs of the federation differ in their selections or data sizes'
    r, n = runs[0], t.n
    if len(r.samples) != n:
        return None, f'{r.dir}/clients.csv has {len(r.samples)} clients, the truth {n}'
    cnt, sw = [0.0] * n, [[] for _ in range(n)]
    for rnd, cl in sorted(r.sel.items()):
        tot = math.fsum(r.samples[c] for c in cl)
        for c in cl:
            cnt[c] += 1
            sw[c].append(r.samples[c] / tot)
    return {'uniform (rule)': [1.0 / n] * n, 'rounds selected (rule)': cnt,
            'size weights over the rounds selected (rule)': [math.fsum(x) for x in sw],
            'data sizes (rule)': list(r.samples)}, None


# ---------------------------------------------------------------- Student t
# The report's 0.975 quantile of Student t with df degrees of freedom: the exact one
# (tools/tquant.py) in reports since 2026-12-06, which write truth_verdicts.csv; before, the
# three-decimal table (the exact value rounded, 4.303 for 2 degrees of freedom; 1.96 beyond 30).
EXACT = True


def t975(df):
    if EXACT:
        return t_quantile(0.975, df)
    return round(t_quantile(0.975, df), 3) if df <= 30 else 1.96


def mean_ci(xs):
    n = len(xs)
    m = math.fsum(xs) / n
    if n < 2:
        return m, None
    return m, t975(n - 1) * sd(xs) / math.sqrt(n)


def power_words(d, h, n):
    """The words beside an inconclusive verdict (docs/commands/report.md), and the number they hold."""
    p_sd, det, seeds = power(d, h, n)
    if p_sd == 0:
        return 'every seed gives the same difference', None
    if seeds not in ('>100', 'n/a'):
        return f'decides at about {seeds} seeds', None
    return f'the {n} seeds run detect only |d| >= ', det


def has_words(text, d, h, n):
    """Whether text holds the power words of (d, h, n), their number to the decimals written."""
    words, x = power_words(d, h, n)
    text = text.replace('\\|', '|').replace('&gt;', '>')  # as report.md escapes them
    if x is None:
        return words in text
    mm = re.search(re.escape(words) + r'([0-9]+(?:\.[0-9]+)?)', text)
    return bool(mm) and same(mm.group(1), x)


# ---------------------------------------------------------------- the report
def same_path(a, b):
    """A path as the report wrote it against one as given here."""
    if os.path.exists(a) and os.path.exists(b):
        return os.path.realpath(a) == os.path.realpath(b)
    tail = lambda p: os.path.normpath(p).split(os.sep)[-2:]
    return tail(a) == tail(b)


def md_tables(md):
    """report.md's truth section: per '### ' heading its lines."""
    sec, out, cur = False, [], None
    for ln in md.splitlines():
        if ln.startswith('## '):
            sec = ln.startswith('## Against the retrained ground truth')
            continue
        if not sec:
            continue
        if ln.startswith('### '):
            cur = [ln[4:], []]
            out.append(cur)
        elif cur is not None:
            cur[1].append(ln)
    return out


def cells(ln):
    return [c.strip() for c in re.split(r'(?<!\\)\|', ln.strip())[1:-1]]


def check_report(truths, vals, rdir, runs, tally):
    path = os.path.join(rdir, 'truth_scores.csv')
    cols = ['spearman_shapley', 'pearson_shapley', 'spearman_banzhaf', 'spearman_loo', 'kl_shapley_shares',
            'top_quarter', 'bottom_quarter', 'removal_high_mean', 'removal_low_mean', 'js_shapley_shares']
    h, rows = read_csv(path)
    head = ['truth', 'seed', 'method_or_rule', 'run'] + cols
    if h == head[:-1]:  # a report made before the JS column (f10993c, 2026-12-06): the rest as before
        cols = cols[:-1]
    elif h != head:
        raise Damaged(f'{path}: header {",".join(h)!r}, not {",".join(head)!r}')
    try:
        md = open(os.path.join(rdir, 'report.md')).read()
    except OSError as e:
        raise Damaged(f'{rdir}/report.md: {e.strerror}')
    sections = md_tables(md)
    used = set()
    spear = {}  # truth -> {method or rule: spearman}
    for t in truths:
        mine_rows = [k for k, r in enumerate(rows) if same_path(r[0], t.dir)]
        if t.name not in vals or vals[t.name] is None or 'shapley' not in vals[t.name] or vals[t.name]['shapley'] is None:
            if mine_rows:
                for k in mine_rows:
                    used.add(k)
                tally.skip(f'{path}: truth {t.name} ({len(mine_rows)} rows)',
                           'its values could not be recomputed (see above)' if t.coal != 'loo' else
                           'coalitions loo: no Shapley values, and the docs do not say what the report scores then')
            continue
        if not mine_rows:
            tally.skip(f'{path}: truth {t.name}', 'not in the report (not given to flce report?)')
            continue
        V = vals[t.name]
        if t.R > 1 and t.coal == 'all' and t.complete:
            # the heading's resolution of the truth: the Spearman of its seeds' own Shapley values, mean over pairs
            mine = t.seed_spearman()
            mm = re.search(r'### Truth ' + re.escape(t.dir.rstrip('/')) + r' \(.*?agree to a Spearman of (\S+?)[ )]', md)
            ok = bool(mm) and same(mm.group(1), mine)
            tally.item(f'{rdir}/report.md: truth {t.name}: its seeds\' Shapley values agree to a Spearman of {mine:.3f}', ok,
                       '' if ok else f'the heading says {mm.group(1) if mm else "nothing"}')
        fed = [r for r in runs if of_federation(t, r)]
        # the pairing: the runs of its federation are the runs the report scored against it
        rep_runs = [rows[k][3] for k in mine_rows if rows[k][3]]
        unscored = [r.dir for r in fed if not any(same_path(p, r.dir) for p in rep_runs)]
        other = [p for p in rep_runs if not any(same_path(p, r.dir) for r in fed)]
        wrong = [p for p in other if any(same_path(p, r.dir) for r in runs)]  # of the --runs, not of its federation
        ok = not unscored and not wrong
        tally.item(f'{path}: truth {t.name}: the runs of its federation ({len(fed)} of the --runs) are those scored', ok,
                   '' if ok else '; '.join(x for x in (unscored and f'not scored: {unscored}',
                                                       wrong and f'scored, not of its federation: {wrong}') if x))
        # the truth's own claims about the runs
        if fed:
            full = (1 << t.n) - 1
            init = {r.dig.get('initial_model') for r in fed}
            d0 = {t.rows[(0, s)][7] for s in range(t.seed, t.seed + t.R)}
            if t.R == 1:
                ok = init == d0
                tally.item(f'{t.name}: v(empty)\'s model digest is every run\'s initial_model', ok,
                           f'{sorted(d0)[0]}' if ok else f'utilities.csv {sorted(d0)}, runs {sorted(init)}')
            own = [r for r in fed if r.algo == t.algo]
            if t.part == 'k' and len(own) == 1:
                r, row = own[0], t.rows[(full, t.seed)]
                ok = row[3] == r.final_acc and row[7] == r.dig.get('final_model')
                tally.item(f'{t.name}: v(N) (seed {t.seed}) is the federation\'s own {t.algo} run {r.dir}', ok,
                           f'accuracy {row[3]}, final_model {row[7]}' if ok else
                           f'utilities.csv accuracy {row[3]} digest {row[7]}; run {r.final_acc} {r.dig.get("final_model")}')
            elif t.part == 'k':
                tally.skip(f'{t.name}: v(N) against the federation\'s own run',
                           f'{len(own)} runs of {t.algo} among the --runs of its federation')
        rl, why = rules(t, fed) if fed else (None, 'no run of its federation among the --runs')
        spear[t.name] = {}
        items = [(r.algo, r.dir, r.contrib) for r in fed]
        if rl is None:
            for k in mine_rows:
                if not rows[k][3]:
                    used.add(k)
                    tally.skip(f'{path} line {k + 2}: {t.name} {rows[k][2]}', why)
        else:
            items += [(name, '', x) for name, x in rl.items()]
        curves = {}
        for name, rdir_, x in items:
            if len(x) != t.n:
                tally.item(f'{path}: {t.name} {name}', False, f'{len(x)} contributions for {t.n} clients')
                continue
            ks = [k for k in mine_rows if (rows[k][3] and rdir_ and same_path(rows[k][3], rdir_)) or
                  (not rows[k][3] and not rdir_ and rows[k][2] == name)]
            if len(ks) != 1:
                tally.item(f'{path}: {t.name} {name} {rdir_}', False, f'{len(ks)} rows in the report, not 1')
                continue
            k = ks[0]
            used.add(k)
            s, hi, lo = scores(t, V, x)
            if rdir_:
                curves[name] = curves.get(name, []) + [(hi, lo)]
            spear[t.name][name] = s['spearman_shapley']
            r = rows[k]
            bad = [f'{c} {r[4 + j]} mine {fmt(s[c])}' for j, c in enumerate(cols) if not same(r[4 + j], s[c])]
            if r[2] != name:
                bad.insert(0, f'method {r[2]!r}, the run\'s config.json says {name!r}')
            if r[1] != str(t.seed):
                bad.insert(0, f'seed {r[1]}, the truth\'s {t.seed}')
            tally.item(f'{path} line {k + 2}: {t.name} {name}: {len(cols)} scores', not bad, '; '.join(bad) if bad else
                       f'Spearman {fmt(s["spearman_shapley"])}, KL {fmt(s["kl_shapley_shares"])}, removal '
                       f'{fmt(s["removal_high_mean"])} / {fmt(s["removal_low_mean"])}')
        # the removal curves' figure data
        if t.coal != 'all':
            continue
        sec = [s for s in sections if s[0].startswith('Truth ') and same_path(s[0][6:].split(' (')[0], t.dir)]
        link = [m for s in sec for ln in s[1] for m in re.findall(r'truth\d+_removal\.csv', ln)]
        if len(set(link)) != 1:
            tally.item(f'{rdir}/report.md: truth {t.name}\'s removal curves', False,
                       f'{len(set(link))} truthNN_removal.csv links in its section, not 1')
            continue
        cpath = os.path.join(rdir, link[0])
        ch, crows = read_csv(cpath)
        sh = V['shapley']
        curves['exact Shapley order'] = [(removal(t, sh, True), removal(t, sh, False))]
        for name, cl in curves.items():
            label = f'{cpath}: {name}'
            if len(cl) != 1 or cl[0][0] is None:
                tally.skip(label, f'{len(cl)} runs of {name} for this truth: the columns do not say which'
                           if len(cl) != 1 else 'no order')
                continue
            hi, lo = cl[0]
            bad = []
            for col, curve in ((f'{name} most valued first', hi), (f'{name} least valued first', lo)):
                if col not in ch:
                    bad.append(f'no column {col!r}')
                    continue
                j = ch.index(col)
                if len(crows) != t.n:
                    bad.append(f'{len(crows)} rows, not {t.n}')
                    break
                for kk, cr in enumerate(crows):
                    if cr[0] != str(kk) or not same(cr[j], curve[kk]):
                        bad.append(f'{col} k={kk}: {cr[j]} mine {curve[kk]:.6f}')
            tally.item(label + ' (removal curves, k = 0..n-1)', not bad, '; '.join(bad[:4]))
    for k, r in enumerate(rows):
        if k not in used:
            tally.skip(f'{path} line {k + 2}: {r[0]} {r[2]}', 'a truth not given here, or a row of no run among the --runs')
    # a report with truth_verdicts.csv (since 2026-12-06) uses the exact t quantiles, one before it
    # the three-decimal table
    global EXACT
    EXACT = os.path.isfile(os.path.join(rdir, 'truth_verdicts.csv'))
    verdicts = check_verdicts(truths, spear, sections, md, rdir, tally)
    if EXACT:
        check_truth_verdicts(verdicts, rdir, tally)


def verdict(m, h):
    if h is None:
        return None
    return 'above' if m - h > 0 else ('below' if m + h < 0 else 'contains')


WORDS = ('decides at about', 'detect only', 'every seed gives the same difference')


def check_verdicts(truths, spear, sections, md, rdir, tally):
    """report.md's verdicts over the truths of each configuration; returns what it recomputed,
    {(run flags, test, method or rule): (difference, half-width, n)}, for truth_verdicts.csv."""
    mdp = f'{rdir}/report.md'
    verdicts = {}
    groups = {}
    for t in truths:
        if t.name in spear:
            groups.setdefault(t.key(), []).append(t)
    flce_tracks, judged, fewer = 0, 0, False
    karm = []  # the ten-seed plan: per judged configuration of arm k, (its label, its own seeds' mean or None, FLCE tracks)
    for key, ts in groups.items():
        flags = ' '.join(ts[0].key_flags())
        sec = [s for s in sections if s[0].startswith(f'Over {len(ts)} truths of one configuration (') and
               s[0].split('(', 1)[1].replace('\\|', '|').startswith(flags + ' |')]
        label = f'{mdp}: over the {len(ts)} truths of ({flags})'
        if len(ts) < 2:
            tally.skip(label, 'one truth: no interval over truths')
            continue
        if len(sec) != 1:
            tally.item(label, False, f'{len(sec)} sections "Over {len(ts)} truths of one configuration ({flags} | ...", not 1')
            continue
        lines = sec[0][1]
        self_sp = check_informs(ts, lines, label, tally)
        table = {}
        for ln in lines:
            c = cells(ln)
            if len(c) == 4 and c[0] not in ('method or rule', '---'):
                table[c[0]] = c
        names = []
        for t in ts:
            names += [n for n in spear[t.name] if n not in names]
        stats = {}
        for name in names:
            xs = [spear[t.name].get(name) for t in ts]
            if any(x is None for x in xs):
                tally.skip(f'{label}: {name}', f'not scored against every truth of the configuration')
                continue
            stats[name] = None if any(math.isnan(x) for x in xs) else mean_ci(xs)
        rule_means = {n: s[0] for n, s in stats.items() if n.endswith('(rule)') and s is not None}
        best = max(rule_means, key=rule_means.get) if rule_means else None
        for name, st in stats.items():
            c = table.get(name)
            if c is None:
                tally.item(f'{label}: {name}', False, 'no row in the report')
                continue
            bad = []
            if st is None:
                if c[1] != 'n/a':
                    bad.append(f'mean {c[1]!r}, mine n/a')
            else:
                m, h = st
                mm = re.fullmatch(r'(\S+) ± (\S+)', c[1])
                if not mm or not same(mm.group(1), m) or not same(mm.group(2), h):
                    bad.append(f'mean ± h {c[1]!r}, mine {m:.3f} ± {h:.3f}')
                v = verdict(m, h)
                verdicts[(flags, 'tracks', name)] = (m, h, len(ts))
                want = 'yes' if v == 'above' else 'no'
                if c[2].split(' ')[0].strip('*') != want:
                    bad.append(f'tracks {c[2]!r}, mine {want} (interval {v} 0)')
                if EXACT and v == 'contains' and not has_words(c[2], m, h, len(ts)):
                    w, x = power_words(m, h, len(ts))
                    bad.append(f'tracks {c[2]!r}, mine beside it "{w}{"" if x is None else f"{x:.3f}"}"')
                if v != 'contains' and any(w in c[2] for w in WORDS):
                    bad.append(f'tracks {c[2]!r}: what deciding would take beside a decided verdict')
                if name.endswith('(rule)'):
                    want = '(the best rule)' if name == best else ''
                else:
                    want = 'n/a' if best is None else ('yes' if m > rule_means[best] else 'no')
                if c[3].strip('*') != want:
                    bad.append(f'adds {c[3]!r}, mine {want!r}')
            tally.item(f'{label}: {name}', not bad, '; '.join(bad) if bad else
                       ('n/a' if st is None else f'{st[0]:.3f} ± {st[1]:.3f}, tracks {c[2].split(" ")[0]}, adds {c[3] or "-"}'))
        for name in table:
            if name not in names:
                tally.skip(f'{label}: report row {name}', 'not recomputed (no such method or rule here)')
        # the effectiveness claim: FLCE minus FedAvg, paired by seed
        text = ' '.join(lines)
        mm = re.search(r'paired by seed: (\S+) \+- (\S+) over (\d+) seeds: \*\*([^*]+)\*\*', text)
        d = [spear[t.name]['flce'] - spear[t.name]['fedavg'] for t in ts
             if 'flce' in spear[t.name] and 'fedavg' in spear[t.name]]
        if len(d) < 2:
            tally.skip(f'{label}: the effectiveness claim', f'{len(d)} seeds with both FLCE and FedAvg')
        else:
            m, h = mean_ci(d)
            verdicts[(flags, 'flce minus fedavg', 'flce')] = (m, h, len(d))
            v = {'above': 'holds', 'below': 'fails', 'contains': 'not shown'}[verdict(m, h)]
            ok = bool(mm) and same(mm.group(1), m) and same(mm.group(2), h) and mm.group(3) == str(len(d)) \
                and mm.group(4) == v
            words = ''
            if EXACT and mm:  # what deciding would take, in the sentence after the verdict
                sentence = next((ln for ln in lines if mm.group(0) in ln), text)
                after = sentence[sentence.find('**' + mm.group(4) + '**'):]
                if v == 'not shown':
                    w, x = power_words(m, h, len(d))
                    words = f'; {w}{"" if x is None else f"{x:.3f}"}'
                    ok = ok and has_words(after, m, h, len(d))
                else:
                    ok = ok and not any(w in after for w in WORDS)
            tally.item(f'{label}: the effectiveness claim (FLCE minus FedAvg)', ok,
                       f'{m:.3f} +- {h:.3f} over {len(d)} seeds: {v}{words}' + ('' if ok else
                       f'; report: {mm.group(0) if mm else "no such sentence"}'))
        if ts[0].part == 'k' and stats.get('flce'):
            judged += 1
            flce_tracks += verdict(*stats['flce']) == 'above'
            fewer |= len(ts) < 3
            karm.append((flags, self_sp, verdict(*stats['flce']) == 'above'))
    if judged:
        mm = re.search(r'FLCE tracks it in (\d+) of the (\d+) configurations?', '\n'.join(
            ln for s in sections for ln in s[1]) + '\n' + md)
        left = 4 - judged
        ans = 'yes' if flce_tracks >= 3 else ('no' if flce_tracks + left < 3 else 'not yet decided')
        line = next((ln for ln in md.splitlines() if mm and mm.group(0) in ln), '')
        tail = line[line.index(mm.group(0)) + len(mm.group(0)):] if mm else ''
        got = 'not yet decided' if 'not yet decided' in tail else (
            'yes' if re.search(r':\s*\**yes\b', tail) else ('no' if re.search(r':\s*\**no\b', tail) else '?'))
        if fewer and 'fewer than 3 seeds' not in tail:
            got += ' (without saying that some are on fewer than 3 seeds)'
        ok = bool(mm) and mm.group(1) == str(flce_tracks) and mm.group(2) == str(judged) and got == ans
        tally.item(f'{mdp}: FLCE tracks the truth in {flce_tracks} of {judged} configuration(s) with K of n a round: '
                   f'{ans}' + (' (some on fewer than 3 seeds)' if fewer else ''), ok,
                   '' if ok else f'report: {line!r}')
        check_ten_seed_answer(karm, md, mdp, tally)
    return verdicts


INFORMS = 0.5  # PLAN.md, the ten-seed plan: a configuration informs the question at a mean of at least 0.5


def check_informs(ts, lines, label, tally):
    """The ten-seed plan's criterion in a configuration's section: over its truths with two truth
    seeds or more (and every coalition), the mean of each one's Spearman between its seeds' own
    Shapley values; the report's sentence "The truth's own seeds agree to a Spearman of X (mean over
    the N truths with two truth seeds): the configuration informs the question" (or "cannot inform
    the question"), or no such sentence where no truth of the configuration has two seeds. Returns
    the mean, or None where there is none."""
    own = [t for t in ts if t.seed_spearman() is not None]
    xs = [t.seed_spearman() for t in own if not math.isnan(t.seed_spearman())]  # nan: a seed's values all equal
    text = '\n'.join(lines)
    found = re.findall(r"The truth's own seeds agree to a Spearman of (\S+) \(mean over the (\d+) truths? with two "
                       r"truth seeds\): ([^\n]*)", text)
    name = f'{label}: its truths\' own seeds (the ten-seed plan\'s criterion)'
    if not xs:
        why = (f'{len(own)} truth(s) of two seeds, each with a seed of equal Shapley values' if own else
               'no truth of two truth seeds')
        tally.item(f'{name}: {why}, no sentence', not found,
                   '' if not found else f'the report says: {found[0][0]} over {found[0][1]} truths')
        return None
    m = math.fsum(xs) / len(xs)
    want = 'informs' if m >= INFORMS else 'cannot inform'
    mine = f'{m:.3f} over {len(xs)} truth(s) with two truth seeds: {want}' + (
        f' ({len(own) - len(xs)} left out: a seed\'s Shapley values all equal)' if len(own) > len(xs) else '')
    if len(found) != 1:
        tally.item(f'{name}: {mine}', False, f'{len(found)} such sentences in its section, not 1')
        return m
    num_, n_, tail = found[0]
    got = ('cannot inform' if re.match(r'\**the configuration cannot inform the question', tail) else
           'informs' if re.match(r'\**the configuration informs the question', tail) else '?')
    bad = []
    if not same(num_, m):
        bad.append(f'Spearman {num_}, mine {m:.6f}')
    if n_ != str(len(xs)):
        bad.append(f'over {n_} truths, mine {len(xs)}')
    if got != want:
        bad.append(f'"{tail[:60]}", mine {want} (mean {m:.6f} {">=" if m >= INFORMS else "<"} {INFORMS})')
    tally.item(f'{name}: {mine}', not bad, '; '.join(bad))
    return m


def check_ten_seed_answer(karm, md, mdp, tally):
    """The ten-seed plan's answer over the judged configurations of arm k: I of K inform the
    question, FLCE tracks the truth in J of those; yes where J >= 3/4 I, no where not, cannot be
    decided where I < 2. Where a configuration has no measure of its truth's agreement with itself
    the rule cannot be applied and the report prints no such answer."""
    K = len(karm)
    found = [ln for ln in md.splitlines() if "The ten-seed plan's answer" in ln]
    unmeasured = [f for f, sp, _ in karm if sp is None]
    if unmeasured:
        tally.item(f"{mdp}: no ten-seed plan's answer ({len(unmeasured)} of the {K} configurations with K of n a "
                   f"round have no truth of two truth seeds)", not found,
                   '' if not found else f'the report gives one: {found[0][:200]!r}')
        return
    inf = [tr for _, sp, tr in karm if sp >= INFORMS]
    I, J = len(inf), sum(inf)
    ans = 'cannot be decided' if I < 2 else ('yes' if 4 * J >= 3 * I else 'no')
    label = (f"{mdp}: the ten-seed plan's answer: {I} of the {K} configurations with K of n a round inform the "
             f"question, FLCE tracks the truth in {J} of them: {ans}")
    if len(found) != 1:
        tally.item(label, False, f'{len(found)} paragraphs "The ten-seed plan\'s answer", not 1')
        return
    mm = re.search(r"\): (\d+) of the (\d+) configurations? informs? it[^,]*, FLCE tracks the truth in (\d+) of them: "
                   r"\*\*(yes|no|cannot be decided)\*\*", found[0])
    ok = bool(mm) and (mm.group(1), mm.group(2), mm.group(3), mm.group(4)) == (str(I), str(K), str(J), ans)
    tally.item(label, ok, '' if ok else f'report: {found[0][found[0].find("):"):][:200]!r}')


TVHEADER = 'configuration,test,method_or_rule,difference,half_width,n,verdict,sd,detectable_difference,seeds_to_decide'.split(',')


def same_g(text, mine):
    """A number truth_verdicts.csv writes with %.10g against mine: to its decimals, or 1e-9 relative
    where it is written with an exponent."""
    t = text.strip()
    if 'e' in t.lower() and t.lower() not in ('inf', '-inf', 'nan'):
        try:
            return abs(float(t) - mine) <= 1e-9 * max(abs(mine), 1e-300)
        except ValueError:
            return False
    return same(t, mine)


def check_truth_verdicts(verdicts, rdir, tally):
    """truth_verdicts.csv: each row's difference, half-width, n and verdict against mine, and what
    deciding would take (sd, detectable_difference, seeds_to_decide) as tools/tquant.py gives it."""
    path = os.path.join(rdir, 'truth_verdicts.csv')
    _, rows = read_csv(path, TVHEADER)
    seen = set()
    for k, r in enumerate(rows, 2):
        conf, test, name = r[0], r[1], r[2]
        keys = [key for key in verdicts if key[1] == test and key[2] == name and conf.startswith(key[0] + ' |')]
        label = f'{path} line {k}: {conf.split(" |")[0][-40:]} | {test} | {name}'
        if len(keys) != 1:
            tally.skip(label, 'no such configuration, test and method or rule recomputed here' if not keys else
                       f'{len(keys)} configurations of these flags')
            continue
        seen.add(keys[0])
        m, h, n = verdicts[keys[0]]
        v = {'above': 'holds', 'below': 'fails', 'contains': 'inconclusive'}[verdict(m, h)]
        p_sd, det, seeds = power(m, h, n)
        bad = [f'{col} {r[j]} mine {mine}' for j, col, mine in ((3, 'difference', m), (4, 'half_width', h),
                                                               (7, 'sd', p_sd), (8, 'detectable_difference', det))
               if not same_g(r[j], mine)]
        if r[5] != str(n):
            bad.append(f'n {r[5]} mine {n}')
        if r[6] != v:
            bad.append(f'verdict {r[6]} mine {v}')
        if r[9] != seeds:
            bad.append(f'seeds_to_decide {r[9]} mine {seeds}')
        tally.item(label, not bad, '; '.join(bad) if bad else
                   f'{m:+.4f} +- {h:.4f} (n={n}) {v}; sd {p_sd:.4f}, detectable {det:.4f}, seeds {seeds}')
    for key in verdicts:
        if key not in seen:
            tally.item(f'{path}: {key[0][-40:]} | {key[1]} | {key[2]}', False, 'recomputed here, no row in the report')


# ---------------------------------------------------------------- main
def main(argv):
    truths_d, report, runs_d, mode = [], None, [], 'truth'
    for a in argv:
        if a in ('-h', '--help'):
            print(__doc__)
            return 0
        if a == '--report':
            mode = 'report'
        elif a == '--runs':
            mode = 'runs'
        elif a.startswith('-'):
            usage(f'unknown option {a}')
        elif mode == 'truth':
            truths_d.append(a)
        elif mode == 'report':
            if report is not None:
                usage('--report takes one folder')
            report, mode = a, 'truth'
        else:
            runs_d.append(a)
    if not truths_d:
        usage('no TRUTH_DIR')
    if (report is None) != (not runs_d) or (mode == 'report' and report is None):
        usage('--report REPORT_DIR and --runs RUNS_DIR... go together')
    for d in truths_d:
        if not os.path.isfile(os.path.join(d, 'truth.json')):
            usage(f'{d}: not a truth folder (no truth.json)')
    if report is not None and not os.path.isfile(os.path.join(report, 'truth_scores.csv')):
        usage(f'{report}: no truth_scores.csv (not a report with truth folders)')
    tally = Tally()
    try:
        truths = [Truth(d) for d in truths_d]
        vals = {t.name: check_values(t, tally) for t in truths}
        if report is not None:
            runs = expand_runs(runs_d)
            check_report(truths, vals, report, runs, tally)
    except Damaged as e:
        print(f'{PROG}: {e}', file=sys.stderr)
        print(f'{tally.agree} agree, {tally.differ} differ, {tally.skipped} not recomputed (stopped: a damaged file)')
        return 1
    print(f'{tally.agree} agree, {tally.differ} differ, {tally.skipped} not recomputed')
    return 1 if tally.differ else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
