#!/bin/sh
# python_venv.sh FLCE LIBFLCE: the Python package installed the way docs/python.md says, into a
# clean virtual environment of Debian's /usr/bin/python3 in a temporary folder:
#   /usr/bin/python3 -m venv --system-site-packages ENV && ENV/bin/pip install --no-index ./python
# then `pip show flce` must list numpy under Requires (a package that did not declare it installed
# "successfully" and failed at import in a venv without NumPy), and the venv's python, away from
# the source tree, imports flce (with Debian's NumPy, python3-numpy, from the system site-packages)
# and evaluates a small trace: the same contributions.csv as `flce eval` on it.
# Skipped (77) only where /usr/bin/python3 or its venv module (python3-venv) is absent; no NumPy
# for /usr/bin/python3 (python3-numpy) is a failure: the documented install would not work.
set -u
py=/usr/bin/python3
[ $# -eq 2 ] || { echo "python_venv.sh: takes FLCE and LIBFLCE (got $# arguments)" >&2; exit 2; }
[ -x "$py" ] || { echo "python_venv.sh: no $py: skipped"; exit 77; }
"$py" -c "import venv, ensurepip" 2>/dev/null || { echo "python_venv.sh: $py has no venv module (python3-venv): skipped"; exit 77; }
flce_bin=$(realpath "$1") && lib=$(realpath "$2") || exit 1
cd "$(dirname "$0")/.." || exit 1
root=$(pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "python_venv.sh: FAILED: $*" >&2; exit 1; }

# pip's own settings of this machine (an index, find-links) play no part: NumPy can only come from
# the system site-packages, as on a machine with no network
for v in $(env | sed -n 's/^\(PIP_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
unset PYTHONPATH PYTHONHOME VIRTUAL_ENV

"$py" -m venv --system-site-packages "$tmp/env" || fail "$py -m venv --system-site-packages"
FLCE_LIB=$lib "$tmp/env/bin/pip" install --no-index ./python > "$tmp/pip.log" 2>&1 ||
  { cat "$tmp/pip.log"; fail "pip install --no-index ./python (is python3-numpy installed for $py?)"; }
tail -n 1 "$tmp/pip.log"
"$tmp/env/bin/pip" show flce > "$tmp/show.txt" || fail "pip show flce"
grep '^Requires:' "$tmp/show.txt"
grep -Eq '^Requires:(.*[ ,])?numpy(,|$)' "$tmp/show.txt" || { cat "$tmp/show.txt"; fail "pip show flce: numpy not under Requires"; }

cd "$tmp" || exit 1
"$tmp/env/bin/python" - "$tmp" <<'EOF' || fail "import flce and evaluate from the venv"
import os, sys
import numpy as np
import flce
tmp = sys.argv[1]
site = os.path.join(tmp, "env")
assert flce.__file__.startswith(site), flce.__file__            # the installed package, not the tree's
assert flce.library_path.startswith(site), flce.library_path    # and its own libflce.so
print("flce", flce.__file__, "numpy", np.__version__, np.__file__)
rng = np.random.default_rng(3)
path = flce.write_trace(os.path.join(tmp, "trace"), rng.normal(size=(3, 3, 2, 4)), np.ones((3, 3), np.int8), [10, 20, 30])
ev = flce.evaluate(path, out=os.path.join(tmp, "py"))
assert ev.contributions.shape == (3,) and np.all(np.isfinite(ev.contributions)), ev.contributions
print("contributions", ev.contributions)
EOF
"$flce_bin" eval "$tmp/trace" --out "$tmp/cli" > /dev/null || fail "flce eval on the venv's trace"
cmp "$tmp/py/contributions.csv" "$tmp/cli/contributions.csv" || fail "contributions.csv: evaluate in the venv is not flce eval"
echo "python_venv.sh: ok ($root/python installed into a clean venv of $py; numpy required and found)"
