#!/bin/sh
# test.sh: every test through ctest, twice: the release build (build/, made by setup.sh)
# and a build with AddressSanitizer and UBSan (build-asan/).
# In CI (CI or FLCE_CI set) a skipped test is a failure: the Vulkan test skips only where no
# Vulkan device exists, and CI installs lavapipe (mesa-vulkan-drivers) so that it always runs.
set -eu
[ $# -eq 0 ] || { echo "test.sh: takes no arguments (one test: ctest --test-dir build -R NAME) (got $# arguments)" >&2; exit 2; }
cd "$(dirname "$0")/.."
j=$(nproc)
export LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0"

run_ctest() {
  rc=0
  t0=$(date +%s)
  ctest --test-dir "$1" --output-on-failure -j"$j" > "$1/ctest.log" 2>&1 || rc=$?
  cat "$1/ctest.log"
  echo "test.sh: $1: ctest took $(( $(date +%s) - t0 )) s of wall time" | tee -a "$walls"
  [ "$rc" = 0 ] || exit "$rc"
  skipped=$(grep -c '\*\*\*Skipped\|Not Run' "$1/ctest.log" || true)
  if [ -n "${CI:-}${FLCE_CI:-}" ] && [ "$skipped" != 0 ]; then
    echo "test.sh: $skipped test(s) skipped in CI (reasons above): failing" >&2
    exit 1
  fi
}

# what only the tests need: Debian's Chromium, and playwright-core from npm to drive it (the
# report's browser test, tests/report_browser.sh; nothing is downloaded for a browser), and
# Debian's python3-numpy, python3-pytest, python3-torch and python3-pip (the Python package's
# tests, `pip install ./python` among them)
need=""
[ -x /usr/bin/chromium ] || need="chromium"
# the Python package's tests (ctest python): Debian's NumPy, pytest and PyTorch for /usr/bin/python3
/usr/bin/python3 -c "import numpy, pytest, torch, pip" 2> /dev/null || need="$need python3-numpy python3-pytest python3-torch python3-pip"
# ... and a clean venv of it (ctest python_venv: the documented install, docs/python.md)
/usr/bin/python3 -c "import ensurepip, venv" 2> /dev/null || need="$need python3-venv"
command -v node > /dev/null || need="$need nodejs"
command -v npm > /dev/null || need="$need npm"
if [ -n "$need" ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null ||
    echo "test.sh: could not install$need: the browser and Python tests will be skipped" >&2
fi
if [ ! -d tests/browser/node_modules/playwright-core ] && command -v npm > /dev/null; then
  (cd tests/browser && npm install --no-audit --no-fund --silent > /dev/null 2>&1) ||
    echo "test.sh: npm could not install playwright-core: the browser test will be skipped" >&2
fi
walls=$(mktemp); trap 'rm -f "$walls"' EXIT # each suite's wall time, said again at the end
[ -d build ] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null; }
cmake --build build -j"$j"
run_ctest build
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLCE_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$j"
run_ctest build-asan
cat "$walls"
