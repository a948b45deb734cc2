#!/bin/sh
# coverage.sh [SRC]: the line coverage of the release build under the whole ctest suite (gcov
# through lcov), for the source tree SRC (default: this repository; another checkout, say a
# worktree of an older commit, to compare its tests with today's). Builds SRC/build-cov with
# --coverage at -O2 (the release flags), runs ctest -j$(nproc) there, and prints two lines: the
# library's coverage (base, data, reference, backends, check, fl: what libflce's programs link)
# and everything's (apps and api too). The lcov files stay in SRC/build-cov (cov-lib.info,
# cov-all.info). It takes about the release suite's time, plus a build.
set -eu
[ $# -le 1 ] || { echo "coverage.sh: at most one argument, the source tree (got $#)" >&2; exit 2; }
src=$(cd "${1:-$(dirname "$0")/..}" && pwd)
[ -f "$src/CMakeLists.txt" ] || { echo "coverage.sh: $src: no CMakeLists.txt (not a source tree of this project)" >&2; exit 2; }
command -v lcov > /dev/null || { echo "coverage.sh: lcov is missing (apt-get install lcov)" >&2; exit 1; }
b=$src/build-cov
j=$(nproc)
cmake -S "$src" -B "$b" -DCMAKE_BUILD_TYPE=Release -DFLCE_WERROR=OFF -DCMAKE_C_FLAGS=--coverage \
  -DCMAKE_EXE_LINKER_FLAGS=--coverage -DCMAKE_SHARED_LINKER_FLAGS=--coverage > /dev/null
cmake --build "$b" -j"$j" > "$b/build.log" 2>&1 || { tail -20 "$b/build.log" >&2; exit 1; }
find "$b" -name '*.gcda' -delete
rc=0
LSAN_OPTIONS="suppressions=$src/tests/lsan.supp:print_suppressions=0" ctest --test-dir "$b" -j"$j" > "$b/ctest.log" 2>&1 || rc=$?
tail -3 "$b/ctest.log"
[ "$rc" = 0 ] || echo "coverage.sh: some tests failed (status $rc): the figures count what ran" >&2
lcov --quiet --capture --directory "$b" --base-directory "$src" --output-file "$b/cov-raw.info" 2> /dev/null
lcov --quiet --extract "$b/cov-raw.info" "$src/*" --output-file "$b/cov-all.info"
lcov --quiet --remove "$b/cov-all.info" "$src/tests/*" "$src/bench/*" "$src/build-cov/*" --output-file "$b/cov-all.info"
lcov --quiet --extract "$b/cov-all.info" "$src/base/*" "$src/data/*" "$src/reference/*" "$src/backends/*" "$src/check/*" "$src/fl/*" \
  --output-file "$b/cov-lib.info"
for w in lib all; do
  printf '%s: ' "$w"
  lcov --summary "$b/cov-$w.info" 2>&1 | grep 'lines\.'
done
