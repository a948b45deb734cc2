#!/bin/sh
# test.sh: every test through ctest, twice: the release build (build/, made by setup.sh)
# and a build with AddressSanitizer and UBSan (build-asan/).
# In CI (CI or FLCE_CI set) a skipped test is a failure: the Vulkan test skips only where no
# Vulkan device exists, and CI installs lavapipe (mesa-vulkan-drivers) so that it always runs.
set -eu
cd "$(dirname "$0")/.."
j=$(nproc)
export LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0"

run_ctest() {
  rc=0
  ctest --test-dir "$1" --output-on-failure -j"$j" > "$1/ctest.log" 2>&1 || rc=$?
  cat "$1/ctest.log"
  [ "$rc" = 0 ] || exit "$rc"
  skipped=$(grep -c '\*\*\*Skipped\|Not Run' "$1/ctest.log" || true)
  if [ -n "${CI:-}${FLCE_CI:-}" ] && [ "$skipped" != 0 ]; then
    echo "test.sh: $skipped test(s) skipped in CI (reasons above): failing" >&2
    exit 1
  fi
}

[ -d build ] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null; }
cmake --build build -j"$j"
run_ctest build
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLCE_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$j"
run_ctest build-asan
