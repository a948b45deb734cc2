#!/bin/sh
# horizon_finish.sh [RUNS_DIR]: when the horizon (issue 30 item 5; docs/decisions.md, "The
# readings experiment and the horizon") is complete, its report into
# docs/results/fmnist-readings/horizon-report/ (Markdown, HTML, figures, gnuplot scripts and the
# CSVs behind them; the run folders travel in runs.tar.xz, scripts/study_pack.sh), with the
# command, the build and its wall time in COMMAND.txt. Its 12 folders (IID and Dirichlet 0.5,
# seeds 201-203; FLCE, FedAvg and FedFV in one folder, FLCE with all samples in the other) must
# be finished; every FLCE run is first evaluated at rounds 30, 100 and 200 under every reading
# (scripts/readings_eval.sh: what is there already is kept). Checks the claims table's verdicts
# against their numbers (scripts/check_claims.sh) and that the report has its section "The
# horizon". FLCE_BIN=PATH: another build of flce (default build/flce); FLCE_HORIZON_DEST: another
# destination (a trial on small runs, with FLCE_READINGS_ROUNDS and FLCE_REPORT_HORIZON).
set -eu
[ $# -le 1 ] || { echo "usage: scripts/horizon_finish.sh [RUNS_DIR] (got $# arguments)" >&2; exit 2; }
cd "$(dirname "$0")/.."
runs_dir=${1:-runs/readings}
flce=${FLCE_BIN:-./build/flce}
dest=${FLCE_HORIZON_DEST:-docs/results/fmnist-readings/horizon-report}
[ -x "$flce" ] || { echo "horizon_finish.sh: $flce: not built (scripts/setup.sh)" >&2; exit 2; }
[ -d "$runs_dir" ] || { echo "horizon_finish.sh: $runs_dir: no such folder (scripts/study_pack.sh unpack)" >&2; exit 2; }
missing="" runs=""
for part in iid noniid; do
  for kind in "" -flceall; do
    for s in 201 202 203; do
      d=$runs_dir/fmnist-horizon-$part$kind-s$s
      runs="$runs $d"
      [ -f "$d/summary.csv" ] || [ -f "$d/digests.txt" ] || missing="$missing ${d##*/}"
    done
  done
done
[ -z "$missing" ] || { echo "horizon_finish.sh: the horizon is not complete; missing or unfinished:$missing" >&2; exit 1; }
# shellcheck disable=SC2086
FLCE_BIN=$flce sh scripts/readings_eval.sh $runs
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s)
# shellcheck disable=SC2086
"$flce" report $runs --out "$tmp/report"
t1=$(date +%s)
grep -q "^## The horizon" "$tmp/report/report.md" || { echo "horizon_finish.sh: the report has no section The horizon" >&2; exit 1; }
sh scripts/check_claims.sh "$tmp/report/claims.csv" || { echo "horizon_finish.sh: the claims table breaks its rule" >&2; exit 1; }
rm -rf "$dest.tmp" && mkdir -p "$dest.tmp"
find "$tmp/report" -maxdepth 1 -type f \( -name '*.md' -o -name '*.html' -o -name '*.png' -o -name '*.svg' -o -name '*.csv' -o -name '*.gp' \) \
  -exec cp {} "$dest.tmp/" \;
{
  echo "Made by scripts/horizon_finish.sh on $(date -u '+%Y-%m-%d %H:%M') UTC ($(uname -m), $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)) with $flce of commit $(git describe --always --dirty 2> /dev/null || echo unknown):"
  echo "  $flce report $runs_dir/fmnist-horizon-{iid,noniid}{,-flceall}-s20{1,2,3} --out horizon-report"
  echo "(the 12 folders of the horizon: 200 rounds, IID and Dirichlet 0.5, seeds 201-203; FLCE, FedAvg and FedFV in one"
  echo "folder, FLCE trained with the equation's prototypes in the other; every FLCE run evaluated at rounds 30, 100 and"
  echo "200 under every reading first with scripts/readings_eval.sh). Wall time of the report: $((t1 - t0)) s."
  echo "scripts/check_claims.sh horizon-report/claims.csv: every verdict follows by the rule."
  echo "The runs: runs.tar.xz beside this folder (scripts/study_pack.sh unpack runs/readings runs.tar.xz)."
} > "$dest.tmp/COMMAND.txt"
rm -rf "$dest" && mv "$dest.tmp" "$dest"
echo "horizon report: $dest/report.html ($((t1 - t0)) s)"
