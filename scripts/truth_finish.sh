#!/bin/sh
# truth_finish.sh [RUNS_DIR]: when the ground-truth study (issue 63; docs/decisions.md, "The
# ground-truth study") is complete, its report into docs/results/fmnist-truth/report/ (Markdown,
# HTML, figures, the CSVs behind them; the truths and runs travel in runs.tar.xz,
# scripts/truth_pack.sh), with the command, the build and its wall time in COMMAND.txt. Every
# truth the plan names must be finished (values.csv) with its federation's method runs: quantity
# skew, label skew, noisy labels and a duplicated client, arms k and full, seeds 401-403. Checks
# that the report has its section "Against the retrained ground truth" and the plan's answer.
#   FLCE_TRUTH_PARTS="qskew": only these configurations (qskew label noisy dup);
#   FLCE_TRUTH_ARMS="k": only these arms (k full; FLCE_PRESET_TRUTH_FULL=0 left arm full out);
#   FLCE_TRUTH_SEEDS="401 ... 410": these seeds (404-410: the ten-seed extension, issue 80, arm k;
#   PLAN.md's second part: the report then must give the ten-seed plan's answer too);
#   any of them makes another report than the original study's and then needs FLCE_TRUTH_DEST
#   (another destination), so that it never takes that one's place. FLCE_BIN=PATH: another build
#   of flce (default build/flce).
set -eu
[ $# -le 1 ] || { echo "usage: scripts/truth_finish.sh [RUNS_DIR] (got $# arguments)" >&2; exit 2; }
cd "$(dirname "$0")/.."
runs_dir=${1:-runs/truth}
flce=${FLCE_BIN:-./build/flce}
parts=${FLCE_TRUTH_PARTS:-qskew label noisy dup}
arms=${FLCE_TRUTH_ARMS:-k full}
seeds=${FLCE_TRUTH_SEEDS:-401 402 403}
if { [ -n "${FLCE_TRUTH_PARTS:-}" ] || [ -n "${FLCE_TRUTH_ARMS:-}" ] || [ -n "${FLCE_TRUTH_SEEDS:-}" ]; } && [ -z "${FLCE_TRUTH_DEST:-}" ]; then
  echo "truth_finish.sh: FLCE_TRUTH_PARTS, FLCE_TRUTH_ARMS or FLCE_TRUTH_SEEDS makes another report: give FLCE_TRUTH_DEST too" >&2; exit 2
fi
for s in $seeds; do
  case "$s" in 40[1-9]|410) ;; *) echo "truth_finish.sh: FLCE_TRUTH_SEEDS '$s': a seed from 401 to 410" >&2; exit 2;; esac
done
dest=${FLCE_TRUTH_DEST:-docs/results/fmnist-truth/report}
[ -x "$flce" ] || { echo "truth_finish.sh: $flce: not built (scripts/setup.sh)" >&2; exit 2; }
[ -d "$runs_dir" ] || { echo "truth_finish.sh: $runs_dir: no such folder (scripts/truth_pack.sh unpack)" >&2; exit 2; }
for p in $parts; do
  case "$p" in qskew|label|noisy|dup) ;; *) echo "truth_finish.sh: FLCE_TRUTH_PARTS '$p': not one of qskew label noisy dup" >&2; exit 2;; esac
done
for a in $arms; do
  case "$a" in k|full) ;; *) echo "truth_finish.sh: FLCE_TRUTH_ARMS '$a': not one of k full" >&2; exit 2;; esac
done
missing="" dirs=""
for a in $arms; do
  for p in $parts; do
    for s in $seeds; do
      tr=$runs_dir/fmnist-truth-$p-$a-s$s rn=$runs_dir/fmnist-truth-$p-$a-runs-s$s
      dirs="$dirs $rn $tr"
      [ -f "$tr/values.csv" ] || missing="$missing ${tr##*/}"
      [ -f "$rn/summary.csv" ] || missing="$missing ${rn##*/}"
    done
  done
done
[ -z "$missing" ] || { echo "truth_finish.sh: the study ($parts; arms $arms) is not complete; missing or unfinished:$missing" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s)
# shellcheck disable=SC2086
"$flce" report $dirs --out "$tmp/report" --quiet
t1=$(date +%s)
grep -q "^## Against the retrained ground truth" "$tmp/report/report.md" ||
  { echo "truth_finish.sh: the report has no section Against the retrained ground truth" >&2; exit 1; }
case " $arms " in *" k "*)
  grep -q "Is FLCE one of the methods that track what clients are worth" "$tmp/report/report.md" ||
    { echo "truth_finish.sh: the report does not give the plan's answer" >&2; exit 1; } ;; esac
case " $seeds " in *" 404 "*)
  grep -q "The ten-seed plan's answer" "$tmp/report/report.md" ||
    { echo "truth_finish.sh: the report does not give the ten-seed plan's answer" >&2; exit 1; } ;; esac
rm -rf "$dest.tmp" && mkdir -p "$dest.tmp"
find "$tmp/report" -maxdepth 1 -type f \( -name '*.md' -o -name '*.html' -o -name '*.png' -o -name '*.svg' -o -name '*.csv' -o -name '*.gp' \) \
  -exec cp {} "$dest.tmp/" \;
{
  echo "Made by scripts/truth_finish.sh on $(date -u '+%Y-%m-%d %H:%M') UTC ($(uname -m), $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)) with $flce of commit $(git describe --always --dirty 2> /dev/null || echo unknown):"
  echo "  $flce report <the $(echo "$dirs" | wc -w) folders fmnist-truth-{$(echo $parts | tr ' ' ',')}-{$(echo $arms | tr ' ' ',')}{,-runs}-s{$(echo $seeds | tr ' ' ',')} of $runs_dir> --out report"
  echo "(the ground-truth study: 6 clients, every coalition retrained, seeds $(echo $seeds | tr ' ' ',')). Wall time of the report: $((t1 - t0)) s."
  echo "The truths and runs: runs.tar.xz beside this folder (scripts/truth_pack.sh unpack runs/truth)."
} > "$dest.tmp/COMMAND.txt"
rm -rf "$dest" && mv "$dest.tmp" "$dest"
echo "truth report: $dest/report.html ($((t1 - t0)) s)"
