#!/bin/sh
# cli_report_files.sh: a report is written whole or not at all, and an earlier one stays as it
# was when the new one fails. A report over runs that make every section (FLCE, FedAvg and FedSV
# on Dirichlet 0.5, FedAvg on Dirichlet 1: a sweep, the distance to Shapley, class
# contributions, seeds and claims) lists the files it writes; then, one at a time, each of them
# is a folder in a copy of that report's folder. The report must exit 1 with one line naming
# that file, and leave every other file of the earlier report byte for byte as it was, with no
# file of its own. (Four sections once wrote to a file they could not open: a segmentation
# fault, status 139; a failed report once removed the earlier report's files it had rewritten
# and left the others.) Then a report over fewer runs into the earlier report's folder leaves
# none of the earlier report's files it does not make. Release build only: about 30 reports of a
# second each.
set -u
flce=$1
PROG=$flce
. "$(dirname "$0")/lib.sh"
t=$(mktemp -d /tmp/flce-report-files-XXXXXX); trap 'rm -rf "$t"' EXIT
common="--clients 4 --per-round 2 --rounds 2 --train-subset 300 --test-subset 60 --val-size 20 --batch 16 --seed 3 --quiet"
# shellcheck disable=SC2086
"$flce" run --algo flce,fedavg,fedsv --dirichlet 0.5 $common --out "$t/d05" > /dev/null 2>&1 || fail "flce run (Dirichlet 0.5)"
# shellcheck disable=SC2086
"$flce" run --algo fedavg --dirichlet 1 $common --out "$t/d1" > /dev/null 2>&1 || fail "flce run (Dirichlet 1)"
"$flce" report "$t/d05" "$t/d1" --out "$t/ref" > "$t/log" 2>&1 || fail "the reference report: $(cat "$t/log")"
# one name of each kind: every CSV and page (each has its own writer), one figure's script and
# images (gnuplot_sized writes them all); of numbered files (run00_metrics.csv ...) the first
names=$(cd "$t/ref" && { ls | grep -E '\.(csv|md|html)$'; echo accuracy.gp; echo accuracy.png; echo accuracy.svg; } |
  awk '{ k = $0; gsub(/[0-9][0-9]/, "NN", k); if (!(k in seen)) { seen[k] = 1; print } }')
n=0
for want in shapley_distance.csv class_contributions_00.csv class_global_00.csv heterogeneity.csv report.md; do
  printf '%s\n' "$names" | grep -qx "$want" || fail "the reference report lacks $want: the runs no longer make every section"
done
for name in $names; do
  rm -rf "$t/out" && cp -r "$t/ref" "$t/out" && rm "$t/out/$name" && mkdir "$t/out/$name" || fail "could not plant $name"
  (cd "$t/out" && find . -type f | sort | xargs md5sum) > "$t/before"
  if [ "$name" = report.md ]; then # a folder without a report.md is not an earlier report's
    expect 2 "holds other files and no report of this harness" report "$t/d05" "$t/d1" --out "$t/out"
  else
    expect 1 "$t/out/$name: cannot replace: a folder, not a file" report "$t/d05" "$t/d1" --out "$t/out"
  fi
  (cd "$t/out" && find . -type f | sort | xargs md5sum) > "$t/after"
  cmp -s "$t/before" "$t/after" || fail "a report that could not write $name changed the earlier report: $(diff "$t/before" "$t/after" | head -3)"
  [ -d "$t/out/$name" ] || fail "the folder $name in --out was removed"
  n=$((n + 1))
done
echo "ok: each of the $n files a report writes blocked in turn: one line, status 1, the earlier report unchanged"
# a report over one run into the folder of the report over four: the earlier report's files it
# does not make (the sweep, the distance to Shapley, the other runs' data) are gone, and the
# folder holds exactly the files the new report lists in its manifest
rm -rf "$t/out" && cp -r "$t/ref" "$t/out" && echo "my notes" > "$t/out/notes.txt"
"$flce" report "$t/d1" --out "$t/out" > "$t/log" 2>&1 || fail "a report over an earlier report's folder: $(cat "$t/log")"
"$flce" report "$t/d1" --out "$t/one" > "$t/log" 2>&1 || fail "a report over one run into a new folder: $(cat "$t/log")"
got=$(cd "$t/out" && ls -A | sort | tr '\n' ' ')
want=$( (cd "$t/one" && ls -A; echo notes.txt) | sort | tr '\n' ' ')
[ "$got" = "$want" ] || fail "the earlier report's files stayed: got $got, want $want"
[ "$(cat "$t/out/notes.txt")" = "my notes" ] || fail "a file not of the report was changed"
for f in report.md contributions.csv; do cmp -s "$t/out/$f" "$t/one/$f" || fail "$f differs from the same report into a new folder"; done
echo "ok: a report replaces an earlier one whole, and leaves files not of a report alone"
# a report killed while writing leaves its staging folder (.flce-report-PID) in --out: the next
# report takes such a folder for its own (not "other files") and removes it once its process is
# gone (a process that surely exited: a subshell's)
dead=$(sh -c 'echo $$')
for d in "$t/killed-new" "$t/out"; do
  mkdir -p "$d/.flce-report-$dead" && echo half > "$d/.flce-report-$dead/report.md"
  "$flce" report "$t/d1" --out "$d" > "$t/log" 2>&1 || fail "a report into $d beside a killed report's staging folder: $(cat "$t/log")"
  [ ! -e "$d/.flce-report-$dead" ] || fail "a killed report's staging folder stayed in $d"
  [ -z "$(ls -A "$d" | grep '^\.flce-report-[0-9]')" ] || fail "a staging folder stayed in $d: $(ls -A "$d")"
done
echo "ok: a killed report's staging folder is cleared by the next"
