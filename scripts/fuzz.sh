#!/bin/sh
# fuzz.sh [SECONDS] [TARGET...]: runs each libFuzzer target (tests/fuzz) for SECONDS (default 60)
# on a working copy of its committed seed corpus, with AddressSanitizer and UBSan. Needs clang
# and its fuzzer runtime (Debian: clang, libclang-rt-14-dev; installed here when missing).
# Builds into build-fuzz/ (clang, no Vulkan); corpora grow in build-fuzz/corpus/TARGET;
# a crash is written to build-fuzz/findings/TARGET/ and ends the script with status 1.
# Prints, per target, executions, coverage (edges) and corpus size.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-60}
shift 2>/dev/null || true
targets=${*:-"npy safetensors idx cifar jpeg weights trace run state"}
missing=""
for p in clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLCE_FUZZ=ON -DFLCE_SANITIZE=ON -DFLCE_WERROR=OFF \
  -DFLCE_VULKAN=OFF > /dev/null
status=0
for t in $targets; do
  cmake --build build-fuzz -j"$(nproc)" --target "fuzz_$t" > /dev/null
  mkdir -p "build-fuzz/corpus/$t" "build-fuzz/findings/$t"
  cp -n tests/fuzz/corpus/"$t"/* "build-fuzz/corpus/$t/" 2>/dev/null || true
  log=build-fuzz/fuzz_$t.log
  rc=0
  "build-fuzz/tests/fuzz_$t" -max_total_time="$secs" -max_len=16384 -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="build-fuzz/findings/$t/" "build-fuzz/corpus/$t" > "$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  n=$(ls "build-fuzz/corpus/$t" | wc -l)
  if [ "$rc" = 0 ]; then
    echo "fuzz $t: ${secs}s, $execs executions, coverage $cov edges ($ft features), corpus $n inputs"
  else
    echo "fuzz $t: FOUND A PROBLEM after $execs executions (exit $rc): $(ls build-fuzz/findings/$t | head -3); see $log"
    status=1
  fi
done
exit $status
