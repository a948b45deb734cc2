#!/bin/sh
# main_job.sh [OUT]: the project's main job (the last step of scripts/setup.sh): FLCE, FedAvg and
# FedSV on Fashion-MNIST, IID, 20 clients, 5 per round, 15 rounds, learning rate 0.05, seed 1,
# then the report, then what it shows in one sentence. About two to three minutes on a 2-core
# machine. It is the study's `main` configuration (scripts/presets/run.sh main small: seeds 1-3,
# in docs/results/fmnist-small/), with a learning rate five times the paper's and half the
# study's rounds so that the global models pass 70% test accuracy within minutes.
# FLCE_BIN=PATH runs that flce instead of build/flce. OUT defaults to runs/main (replaced).
set -eu
[ $# -le 1 ] || { echo "usage: scripts/main_job.sh [OUT] (got $# arguments)" >&2; exit 2; }
cd "$(dirname "$0")/.."
out=${1:-runs/main}
flce=${FLCE_BIN:-./build/flce}
[ -x "$flce" ] || { echo "main_job.sh: $flce: not built (scripts/setup.sh builds it)" >&2; exit 2; }
echo "main job: FLCE, FedAvg, FedSV on Fashion-MNIST (IID, 20 clients, 5 per round, 15 rounds, lr 0.05, seed 1)"
"$flce" run --algo flce,fedavg,fedsv --dataset fmnist --iid --lr 0.05 --clients 20 --per-round 5 --rounds 15 \
  --train-subset 8000 --test-subset 2000 --val-size 200 --seed 1 --out "$out" --force
"$flce" report "$out" --out "$out/report"

# What it shows: the final global models' test accuracy (the last round's), the methods ordered
# by KL of their contributions to the data shares, and the server's cost; compared with what the
# study found for this configuration over three seeds (the ordering below).
study_order="flce fedavg fedsv" # KL, lowest first: every seed of the study's fmnist-main runs
awk -F, -v out="$out" -v want="$study_order" '
  function final_acc(m,   f, line, a) { f = out "/" m "/metrics.csv"; a = ""
    while ((getline line < f) > 0) { split(line, p, ","); if (p[1] != "round") a = p[2] }
    close(f); return a }
  NR > 1 { n++; name[n] = $1; kl[n] = $4; srv[n] = $6; acc[n] = final_acc($1) }
  END {
    label["flce"] = "FLCE"; label["fedavg"] = "FedAvg"; label["fedsv"] = "FedSV"
    ok = 1; s = ""
    for (i = 1; i <= n; i++) { s = s (i > 1 ? ", " : "") sprintf("%s %.1f%%", label[name[i]], 100 * acc[i]); if (acc[i] < 0.70) ok = 0 }
    for (i = 1; i <= n; i++) o[i] = i
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (kl[o[j]] < kl[o[i]]) { t = o[i]; o[i] = o[j]; o[j] = t }
    got = ""; k = ""
    for (i = 1; i <= n; i++) { got = got (i > 1 ? " " : "") name[o[i]]; k = k (i > 1 ? " < " : "") sprintf("%s %.3f", label[name[o[i]]], kl[o[i]]) }
    c = ""
    for (i = 1; i <= n; i++) c = c (i > 1 ? ", " : "") sprintf("%s %.2f s", label[name[i]], srv[i])
    printf "main job: final global models %s test accuracy%s; KL of the contributions to the data shares %s; server time %s.\n", s,
      ok ? "" : " (BELOW the 70% this configuration was chosen for)", k, c
    if (got == want)
      print "main job: each of the study'"'"'s three seeds of this configuration gives this ordering (with three seeds the paired interval of FLCE minus FedAvg still contains 0); on non-IID data FedAvg'"'"'s cosine rule was closer to the data shares than FLCE: at Dirichlet 0.5 on 4 of 5 seeds, at 0.1 and 0.3 on every seed: docs/findings.md and docs/results/fmnist-small/."
    else
      print "main job: this ordering (" got ") differs from the one the study found for this configuration (" want "): docs/results/fmnist-small/"
  }' "$out/summary.csv"
