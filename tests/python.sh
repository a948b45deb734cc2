#!/bin/sh
# python.sh FLCE LIBFLCE: the Python package's tests (python/tests, pytest) against these builds of
# flce and libflce. Debian's python3 with python3-numpy, python3-pytest and python3-torch
# (scripts/test.sh installs them); without them the test is skipped (77), which CI counts as a
# failure.
set -u
py=/usr/bin/python3
[ -x "$py" ] || py=python3
"$py" -c "import numpy, pytest" 2>/dev/null || { echo "python.sh: $py lacks numpy or pytest (python3-numpy, python3-pytest): skipped"; exit 77; }
cd "$(dirname "$0")/.." || exit 1
FLCE_BIN=$1 FLCE_LIB=$2 exec "$py" -m pytest -q -p no:cacheprovider python/tests
