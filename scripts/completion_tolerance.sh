#!/bin/sh
# completion_tolerance.sh OUT RUN_DIR...: what stopping the completion's fits earlier would change
# (issue 29), from recorded FLCE traces, no retraining. Every FLCE trace under the RUN_DIRs is
# evaluated with `flce eval --heldout` at the default tolerance (1e-10, completion version 1)
# and at looser ones: with the default cross-validated choice (auto) at 1e-6, 1e-5, 1e-4 (every
# fit, the folds' too), and with the paper's one fit a class (--rank rule --mu 0.01) at 1e-5,
# 1e-4, 1e-3. Per tolerance: how many classes auto chooses another (rank, mu) for, how far the
# KL of the contributions to the data shares moves (max and mean over traces), KL(new || old)
# of the contributions themselves, the held-out error's relative change, and the seconds
# (completion_eval.json). Writes OUT/tolerance.md and the logs in OUT/logs. FLCE_BIN: the flce.
set -eu
[ $# -ge 2 ] || { echo "usage: scripts/completion_tolerance.sh OUT RUN_DIR..." >&2; exit 2; }
out=$1; shift
flce=${FLCE_BIN:-$(dirname "$0")/../build/flce}
[ -x "$flce" ] || { echo "completion_tolerance.sh: build first (scripts/setup.sh)" >&2; exit 2; }
for d in "$@"; do [ -d "$d" ] || { echo "completion_tolerance.sh: $d: no such folder" >&2; exit 2; }; done # (find said it, status 1, after OUT was made)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
traces=$(find -L "$@" -name completion.json -path '*/trace/*' | sort)
[ -n "$traces" ] || { echo "completion_tolerance.sh: no FLCE trace under $*" >&2; exit 1; }
mkdir -p "$out/logs"
n=0
for cj in $traces; do
  tr=$(dirname "$cj"); run=$(dirname "$tr")
  [ -f "$run/contributions.csv" ] || continue
  n=$((n + 1)); name=$(printf 'trace%03d' $n); echo "$run" > "$out/logs/$name.run"
  for v in auto:1e-10 auto:1e-6 auto:1e-5 auto:1e-4 fixed:1e-10 fixed:1e-5 fixed:1e-4 fixed:1e-3; do
    mode=${v%%:*}; tol=${v#*:}
    set -- --tol "$tol" --heldout
    [ "$mode" = fixed ] && set -- "$@" --rank rule --mu 0.01
    rm -rf "$tmp/e"
    "$flce" eval "$tr" --out "$tmp/e" "$@" > "$out/logs/$name.$mode.$tol.log" 2>&1 ||
      { echo "completion_tolerance.sh: $run: $(tail -1 "$out/logs/$name.$mode.$tol.log")" >&2; exit 1; }
    sed -n 's/.*"seconds":[[:space:]]*\([0-9.eE+-]*\).*/seconds \1/p' "$tmp/e/completion_eval.json" | head -1 >> "$out/logs/$name.$mode.$tol.log"
    cp "$tmp/e/contributions.csv" "$out/logs/$name.$mode.$tol.csv"
  done
done
python3 - "$out" <<'PY'
import glob, math, os, re, sys
out = sys.argv[1]; L = out + '/logs/'
names = sorted(os.path.basename(f)[:-4] for f in glob.glob(L + '*.run'))
def read(n, mode, tol):
    s = open(f'{L}{n}.{mode}.{tol}.log').read()
    m = re.search(r'chose, per class: (.*)', s)
    kl = float(re.search(r'KL\(contributions \|\| data shares\) = ([0-9.eE+-]+)', s).group(1))
    ho = re.search(r'; mean ([0-9.eE+-]+)', s)
    sec = re.search(r'seconds ([0-9.eE+-]+)', s)
    c = [float(l.split(',')[1]) for l in open(f'{L}{n}.{mode}.{tol}.csv').read().split('\n')[1:] if l]
    return (m.group(1).split() if m else []), kl, (float(ho.group(1)) if ho else None), (float(sec.group(1)) if sec else 0.0), c
def kl(p, q):
    p = [max(x, 0) + 1e-12 for x in p]; q = [max(x, 0) + 1e-12 for x in q]; sp, sq = sum(p), sum(q)
    return sum(x / sp * math.log((x / sp) / (y / sq)) for x, y in zip(p, q))
rows = []
for mode, tols in (('auto', ('1e-6', '1e-5', '1e-4')), ('fixed', ('1e-5', '1e-4', '1e-3'))):
    base = {n: read(n, mode, '1e-10') for n in names}
    for tol in tols:
        ch = cl = 0; dk = []; kd = []; dh = []; s1 = s0 = 0.0
        for n in names:
            a, b = base[n], read(n, mode, tol)
            cl += len(a[0]); ch += sum(x != y for x, y in zip(a[0], b[0]))
            dk.append(abs(a[1] - b[1])); kd.append(kl(b[4], a[4])); s0 += a[3]; s1 += b[3]
            if a[2] and b[2]: dh.append(b[2] / a[2] - 1)
        rows.append((mode, tol, f'{ch} of {cl} ({100 * ch / cl:.1f}%)' if cl else '-', max(dk), sum(dk) / len(dk), max(kd),
                     (max(dh), sum(dh) / len(dh)) if dh else None, s1, s0))
with open(out + '/tolerance.md', 'w') as f:
    f.write(f'# Stopping the completion earlier: what moves ({len(names)} FLCE traces)\n\n'
            'Against the default tolerance 1e-10 (completion version 1). auto: the cross-validated choice, every fit at the '
            'tolerance; fixed: the paper\'s one fit a class (`--rank rule --mu 0.01`). |dKL|: the change of the KL of the '
            'contributions to the data shares; KL(new||old): of the contributions themselves; held-out: relative change of '
            'the mean 5-fold held-out error of the setting used; seconds: all traces, the completion alone.\n\n'
            '| completion | tolerance | classes with another choice | max abs dKL | mean abs dKL | max KL(new or old) | held-out change, max / mean | seconds (1e-10: same traces) |\n'
            '|---|---|---|---|---|---|---|---|\n')
    for m, t, c, mx, mn, kd, dh, s1, s0 in rows:
        f.write(f'| {m} | {t} | {c} | {mx:.4f} | {mn:.5f} | {kd:.2e} | ' + (f'{dh[0]:+.3f} / {dh[1]:+.4f}' if dh else '-') +
                f' | {s1:.1f} ({s0:.1f}) |\n')
print(open(out + '/tolerance.md').read())
PY
