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
