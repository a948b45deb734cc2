#!/bin/sh
# readme_commands.sh FLCE [README]: the README is the front door (issue 81), so what it shows must
# run on this build: every `build/flce SUBCOMMAND ...` command line in its ```sh blocks (lines
# ending in `\` joined, `#` comments left out, `&&`, `;` and `|` separating commands) names a
# subcommand whose --help works, and each of its flags (--xxx) appears in that --help; and the
# README is at most 10,240 bytes. A command whose --help says it takes "every flag of flce run"
# (flce truth) takes those of `flce run --help` too, but for the ones its "Not taken" line names.
# README defaults to the README.md beside tests/.
set -u
flce=$1; readme=${2:-$(dirname "$0")/../README.md}
max=10240
fail() { echo "FAIL: $*"; exit 1; }
flags() { grep -o -- '--[a-z][a-z0-9-]*' | sort -u; }
[ -f "$readme" ] || fail "no $readme"
size=$(wc -c < "$readme" | tr -d ' ')
[ "$size" -le "$max" ] || fail "$readme is $size bytes, over $max: move detail into docs/"
t=$(mktemp -d /tmp/flce-readme-XXXXXX); trap 'rm -rf "$t"' EXIT
# the command lines of the sh blocks, one a line
awk '
  /^```sh[ \t]*$/ { on = 1; line = ""; next }
  /^```/ { on = 0; next }
  !on { next }
  { cur = $0
    if (cur ~ /\\[ \t]*$/) { sub(/\\[ \t]*$/, " ", cur); line = line cur; next }
    line = line cur
    sub(/(^|[ \t])#.*$/, "", line)
    gsub(/&&|\|\||;|\|/, "\n", line)
    n = split(line, seg, "\n")
    for (i = 1; i <= n; i++) {
      s = seg[i]; sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); gsub(/[ \t]+/, " ", s)
      if (s ~ /^build\/flce /) print s
    }
    line = "" }' "$readme" > "$t/cmds"
n=$(wc -l < "$t/cmds" | tr -d ' ')
[ "$n" -gt 0 ] || fail "$readme: no build/flce command in its sh blocks"
while IFS= read -r cmd; do
  set -- $cmd
  sub=${2:-}
  case "$sub" in ""|-*|*[!a-z0-9-]*) fail "$readme: no subcommand in: $cmd";; esac
  if [ ! -f "$t/flags-$sub" ]; then # the flags it takes, one a line
    "$flce" "$sub" --help > "$t/help" 2>&1 || fail "$readme: build/flce $sub: --help fails (no such command?): $cmd"
    grep -v '^Not taken' "$t/help" | flags > "$t/flags-$sub"
    if [ "$sub" != run ] && grep -q 'every flag of flce run' "$t/help"; then
      "$flce" run --help > "$t/run" 2>&1 || fail "build/flce run --help fails"
      grep '^Not taken' "$t/help" | flags > "$t/not"
      flags < "$t/run" | comm -23 - "$t/not" >> "$t/flags-$sub"
    fi
  fi
  for flag in $(printf '%s\n' "$cmd" | flags); do
    grep -qxF -- "$flag" "$t/flags-$sub" || fail "$readme: build/flce $sub takes no $flag (not in its --help): $cmd"
  done
done < "$t/cmds"
echo "readme_commands: $n build/flce commands of README.md, each flag in its command's --help; README.md $size bytes (at most $max)"
