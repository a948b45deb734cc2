#!/bin/sh
# lsan_canary.sh (sanitizer build only): LeakSanitizer still reports our own leaks after a
# backend was opened and closed, and reports nothing else. `fixtures leak-canary` opens the
# backend (the Vulkan driver, where one exists, is loaded and unloaded by the loader), closes it
# and leaks 4242 bytes on purpose; the report must name that allocation, with fixtures' own
# function in its stack, and no other: no driver allocation in an "<unknown module>".
set -u
fixtures=$1; backend=$2
PROG=$fixtures
. "$(dirname "$0")/lib.sh"
out=$("$fixtures" leak-canary "$backend" 2>&1); rc=$?
[ $rc != 0 ] || fail "leak-canary $backend: exit 0: LeakSanitizer did not report the planted leak"
echo "$out" | grep -q 'Direct leak of 4242 byte(s) in 1 object(s)' || fail "the planted leak is not reported: $out"
echo "$out" | grep -q 'in leak_canary' || fail "the planted leak's stack does not name leak_canary: $out"
echo "$out" | grep -q 'SUMMARY: AddressSanitizer: 4242 byte(s) leaked in 1 allocation(s)' ||
  fail "leaks other than the planted one: $out"
if echo "$out" | grep -q 'unknown module'; then fail "a leak in an unknown module: $out"; fi
echo "ok: LeakSanitizer reports exactly the planted leak after the $backend backend"
