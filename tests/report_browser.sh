#!/bin/sh
# report_browser.sh FLCE: a small multi-seed report (three seeds of FLCE and FedAvg) opened in
# headless Chromium (tests/browser/check_report.js): every figure loads, no local link is
# broken, the page logs no error; then one figure removed must be caught. Needs Debian's
# chromium, node and playwright-core (scripts/test.sh installs them); exits 77 (skipped, a
# failure in CI) where they are missing.
set -u
flce=$1
here=$(cd "$(dirname "$0")" && pwd)
PROG=$flce
. "$here/lib.sh"
if ! command -v node > /dev/null || [ ! -x /usr/bin/chromium ] || [ ! -d "$here/browser/node_modules/playwright-core" ]; then
  echo "SKIPPED: needs node, /usr/bin/chromium and tests/browser/node_modules/playwright-core (scripts/test.sh installs them)"; exit 77
fi
t=$(mktemp -d /tmp/flce-browser-XXXXXX); trap 'rm -rf "$t"' EXIT
tiny="--clients 4 --per-round 2 --rounds 3 --train-subset 300 --test-subset 60 --val-size 20 --batch 16 --backend cpu --quiet"
for s in 1 2 3; do "$flce" run --algo flce,fedavg $tiny --seed $s --out "$t/s$s" > /dev/null 2>&1 || fail "run seed $s"; done
"$flce" report "$t/s1" "$t/s2" "$t/s3" --out "$t/rep" > /dev/null 2>&1 || fail "flce report"
NODE_PATH="$here/browser/node_modules" node "$here/browser/check_report.js" "$t/rep/report.html" "$t/shot.png" > "$t/log" 2>&1 ||
  fail "report.html in Chromium: $(cat "$t/log")"
[ -s "$t/shot.png" ] || fail "no screenshot"
grep -q '^[1-9][0-9]* images' "$t/log" || fail "no image seen: $(cat "$t/log")"
rm "$t/rep/seeds_accuracy.svg"
NODE_PATH="$here/browser/node_modules" node "$here/browser/check_report.js" "$t/rep/report.html" "$t/shot2.png" > "$t/log2" 2>&1 &&
  fail "a missing figure was not caught: $(cat "$t/log2")"
grep -q 'image does not load: .*seeds_accuracy.svg' "$t/log2" || fail "the missing figure is not named: $(cat "$t/log2")"
echo "report_browser: $(cat "$t/log" | tail -1); a missing figure is caught"
