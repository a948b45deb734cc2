#!/bin/sh
# test_one_core.sh [ROUNDS] [BUSY]: the README's test command (scripts/test.sh: the release and
# the sanitizer suites) on one core, beside BUSY busy loops (default 1) on that same core,
# ROUNDS times (default 3): no test may depend on the machine's speed or load (issue 61). Not
# run by CI (hours: every test at a fraction of one core). Writes build/one_core/round-N.log
# (test.sh's output) and prints, per round, the wall time of each suite and whether it passed;
# the exit status is 1 when any round failed. CPU: FLCE_ONE_CORE_CPU (default 0).
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-3}
busy=${2:-1}
cpu=${FLCE_ONE_CORE_CPU:-0}
case "$rounds$busy" in *[!0-9]*) echo "test_one_core.sh: ROUNDS and BUSY are whole numbers (got '$rounds' '$busy')" >&2; exit 2;; esac
[ "$rounds" -ge 1 ] || { echo "test_one_core.sh: ROUNDS must be at least 1" >&2; exit 2; }
command -v taskset > /dev/null || { echo "test_one_core.sh: taskset (util-linux) not found" >&2; exit 1; }
# the release build as setup.sh configures it (test.sh builds into it; a build/ without a cache
# would stop it)
[ -f build/CMakeCache.txt ] || cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
mkdir -p build/one_core
pids=""
i=0
while [ $i -lt "$busy" ]; do
  taskset -c "$cpu" sh -c 'while :; do :; done' &
  pids="$pids $!"
  i=$((i + 1))
done
trap 'kill $pids 2> /dev/null' EXIT INT TERM
bad=0
r=1
while [ "$r" -le "$rounds" ]; do
  log=build/one_core/round-$r.log
  t0=$(date +%s)
  rc=0
  taskset -c "$cpu" ./scripts/test.sh > "$log" 2>&1 || rc=$?
  t1=$(date +%s)
  # ctest's "Total Test time (real) = N sec" line of each suite, in the order test.sh runs them
  times=$(grep 'Total Test time' "$log" | sed 's/.*= *//' | tr '\n' ' ')
  summary=$(grep -E 'tests passed|tests failed' "$log" | tr '\n' ';')
  echo "round $r: status $rc, $((t1 - t0)) s in all (builds included); ctest release, sanitizer: ${times:-none}; $summary"
  [ "$rc" = 0 ] || { bad=1; echo "  failed: $(grep -E 'FAIL|Failed|\*\*\*' "$log" | head -5 | tr '\n' ' ')"; }
  r=$((r + 1))
done
exit $bad
