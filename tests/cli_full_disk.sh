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
inner) mode=tmpfs ;;
fsize) mode=fsize ;;
*) # a tmpfs in a private mount namespace (root, as in CI; it vanishes with the test), else the
  # same checks with a file-size limit (ulimit -f: writes past it fail with "File too large")
  if command -v unshare > /dev/null && [ "$(id -u)" = 0 ] && unshare --mount --propagation private true 2> /dev/null; then
    exec unshare --mount --propagation private sh "$0" "$flce" inner
  fi
  exec sh "$0" "$flce" fsize ;;
esac
PROG=$flce
. "$(dirname "$0")/lib.sh"
t=$(mktemp -d /tmp/flce-full-XXXXXX); trap 'umount "$t/m" "$t/i" 2>/dev/null; rm -rf "$t"' EXIT
mkdir "$t/m"
if [ $mode = tmpfs ] && ! mount -t tmpfs -o size=256k tmpfs "$t/m" 2> /dev/null; then
  rm -rf "$t"; exec sh "$0" "$flce" fsize
fi
echo "cli_full_disk: $([ $mode = tmpfs ] && echo 'a 256 KiB tmpfs, filled' || echo 'a file-size limit (ulimit -f)')"
full_err="write failed: (No space left on device|File too large)"
# limited L CMD...: CMD with room for about L KiB (L = 0: none) in $t/m (tmpfs: the rest filled;
# a tmpfs file takes 4 KiB at least) or for each file (fsize; at least 1 KiB)
limited() {
  l=$1; shift
  if [ $mode = tmpfs ]; then
    rm -rf "$t/m"/*
    dd if=/dev/zero of="$t/m/fill" bs=1k count=$((256 - l)) 2> /dev/null
    "$@"
  else
    rm -rf "$t/m"/*
    [ $l -ge 1 ] || l=1 # the limit holds for the test's own output files too: room for a line
    (trap "" XFSZ; ulimit -f $((2 * l)); "$@")
  fi
}
"$flce" run --algo flce --clients 6 --per-round 3 --rounds 2 --train-subset 600 --test-subset 100 --val-size 40 --batch 32 \
  --seed 3 --backend cpu --quiet --out "$t/run" > /dev/null 2>&1 || fail "the tiny run"
tr="$t/run/trace"
# eval at every fill level (its four files take about 10 KB)
l=0 seen_fail=0 seen_ok=0
while [ $l -le 20 ]; do
  limited $l "$flce" eval "$tr" --out "$t/m/ev" > "$t/o" 2> "$t/e"; rc=$?
  if [ $rc = 0 ]; then
    for f in Q.npy X_completed.npy contributions.csv completion_eval.json; do [ -s "$t/m/ev/$f" ] || fail "eval, room $l: status 0 without $f"; done
    grep -q '^wrote ' "$t/o" || fail "eval, room $l: no 'wrote' line"
    seen_ok=1
  else
    [ $rc = 1 ] || fail "eval, room $l: status $rc"
    [ "$(wc -l < "$t/e")" = 1 ] && grep -Eq "^flce eval: $t/m/ev/[A-Za-z_.]*: $full_err" "$t/e" || fail "eval, room $l: $(cat "$t/e")"
    [ -s "$t/o" ] && fail "eval, room $l: printed results although it failed: $(head -2 "$t/o")"
    [ -e "$t/m/ev" ] && fail "eval, room $l: left $(ls "$t/m/ev")"
    seen_fail=1
  fi
  l=$((l + 2))
done
[ $seen_fail = 1 ] && [ $seen_ok = 1 ] || fail "eval: the fill levels did not cover both ends (ok $seen_ok, fail $seen_fail)"
# report on a full disk
limited 0 "$flce" report "$t/run" --out "$t/m/rep" > "$t/o" 2> "$t/e"; rc=$?
[ $rc = 1 ] || fail "report on a full disk: status $rc"
[ "$(wc -l < "$t/e")" = 1 ] && grep -Eq "^flce report: $t/m/rep[A-Za-z0-9_./]*: ($full_err|cannot write: )" "$t/e" ||
  fail "report on a full disk: $(cat "$t/e")"
grep -qi gnuplot "$t/e" && fail "report on a full disk blames gnuplot"
grep -q '^report:' "$t/o" && fail "report on a full disk printed its success line"
[ -e "$t/m/rep" ] && fail "report on a full disk left $(ls "$t/m/rep" | head -3)"
# ... into an earlier report's folder with a file of the user's in it: the earlier report and
# the user's file stay as they were, nothing of the new report does (until 2026-11-28 a failed
# report removed the earlier report's files it had rewritten; and this check once used a folder
# without a report, which is refused before anything is written, so it checked nothing)
keep() {
  mkdir -p "$t/m/mine" && echo keep > "$t/m/mine/notes.txt" && printf '# FLCE-harness report\nearlier\n' > "$t/m/mine/report.md" &&
    "$@"
}
limited 8 keep "$flce" report "$t/run" --out "$t/m/mine" > /dev/null 2> "$t/e"; rc=$?
[ $rc = 1 ] || fail "report into a full folder: status $rc: $(cat "$t/e")"
[ "$(ls -A "$t/m/mine" | tr '\n' ' ')" = "notes.txt report.md " ] || fail "report into a full folder: left $(ls -A "$t/m/mine")"
[ "$(cat "$t/m/mine/notes.txt")" = keep ] &&
  [ "$(sed -n 2p "$t/m/mine/report.md")" = earlier ] || fail "report into a full folder changed the earlier report or the user's file: $(head -3 "$t/m/mine/report.md" "$t/m/mine/notes.txt")"
# no inode left for the staging folder (tmpfs only): a failure of the work (status 1), not of the flag
if [ $mode = tmpfs ]; then
  mkdir "$t/i" && mount -t tmpfs -o size=1m,nr_inodes=4 tmpfs "$t/i" || fail "could not mount an inode-poor tmpfs"
  mkdir "$t/i/out" && touch "$t/i/a" "$t/i/b" 2> /dev/null
  expect 1 "--out $t/i/out: cannot write a folder into it: No space left on device" report "$t/run" --out "$t/i/out"
  [ -z "$(ls -A "$t/i/out")" ] || fail "a report without an inode left $(ls -A "$t/i/out")"
  umount "$t/i"
fi
# without gnuplot: told as such, the report itself written
mkdir "$t/nobin"
PATH="$t/nobin" "$flce" report "$t/run" --out "$t/rep" > "$t/o" 2> "$t/e"; rc=$?
[ $rc = 1 ] || fail "report without gnuplot: status $rc"
[ "$(wc -l < "$t/e")" = 1 ] && grep -q '^flce report: gnuplot not found: no figures (install gnuplot-nox)' "$t/e" || fail "report without gnuplot: $(cat "$t/e")"
[ -s "$t/rep/report.html" ] || fail "report without gnuplot: no report.html"
echo "cli_full_disk: all checks passed"
