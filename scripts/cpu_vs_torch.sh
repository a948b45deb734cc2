#!/bin/sh
# cpu_vs_torch.sh [ROUNDS] [INPUT...]: the CPU backend's training throughput against PyTorch's on
# this machine, as issue 33 measures it: ROUNDS (default 5) alternating rounds of
# `tools/torch_reference.py bench` (PyTorch, 2 threads) and `flce-bench train --backend cpu`
# (2 threads), batch FLCE_BATCH (default 64), plain cross-entropy (--lambda 0), for each INPUT
# (default 3x32x32 1x28x28); then the median images/s of each side, their ratio, and the CPU
# backend's fraction of the mul+add peak (flce-bench train measures it right before each timing:
# these machines' speed moves within minutes). These machines vary by a third from hour to
# hour: only the ratio of one run means anything. Needs Debian's python3-torch (scripts/test.sh
# installs it) and a built build/flce-bench. Output: a table on stdout; FLCE_CSV=FILE also
# appends one row per input (machine, input, batch, rounds, medians, ratio, fraction of peak).
# FLCE_EVAL=1: the evaluation forward alone on both sides (`--eval`; issue 33 asks batch 256:
# FLCE_BATCH=256).
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-5}
[ $# -gt 0 ] && shift
inputs=${*:-3x32x32 1x28x28}
batch=${FLCE_BATCH:-64}
mode="" loss="--lambda 0"; [ -n "${FLCE_EVAL:-}" ] && mode="--eval" loss="" # the forward alone has no loss to weigh
bench=${FLCE_BENCH:-build/flce-bench}
py=/usr/bin/python3
case $rounds in '' | *[!0-9]*) echo "cpu_vs_torch.sh: ROUNDS must be a whole number (got '$rounds')" >&2; exit 2 ;; esac
[ -x "$bench" ] || { echo "cpu_vs_torch.sh: $bench not found: build first (scripts/setup.sh)" >&2; exit 2; }
$py -c "import torch, numpy" 2> /dev/null || { echo "cpu_vs_torch.sh: $py lacks torch or numpy (apt-get install python3-torch python3-numpy)" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
isa=$(grep -q avx512f /proc/cpuinfo && echo "AVX-512" || echo "AVX2, no AVX-512")
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
echo "machine: $cpu ($isa), $(nproc) CPUs; batch $batch, ${mode:+evaluation forward only, }${loss:+$loss, }$rounds alternating rounds"
for i in $inputs; do
  : > "$tmp/t.$i"; : > "$tmp/f.$i"; : > "$tmp/p.$i"
  r=0
  while [ $r -lt "$rounds" ]; do
    $py tools/torch_reference.py bench --input "$i" --batch "$batch" --steps 10 --threads 2 $mode 2>&1 |
      sed -n 's/.*: \([0-9.]*\) images\/s.*/\1/p' >> "$tmp/t.$i"
    "$bench" train --backend cpu --input "$i" --batch "$batch" --steps 10 $loss $mode 2>&1 |
      awk '$1 == "cpu" { print $4 > "'"$tmp/f.$i"'.n"; print $6 }' | tr -d '%' >> "$tmp/p.$i"
    cat "$tmp/f.$i.n" >> "$tmp/f.$i"
    r=$((r + 1))
  done
  t=$(median < "$tmp/t.$i"); f=$(median < "$tmp/f.$i"); p=$(median < "$tmp/p.$i")
  printf '%-8s  flce %8.1f images/s (%s%% of the peak measured before each timing)  PyTorch %8.1f images/s  ratio %.2f   rounds: flce %s; PyTorch %s\n' \
    "$i" "$f" "$p" "$t" "$(awk -v a="$f" -v b="$t" 'BEGIN { print a / b }')" \
    "$(tr '\n' ' ' < "$tmp/f.$i" | sed 's/ $//')" "$(tr '\n' ' ' < "$tmp/t.$i" | sed 's/ $//')"
  if [ -n "${FLCE_CSV:-}" ]; then
    [ -s "$FLCE_CSV" ] || echo "machine,input,batch,rounds,flce_images_per_s,torch_images_per_s,ratio,fraction_of_peak" > "$FLCE_CSV"
    echo "\"$cpu ($isa)\",$i,$batch,$rounds,$f,$t,$(awk -v a="$f" -v b="$t" 'BEGIN { printf "%.3f", a / b }'),$p" >> "$FLCE_CSV"
  fi
done
