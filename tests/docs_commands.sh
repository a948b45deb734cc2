#!/bin/sh
# docs_commands.sh FLCE FLCE_BENCH DOCS: each command's reference page (docs/commands/*.md) and
# its --help text list the same flags (issue 31): the page's "## Options" section holds the
# flags of the command's --help, no more and no fewer, and every flag the page's prose mentions
# is a flag of some command of this harness (or of the outside tools named in FOREIGN below), so
# a flag renamed or removed in the code fails here until its page follows.
set -u
flce=$1; bench=$2; docs=$3
fail() { echo "FAIL: $*"; exit 1; }
flags() { grep -o -- '--[a-z][a-z0-9-]*' | grep -vx -- --help | sort -u; }
# flags of other programs that the pages mention (mpirun, cmake/ctest, npm, the browser test)
FOREIGN="--oversubscribe --hostfile --bind-to --output-on-failure --test-dir --no-audit --no-fund --silent --help --system-site-packages --no-index --no-deps"
t=$(mktemp -d /tmp/flce-docs-XXXXXX); trap 'rm -rf "$t"' EXIT
: > "$t/all"
check() { # check PAGE "PROG CMD"...
  page=$docs/commands/$1; shift
  [ -f "$page" ] || fail "no $page"
  : > "$t/help"
  for pc in "$@"; do
    set -- $pc
    p=$flce; [ "$1" = flce-bench ] && p=$bench
    "$p" "$2" --help > "$t/h" 2>&1 || fail "$pc --help: status $?"
    flags < "$t/h" >> "$t/help"
  done
  sort -u "$t/help" -o "$t/help"
  cat "$t/help" >> "$t/all"
  awk '/^## Options/ { on = 1; next } /^## / { on = 0 } on' "$page" | flags > "$t/doc"
  [ -s "$t/doc" ] || fail "$page: no Options section with flags"
  missing=$(comm -23 "$t/help" "$t/doc" | tr '\n' ' '); extra=$(comm -13 "$t/help" "$t/doc" | tr '\n' ' ')
  [ -z "$missing" ] || fail "$page: --help lists $missing but the page's Options do not (regenerate: scripts/command_docs.sh)"
  [ -z "$extra" ] || fail "$page: its Options list $extra, which --help does not"
  n=$((n + 1))
}
n=0
check run.md "flce run"
check truth.md "flce truth"
check report.md "flce report"
check eval.md "flce eval"
check data.md "flce data"
check step.md "flce step"
check check.md "flce check"
check flce-bench.md "flce-bench server" "flce-bench train" "flce-bench cluster" "flce-bench peak"
for f in $FOREIGN --version; do echo "$f" >> "$t/all"; done # --version: the programs' own
sort -u "$t/all" -o "$t/all"
# the prose of every page, the README and the docs that name commands
for page in "$docs"/commands/*.md "$docs"/../README.md "$docs"/findings.md; do
  awk '/^## Options/ { on = 1; next } /^## / { on = 0 } !on' "$page" | flags > "$t/prose"
  unknown=$(comm -23 "$t/prose" "$t/all" | tr '\n' ' ')
  [ -z "$unknown" ] || fail "$page mentions $unknown, which no command takes"
done
# what a user reads is the current state, the history is in git (issue 65): no dated "before" or
# "until" in a command page (its --help copies included), a --help text, a program's or a script's
# usage error
dated='(before|until|since) 20[0-9][0-9]-[0-9][0-9]'
for page in "$docs"/commands/*.md; do
  hit=$(grep -n -i -E "$dated" "$page" | head -1)
  [ -z "$hit" ] || fail "$page: a dated history note (the history belongs in git): $hit"
done
for pc in "flce run" "flce truth" "flce eval" "flce report" "flce data" "flce step" "flce check" "flce-bench server" "flce-bench train" \
          "flce-bench cluster" "flce-bench peak"; do
  set -- $pc
  p=$flce; [ "$1" = flce-bench ] && p=$bench
  hit=$("$p" "$2" --help 2>&1 | grep -i -E "$dated" | head -1)
  [ -z "$hit" ] || fail "$pc --help: a dated history note: $hit"
done
# the programs' own usage errors (cli_usage_error's messages in the sources)
for src in "$docs"/../apps/*.c "$docs"/../apps/report/*.c "$docs"/../bench/*.c; do
  hit=$(grep -n 'cli_usage_error' "$src" | grep -i -E "$dated" | head -1)
  [ -z "$hit" ] || fail "$src: a dated history note in a usage error: $hit"
done
for sc in "$docs"/../scripts/*.sh; do
  hit=$(grep -n -E 'echo .*(usage|arguments|takes)' "$sc" | grep -i -E "$dated" | head -1)
  [ -z "$hit" ] || fail "$sc: a dated history note in a usage message: $hit"
done
echo "docs_commands: $n pages, their flags those of --help; no dated history in pages, --help or usage messages"
