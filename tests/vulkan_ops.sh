#!/bin/sh
# vulkan_ops.sh (the sanitizer build's share of tests/vulkan.sh): every op case of `flce check`
# on the Vulkan backend, bit for bit, without the training steps and runs whose time is
# llvmpipe's convolutions: the backend's host code (buffers, descriptor sets, dispatches, the
# op table) under AddressSanitizer and UBSan. Exit 77 where no Vulkan device exists.
set -u
flce=$1
PROG=$flce
. "$(dirname "$0")/lib.sh"
t=$(mktemp -d /tmp/flce-vkops-XXXXXX); trap 'rm -rf "$t"' EXIT
vulkan_probe "$flce" "$t"
"$flce" check --backend vulkan --steps 0 > "$t/check" 2> "$t/check.err" || fail "flce check --backend vulkan --steps 0: $(grep -v '^ok' "$t/check" | head -5) $(head -3 "$t/check.err")"
n=$(grep -c '^ok   vulkan' "$t/check")
[ "$n" -ge 100 ] || fail "only $n cases"
grep -q "^flce check: $n of $n cases matched" "$t/check" || fail "summary: $(tail -1 "$t/check")"
echo "vulkan_ops: $n cases matched"
