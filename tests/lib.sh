# lib.sh: helpers of the shell tests (sourced). PROG must name the program under test.
fail() { echo "FAIL: $*"; exit 1; }

# expect STATUS NEEDLE ARGS...: "$PROG" ARGS exits with STATUS and prints exactly one line
# on stderr that contains NEEDLE.
expect() {
  want=$1; needle=$2; shift 2
  err=$("$PROG" "$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" = "$want" ] || fail "$PROG $*: status $rc, expected $want ($err)"
  [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "$PROG $*: more than one line: $err"
  case "$err" in *"$needle"*) ;; *) fail "$PROG $*: '$err' lacks '$needle'";; esac
}

# json_has FILE TEXT: the JSON file holds TEXT once its white space is removed (so that
# '"rank":"auto","mu":"auto"' matches however the file is laid out)
json_has() { tr -d ' \t\r\n' < "$1" | grep -qF -- "$2"; }

# vulkan_probe FLCE DIR: a Vulkan device answers `flce check --op ADD` (its output in DIR/probe,
# DIR/probe.err); exit 77 (skipped, with the reason) where none exists, a failure otherwise.
vulkan_probe() {
  "$1" check --backend vulkan --op ADD --steps 0 > "$2/probe" 2> "$2/probe.err" && return 0
  rc=$?
  case "$(cat "$2/probe.err")" in
    *"no Vulkan"*|*"no such Vulkan device"*|*"cannot create an instance"*)
      echo "SKIPPED: no Vulkan device here: $(cat "$2/probe.err")"; exit 77;;
  esac
  fail "flce check --backend vulkan --op ADD: status $rc: $(cat "$2/probe.err")"
}
