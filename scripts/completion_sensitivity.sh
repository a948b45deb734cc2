#!/bin/sh
# completion_sensitivity.sh OUT RUN_DIR...: how FLCE's final contributions depend on the
# completion choices the paper leaves open (issue 21), from recorded traces, no retraining.
# For every FLCE run (without ablation) found under the RUN_DIRs (folders holding
# config.json and trace/), `flce eval` evaluates its trace with each variant:
#   auto (the default: rank and mu by 5-fold held-out error), rank 1, 2, 4, 8 (mu 0.01), rank 4
#   with mu 0.001, 0.1, 1, gradient descent (rank 4, mu 0.01), rule (rank min(4, obs/(2(T+n))),
#   mu 0.01: the former default), literal (the paper's equation over all entries, rank 4, mu
#   0.01), none (-CMC): the variants of the report's sensitivity section (apps/report/report_completion.c);
# and records the KL of the contributions to the data shares and, for the masked variants, the
# 5-fold held-out error of the completion (mean over classes). Writes OUT/sensitivity.csv (one
# row per trace and variant) and OUT/sensitivity.md (per partition, IID or Dirichlet: mean and
# 95% interval over the traces (Student t) of both, and how often each variant beat auto).
# The report's section "FLCE's completion: sensitivity" computes the same in-process.
set -eu
[ $# -ge 2 ] || { echo "usage: scripts/completion_sensitivity.sh OUT RUN_DIR..." >&2; exit 2; }
out=$1; shift
flce=${FLCE_BIN:-$(dirname "$0")/../build/flce} # FLCE_BIN: another build of flce
[ -x "$flce" ] || { echo "completion_sensitivity.sh: build first (scripts/setup.sh)" >&2; exit 2; }
for d in "$@"; do [ -d "$d" ] || { echo "completion_sensitivity.sh: $d: no such folder" >&2; exit 2; }; done # (find said it, status 1, after OUT was made)
traces=$(find "$@" -name completion.json -path '*/trace/*' | sort)
[ -n "$traces" ] || { echo "completion_sensitivity.sh: no FLCE trace under $*" >&2; exit 1; }
mkdir -p "$out"
csv=$out/sensitivity.csv
echo "trace,partition,variant,kl,heldout_mse" > "$csv"
for cj in $traces; do
  tr=$(dirname "$cj"); run=$(dirname "$tr")
  # config.json is written with tabs or spaces after the colon (older runs): either is read
  grep -q '"ablate":[[:space:]]*""' "$run/config.json" || continue
  part=$(sed -n 's/.*"partition":[[:space:]]*"\([a-z]*\)".*/\1/p' "$run/config.json")
  [ "$part" = dirichlet ] && part="dirichlet $(sed -n 's/.*"dirichlet":[[:space:]]*\([0-9.e+-]*\),.*/\1/p' "$run/config.json")"
  for v in "auto|--rank auto --mu auto --heldout" "rank 1|--rank 1 --mu 0.01 --heldout" "rank 2|--rank 2 --mu 0.01 --heldout" \
           "rank 4|--rank 4 --mu 0.01 --heldout" "rank 8|--rank 8 --mu 0.01 --heldout" "rank 4 mu 0.001|--rank 4 --mu 0.001 --heldout" \
           "rank 4 mu 0.1|--rank 4 --mu 0.1 --heldout" "rank 4 mu 1|--rank 4 --mu 1 --heldout" \
           "gradient descent|--rank 4 --mu 0.01 --solver gd --heldout" "rule|--rank rule --mu 0.01 --heldout" \
           "literal|--completion literal --rank 4 --mu 0.01" "none|--ablate CMC"; do
    name=${v%%|*}; args=${v#*|}
    log=$("$flce" eval "$tr" --out "$out/tmp" $args 2>&1) || { echo "completion_sensitivity.sh: flce eval $tr $args: $log" >&2; exit 1; }
    kl=$(printf '%s\n' "$log" | sed -n 's/^KL(contributions || data shares) = //p')
    ho=$(printf '%s\n' "$log" | sed -n 's/.*; mean //p')
    echo "$run,$part,$name,$kl,${ho:-}" >> "$csv"
  done
  echo "$run: done" >&2
done
rm -rf "$out/tmp"
awk -F, 'function t95(df) { split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228", T, " "); return df < 1 ? 0 : df <= 10 ? T[df] : 2.0 }
  function ci(s, ss, n) { return n > 1 ? t95(n - 1) * sqrt((ss - s * s / n) / (n - 1)) / sqrt(n) : 0 }
  NR > 1 { k = $2 SUBSEP $3; n[k]++; s[k] += $4; ss[k] += $4 * $4; if ($5 != "") { hn[k]++; h[k] += $5; hh[k] += $5 * $5 }
           if (!($2 in seen)) { seen[$2] = 1; parts[++np] = $2 } if (!($3 in vs)) { vs[$3] = 1; vars[++nv] = $3 }
           kl[$1 SUBSEP $3] = $4; runpart[$1] = $2 }
  END { print "# Completion sensitivity\n\nFinal KL of the contributions to the data shares and the 5-fold held-out error of the completion (mean squared error on observed entries left out, mean over classes), mean ± 95% interval over traces (Student t), per partition; beats auto: traces where the variant'"'"'s KL is lower than auto'"'"'s.\n"
        for (p = 1; p <= np; p++) { P = parts[p]; printf "## %s\n\n| variant | traces | KL | held-out error | beats auto |\n|---|---|---|---|---|\n", P
          for (v = 1; v <= nv; v++) { V = vars[v]; k = P SUBSEP V; if (!(k in n)) continue
            m = s[k] / n[k]; he = hn[k] ? sprintf("%.4f ± %.4f", h[k] / hn[k], ci(h[k], hh[k], hn[k])) : "n/a"
            w = 0; for (r in runpart) if (runpart[r] == P && (r SUBSEP V) in kl && (r SUBSEP "auto") in kl && kl[r SUBSEP V] < kl[r SUBSEP "auto"]) w++
            printf "| %s | %d | %.4f ± %.4f | %s | %d |\n", V, n[k], m, ci(s[k], ss[k], n[k]), he, w }
          print "" } }' "$csv" > "$out/sensitivity.md"
echo "wrote $out/sensitivity.csv and $out/sensitivity.md"
