#!/bin/sh
# check_method_guide.sh: does docs/adding-a-method.md work as written? In a copy of the source
# tree (tracked and new files, not build folders), write fl/methods/fedavgm.c from the guide's
# code block, add the registry word, and change nothing else; build flce; check what the guide
# promises (help, flags, limits, config.json, a killed run resumed to the plain run's digests,
# a run beside FedAvg) and, with flce-bench built too, that docs_commands fails until
# scripts/command_docs.sh rewrites docs/commands/run.md and passes after; remove the copy. One
# line per check; exit 1 on any failure. About 3 minutes on 2 cores (a release build and four
# 3-round runs on 1,000 images).
set -u
cd "$(dirname "$0")/.."
src=$(pwd)
t=$(mktemp -d /tmp/flce-guide-XXXXXX)
trap 'rm -rf "$t"' EXIT
fails=0
ok() { echo "ok:   $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# the copy: every file git knows or would add (the tree as it is now, edits included)
# (tar reads the names itself: xargs would split a long list into several archives, of which
# the reading tar takes the first alone)
git ls-files -z --cached --others --exclude-standard | tar cf - --null -T - | (mkdir -p "$t/src" && cd "$t/src" && tar xf -) ||
  { echo "check_method_guide.sh: cannot copy the source tree" >&2; exit 1; }
cd "$t/src"
# section 2: the code block that follows "`fl/methods/fedavgm.c`:"
awk '/^`fl\/methods\/fedavgm.c`:/ { want = 1; next } want && /^```c/ { on = 1; next } on && /^```/ { exit } on { print }' \
  docs/adding-a-method.md > fl/methods/fedavgm.c
[ -s fl/methods/fedavgm.c ] || { bad "no code block for fl/methods/fedavgm.c in the guide"; exit 1; }
# section 3: the registry line as the guide writes it
line=$(grep '^#define FLCE_METHODS(X)' docs/adding-a-method.md)
case "$line" in *"X(fedavgm)"*) ;; *) bad "the guide's registry line does not add X(fedavgm)"; exit 1 ;; esac
awk -v l="$line" '/^#define FLCE_METHODS\(X\)/ { print l; next } { print }' fl/methods/registry.c > "$t/reg" && mv "$t/reg" fl/methods/registry.c
changed=$(cd "$t/src" && for f in $(cd "$src" && git ls-files -co --exclude-standard); do cmp -s "$src/$f" "$f" || echo "$f"; done)
[ "$changed" = "fl/methods/registry.c" ] && ok "files changed: fl/methods/registry.c, and fl/methods/fedavgm.c new" ||
  bad "files changed beyond the registry: $changed"

cmake -S . -B b -DCMAKE_BUILD_TYPE="${1:-Release}" > "$t/cmake.log" 2>&1 && cmake --build b -j"$(nproc)" --target flce > "$t/build.log" 2>&1 ||
  { bad "the build failed: $(grep -m3 -i error "$t/build.log" "$t/cmake.log")"; exit 1; }
ok "built with the guide's file"
f=./b/flce
"$f" run --help > "$t/help" 2>&1
grep -q '^  fedavgm ' "$t/help" && ok "--help lists fedavgm" || bad "--help does not list fedavgm"
grep -q -- '--fedavgm-beta .*0.9 .*fedavgm' "$t/help" && ok "--help's settings table has --fedavgm-beta 0.9 fedavgm" || bad "--help: no --fedavgm-beta in the settings table"
# section 5: docs/commands/run.md's Options section is flce run --help: docs_commands names the
# new flag until scripts/command_docs.sh rewrites the pages (the copy's), then passes
cmake --build b -j"$(nproc)" --target flce-bench > "$t/bench.log" 2>&1 ||
  { bad "flce-bench did not build: $(grep -m3 -i error "$t/bench.log")"; exit 1; }
msg=$(sh tests/docs_commands.sh b/flce b/flce-bench docs 2>&1); rc=$?
[ $rc != 0 ] && echo "$msg" | grep -q -- "run.md: --help lists .*--fedavgm-beta" && ok "docs_commands before the pages are rewritten: $msg" ||
  bad "docs_commands before the pages are rewritten: status $rc: $msg"
if sh scripts/command_docs.sh b > "$t/docs.log" 2>&1; then
  pages=$(for f in docs/commands/*.md; do cmp -s "$src/$f" "$f" || printf '%s ' "$f"; done)
  msg=$(sh tests/docs_commands.sh b/flce b/flce-bench docs 2>&1) && ok "scripts/command_docs.sh rewrote ${pages:-no page}; docs_commands passes" ||
    bad "docs_commands after scripts/command_docs.sh: $msg"
else
  bad "scripts/command_docs.sh failed: $(tail -2 "$t/docs.log")"
fi
tiny="--dataset fmnist --clients 6 --per-round 3 --rounds 3 --iid --train-subset 1000 --test-subset 200 --val-size 50 --batch 32 --seed 5 --quiet"
msg=$("$f" run --algo fedavgm --fedavgm-beta 1.5 $tiny --out "$t/x" 2>&1); rc=$?
[ $rc = 2 ] && echo "$msg" | grep -q -- "--fedavgm-beta 1.5: must be >= 0, at most 1" && ok "--fedavgm-beta 1.5 refused: $msg" || bad "--fedavgm-beta 1.5: status $rc: $msg"
msg=$("$f" run --algo fedavg --fedavgm-beta 0.5 $tiny --out "$t/x" 2>&1); rc=$?
[ $rc = 2 ] && echo "$msg" | grep -q "a setting of fedavgm" && ok "--fedavgm-beta without FedAvgM refused: $msg" || bad "--fedavgm-beta with --algo fedavg: status $rc: $msg"
"$f" run --algo fedavgm --fedavgm-beta 0.5 $tiny --out "$t/plain" > "$t/plain.log" 2>&1 || bad "the plain run failed: $(tail -2 "$t/plain.log")"
python3 -c "import json,sys; c=json.load(open(sys.argv[1])); sys.exit(0 if c.get('fedavgm_beta') == 0.5 and c.get('algo') == 'fedavgm' else 1)" "$t/plain/config.json" &&
  ok "config.json: fedavgm_beta 0.5" || bad "config.json has no fedavgm_beta 0.5"
FLCE_TEST_KILL_AFTER=1 "$f" run --algo fedavgm --fedavgm-beta 0.5 $tiny --out "$t/killed" > /dev/null 2>&1
msg=$("$f" run --algo fedavgm --fedavgm-beta 0.7 $tiny --out "$t/killed" --resume 2>&1); rc=$?
[ $rc = 2 ] && echo "$msg" | grep -q "fedavgm_beta" && ok "--resume with another beta refused: $msg" || bad "--resume with another beta: status $rc: $msg"
"$f" run --algo fedavgm --fedavgm-beta 0.5 $tiny --out "$t/killed" --resume > /dev/null 2>&1 || bad "--resume failed"
cmp -s "$t/plain/digests.txt" "$t/killed/digests.txt" && ok "killed after round 1 and resumed: the plain run's digests" ||
  bad "the resumed run's digests differ from the plain run's"
"$f" run --algo fedavg,fedavgm $tiny --out "$t/both" > "$t/both.log" 2>&1 && [ -f "$t/both/fedavgm/contributions.csv" ] &&
  ok "--algo fedavg,fedavgm: both ran (summary: $(grep -c . "$t/both/summary.csv") lines)" || bad "--algo fedavg,fedavgm failed: $(tail -2 "$t/both.log")"
a=$(sed -n '$p' "$t/both/fedavg/metrics.csv" | cut -d, -f2); b=$(sed -n '$p' "$t/both/fedavgm/metrics.csv" | cut -d, -f2)
echo "      round 3 test accuracy: FedAvg $a, FedAvgM (beta 0.9) $b"
[ $fails = 0 ] && echo "the guide works as written (the copy is removed)" || echo "$fails check(s) failed"
[ $fails = 0 ]
