#!/bin/sh
# cli_full_disk.sh: outputs whole or not at all (issue 35). On a full disk (a small tmpfs in a
# private mount namespace: needs root, as CI has) `flce eval` once left a partial set of files
# and `flce report` printed its success line, left empty files and blamed gnuplot. Checked:
# - flce eval at every fill level of the disk: either all four files and the "wrote" line, or
#   status 1, one line naming a file and "No space left on device", nothing printed on stdout,
#   none of the four files and no folder it made;
# - flce report on a full disk: status 1, one line naming a file and the error, no "report:"
#   line, no word of gnuplot, nothing of the report left (a file of the user's in --out kept);
# - flce report without gnuplot on PATH: the report written, one line saying gnuplot was not
#   found, status 1.
set -u
flce=$1
case "${2:-}" in
inner) ;;
*) # re-run inside a private mount namespace, where the tmpfs vanishes with the test
  command -v unshare > /dev/null && [ "$(id -u)" = 0 ] || { echo "SKIPPED: needs root and unshare (a tmpfs is mounted)"; exit 77; }
  exec unshare --mount --propagation private sh "$0" "$flce" inner ;;
esac
PROG=$flce
. "$(dirname "$0")/lib.sh"
t=$(mktemp -d /tmp/flce-full-XXXXXX); trap 'umount "$t/m" 2>/dev/null; rm -rf "$t"' EXIT
mkdir "$t/m"
mount -t tmpfs -o size=256k tmpfs "$t/m" 2> /dev/null || { echo "SKIPPED: cannot mount a tmpfs"; exit 77; }
"$flce" run --algo flce --clients 6 --per-round 3 --rounds 2 --train-subset 600 --test-subset 100 --val-size 40 --batch 32 \
  --seed 3 --backend cpu --quiet --out "$t/run" > /dev/null 2>&1 || fail "the tiny run"
tr="$t/run/trace"
# eval at every fill level (the folder's files take about 10 KB)
k=236 seen_fail=0 seen_ok=0
while [ $k -le 256 ]; do
  rm -rf "$t/m"/*
  dd if=/dev/zero of="$t/m/fill" bs=1k count=$k 2> /dev/null
  "$flce" eval "$tr" --out "$t/m/ev" > "$t/o" 2> "$t/e"; rc=$?
  if [ $rc = 0 ]; then
    for f in Q.npy X_completed.npy contributions.csv completion_eval.json; do [ -s "$t/m/ev/$f" ] || fail "eval, fill $k: status 0 without $f"; done
    grep -q '^wrote ' "$t/o" || fail "eval, fill $k: no 'wrote' line"
    seen_ok=1
  else
    [ $rc = 1 ] || fail "eval, fill $k: status $rc"
    [ "$(wc -l < "$t/e")" = 1 ] && grep -q "^flce eval: $t/m/ev/[A-Za-z_.]*: write failed: No space left on device" "$t/e" ||
      fail "eval, fill $k: $(cat "$t/e")"
    [ -s "$t/o" ] && fail "eval, fill $k: printed results although it failed: $(head -2 "$t/o")"
    [ -e "$t/m/ev" ] && fail "eval, fill $k: left $(ls "$t/m/ev")"
    seen_fail=1
  fi
  k=$((k + 2))
done
[ $seen_fail = 1 ] && [ $seen_ok = 1 ] || fail "eval: the fill levels did not cover both ends (ok $seen_ok, fail $seen_fail)"
# report on a full disk
rm -rf "$t/m"/*
dd if=/dev/zero of="$t/m/fill" bs=4k 2> /dev/null
"$flce" report "$t/run" --out "$t/m/rep" > "$t/o" 2> "$t/e"; rc=$?
[ $rc = 1 ] || fail "report on a full disk: status $rc"
[ "$(wc -l < "$t/e")" = 1 ] && grep -q "^flce report: $t/m/rep/[A-Za-z0-9_.]*: write failed: No space left on device" "$t/e" ||
  fail "report on a full disk: $(cat "$t/e")"
grep -qi gnuplot "$t/e" && fail "report on a full disk blames gnuplot"
grep -q '^report:' "$t/o" && fail "report on a full disk printed its success line"
[ -e "$t/m/rep" ] && fail "report on a full disk left $(ls "$t/m/rep" | head -3)"
# ... into a folder of the user's: their file stays, nothing of the report does
rm -f "$t/m/fill"; mkdir "$t/m/mine"; echo keep > "$t/m/mine/notes.txt"
dd if=/dev/zero of="$t/m/fill" bs=4k 2> /dev/null
"$flce" report "$t/run" --out "$t/m/mine" > /dev/null 2>&1 && fail "report into a full folder: status 0"
[ "$(ls "$t/m/mine")" = notes.txt ] && [ "$(cat "$t/m/mine/notes.txt")" = keep ] || fail "report into a full folder: left $(ls "$t/m/mine")"
# without gnuplot: told as such, the report itself written
mkdir "$t/nobin"
PATH="$t/nobin" "$flce" report "$t/run" --out "$t/rep" > "$t/o" 2> "$t/e"; rc=$?
[ $rc = 1 ] || fail "report without gnuplot: status $rc"
[ "$(wc -l < "$t/e")" = 1 ] && grep -q '^flce report: gnuplot not found: no figures (install gnuplot-nox)' "$t/e" || fail "report without gnuplot: $(cat "$t/e")"
[ -s "$t/rep/report.html" ] || fail "report without gnuplot: no report.html"
echo "cli_full_disk: all checks passed"
