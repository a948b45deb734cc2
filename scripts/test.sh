#!/bin/sh
# test.sh: every test through ctest, twice: the release build (build/, made by setup.sh)
# and a build with AddressSanitizer and UBSan (build-asan/).
set -eu
cd "$(dirname "$0")/.."
j=$(nproc)
export LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0"
[ -d build ] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null; }
cmake --build build -j"$j"
ctest --test-dir build --output-on-failure -j"$j"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLCE_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$j"
ctest --test-dir build-asan --output-on-failure -j"$j"
