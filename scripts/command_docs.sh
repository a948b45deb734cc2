#!/bin/sh
# command_docs.sh [BUILD]: rewrites the "## Options" section at the end of each command's page
# (docs/commands/*.md) from the command's --help text (BUILD: default build/). The prose above it
# is the page's own; tests/docs_commands.sh fails when the two disagree on the flags.
set -eu
cd "$(dirname "$0")/.."
b=${1:-build}
page() { # page FILE "PROG CMD"...
  f=docs/commands/$1; shift
  awk '/^## Options/ { exit } { print }' "$f" > "$f.new"
  { printf '## Options\n\nThe `--help` text of the build (a test, `docs_commands`, checks that it and this page list the same flags).\n\n'
    for pc in "$@"; do
      set -- $pc
      printf '`%s %s --help`:\n\n```\n' "$1" "$2"
      "$b/$1" "$2" --help 2>&1
      printf '```\n\n'
    done; } >> "$f.new"
  sed -i -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$f.new" # no blank lines at the end
  mv "$f.new" "$f"
}
page run.md "flce run"
page truth.md "flce truth"
page report.md "flce report"
page eval.md "flce eval"
page data.md "flce data"
page step.md "flce step"
page check.md "flce check"
page flce-bench.md "flce-bench server" "flce-bench train" "flce-bench cluster" "flce-bench peak"
echo "docs/commands: Options sections rewritten from $b's --help"
