#!/bin/sh
# run.sh EXPERIMENT SCALE [OUT]: one experiment of the FLCE paper, ending in a report.
#   EXPERIMENT: normal | ablation | classweights | heterogeneity | noise | main | moreseeds | cost | all
#               | readings | horizon  (issue 30's, small scale only, not part of `all`; their plan,
#               seeds included, is in docs/decisions.md: readings seeds 101-105, horizon 201-203)
#               | truth  (issue 63's ground-truth study: every coalition of 6 clients retrained with
#               flce truth, every method on the same federations; small scale only, not part of
#               `all`; seeds 401-403; its plan in docs/decisions.md, "The ground-truth study")
#               | released  (issue 62's: the text, the authors' released code, and the text plus
#               each departure alone; small scale only, not part of `all`; seeds 301-303; its plan
#               in docs/decisions.md, "The study under the released code")
#   (moreseeds: seeds 4 and 5 of the normal configurations for FLCE, FedAvg and FedSV only, beside
#   the normal experiment's seeds 1-3 of all eleven methods: five seeds where the paper's headline
#   comparison is, FLCE's KL against FedAvg's cosine rule; not part of `all`)
#   (main: the main job's configuration, FLCE, FedAvg and FedSV on IID data with lr 0.05 for 15
#   rounds (small scale only: scripts/main_job.sh runs its seed 1), so that the study's report
#   holds the main job's configuration over seeds)
#   SCALE:      small  (Fashion-MNIST, 20 clients, 5 per round, 30 rounds: minutes to an hour
#                       on a 2-core machine; truth: 6 clients, 10 rounds, its plan's)
#               paper  (50 clients, 10 per round, 1,000 rounds; CIFAR-10, CIFAR-100, EuroSAT
#                       from $FLCE_DATA/{cifar10,cifar100,eurosat}: for a machine with a GPU)
# Results go to OUT (default runs/<experiment>-<scale>); OUT/report/report.html at the end.
# FLCE_PRESET_ROUNDS=N overrides the rounds (a quick smoke test of a preset).
# FLCE_PRESET_SUBSET=N overrides the training subset (with the test subset and validation set
# scaled down alike, but for truth, which keeps them: a smoke test on little data; small scale only).
# FLCE_BIN=PATH runs that flce (and the flce-bench beside it) instead of build/flce.
# FLCE_PRESET_ABLATION_BASE=0: the ablation alone without FLCE itself (when the normal
# experiment's runs of the same configurations are in OUT already).
# FLCE_PRESET_DIRICHLETS="0.1 0.3 1 5": the heterogeneity sweep's parameters (default 0.1 0.3 0.5
# 1 5; the normal experiment's non-IID runs are the 0.5 point when they are in OUT).
# FLCE_PRESET_REPORT=0: no report at the end (the study makes one report over all experiments).
# FLCE_PRESET_PARTS="iid noniid": the studies only: only these of their configurations (readings:
# iid noniid dir0.1 qskew; horizon: iid noniid; released: iid noniid noise; truth: qskew label
# noisy dup), to split them over two streams.
# FLCE_PRESET_SEEDS=N runs every configuration with seeds 1..N (default 3 at small scale, 1 at
# paper scale; the studies count from their own first seed: readings 101 (default 5), horizon
# 201, released 301, truth 401), the seeds of one configuration before the next, each into OUT/NAME-sSEED; the
# report groups them (means, confidence intervals, paired differences).
set -eu
cd "$(dirname "$0")/../.."
exp=${1:-}; scale=${2:-}
# a fourth word (`run.sh main small OUT --seeds 5`) was ignored: the run went ahead without it
[ $# -le 3 ] || { echo "run.sh: $# arguments; EXPERIMENT SCALE [OUT] only (settings go in FLCE_PRESET_* variables, above)" >&2; exit 2; }
case "$exp" in normal|ablation|classweights|heterogeneity|noise|main|moreseeds|cost|all|readings|horizon|released|truth) ;; *)
  echo "usage: scripts/presets/run.sh normal|ablation|classweights|heterogeneity|noise|main|moreseeds|cost|all|readings|horizon|released|truth small|paper [OUT]" >&2; exit 2;; esac
case "$exp:$scale" in readings:paper|horizon:paper|released:paper|truth:paper) echo "run.sh: $exp runs at small scale only" >&2; exit 2;; esac
case "$scale" in small|paper) ;; *) echo "run.sh: SCALE must be small or paper" >&2; exit 2;; esac
# FLCE_PRESET_PARTS: each word a configuration of the experiment (a misspelt one ran nothing, status 0)
if [ -n "${FLCE_PRESET_PARTS+x}" ]; then
  case "$exp" in readings) allowed="iid noniid dir0.1 qskew";; horizon) allowed="iid noniid";; released) allowed="iid noniid noise";;
    truth) allowed="qskew label noisy dup";; *) allowed="";; esac
  [ -n "$allowed" ] || { echo "run.sh: FLCE_PRESET_PARTS applies to readings, horizon, released and truth only, not $exp" >&2; exit 2; }
  [ -n "$(echo $FLCE_PRESET_PARTS)" ] || { echo "run.sh: FLCE_PRESET_PARTS is empty: name some of $allowed" >&2; exit 2; }
  for w in $FLCE_PRESET_PARTS; do
    case " $allowed " in *" $w "*) ;; *) echo "run.sh: FLCE_PRESET_PARTS '$w': not one of $exp's configurations ($allowed)" >&2; exit 2;; esac
  done
fi
out=${3:-runs/$exp-$scale}
flce=${FLCE_BIN:-./build/flce}  # FLCE_BIN: another build of flce (a copy kept still while build/ changes)
[ -x "$flce" ] || { echo "run.sh: build first (scripts/setup.sh)" >&2; exit 2; }
if [ "$scale" = small ]; then
  datasets="fmnist"
  common="--clients 20 --per-round 5 --rounds 30 --train-subset 8000 --test-subset 2000 --val-size 200"
  seeds=${FLCE_PRESET_SEEDS:-3}
else
  data=${FLCE_DATA:-/data}
  datasets="cifar10 cifar100 eurosat"
  common="--clients 50 --per-round 10 --rounds 1000"
  seeds=${FLCE_PRESET_SEEDS:-1}
fi
case "${FLCE_PRESET_ROUNDS:-1}" in *[!0-9]*|0*) echo "run.sh: FLCE_PRESET_ROUNDS '$FLCE_PRESET_ROUNDS': a whole number of rounds >= 1" >&2; exit 2;; esac
[ -n "${FLCE_PRESET_ROUNDS:-}" ] && common=$(echo "$common" | sed "s/--rounds [0-9]*/--rounds $FLCE_PRESET_ROUNDS/")
if [ -n "${FLCE_PRESET_SUBSET:-}" ] && [ "$scale" = small ]; then
  case "$FLCE_PRESET_SUBSET" in ''|*[!0-9]*) echo "run.sh: FLCE_PRESET_SUBSET '$FLCE_PRESET_SUBSET': a number of images" >&2; exit 2;; esac
  common=$(echo "$common" | sed "s/--train-subset [0-9]*/--train-subset $FLCE_PRESET_SUBSET/; s/--test-subset [0-9]*/--test-subset $((FLCE_PRESET_SUBSET / 4 + 20))/; s/--val-size [0-9]*/--val-size $((FLCE_PRESET_SUBSET / 40 + 10))/")
fi
data_flag() { [ "$1" = fmnist ] && echo "" || echo "--data ${FLCE_DATA:-/data}/$1"; }
reports=""
case "$seeds" in ''|*[!0-9]*|0) echo "run.sh: FLCE_PRESET_SEEDS must be a whole number >= 1" >&2; exit 2;; esac
first=1 # the first seed of run(): 1, or 4 for moreseeds
run() { # run NAME ARGS...: the configuration with every seed, into $out/NAME-sSEED (continued when interrupted)
  base=$1; shift
  s=$first
  while [ "$s" -le "$seeds" ]; do
    name=$base-s$s
    if [ -f "$out/$name/digests.txt" ] || [ -f "$out/$name/summary.csv" ]; then echo "$name: done already"
    elif [ -f "$out/$name/state.bin" ] || [ -f "$out/$name/config.json" ] || ls "$out/$name"/*/state.bin > /dev/null 2>&1; then
      "$flce" run "$@" $common --seed "$s" --out "$out/$name" --resume
    else "$flce" run "$@" $common --seed "$s" --out "$out/$name" --force; fi
    reports="$reports $out/$name"
    s=$((s + 1))
  done
}
for ds in $datasets; do
  df=$(data_flag "$ds")
  case "$exp" in normal|all)
    run "$ds-noniid" --algo all --dataset "$ds" $df --dirichlet 0.5
    run "$ds-iid" --algo all --dataset "$ds" $df --iid ;; esac
  case "$exp" in moreseeds)
    first=$((seeds + 1)); keep=$seeds; seeds=$((seeds + 2))
    run "$ds-noniid" --algo flce,fedavg,fedsv --dataset "$ds" $df --dirichlet 0.5
    run "$ds-iid" --algo flce,fedavg,fedsv --dataset "$ds" $df --iid
    first=1; seeds=$keep ;; esac
  case "$exp" in ablation|all)
    # non-IID and IID; FLCE itself is the normal experiment's run of the same configuration
    # (run here only when the ablation runs alone)
    for part in "noniid:--dirichlet 0.5" "iid:--iid"; do
      tag=${part%%:*}; flag=${part#*:}
      [ "$exp" = ablation ] && [ "${FLCE_PRESET_ABLATION_BASE:-1}" = 1 ] && run "$ds-$tag-flce" --algo flce --dataset "$ds" $df $flag
      for v in M V Q CL CMC; do run "$ds-$tag-flce-no$v" --algo flce --ablate "$v" --dataset "$ds" $df $flag; done
    done ;; esac
  case "$exp" in classweights|all)
    classes=10; [ "$ds" = cifar100 ] && classes=100
    awk -v c="$classes" 'BEGIN { for (i = 0; i < c; i++) printf "%s%s", (i ? "," : ""), (i < c / 2 ? 2 : 1); print "" }' > "${TMPDIR:-/tmp}/cw$$"
    run "$ds-classweights" --algo flce --dataset "$ds" $df --dirichlet 0.5 --class-weights "${TMPDIR:-/tmp}/cw$$" ;; esac
  case "$exp" in heterogeneity|all)
    for d in ${FLCE_PRESET_DIRICHLETS:-0.1 0.3 0.5 1 5}; do run "$ds-dir$d" --algo flce,fedavg,fedsv --dataset "$ds" $df --dirichlet "$d"; done ;; esac
  case "$exp" in main|all)
    # the main job's configuration (scripts/main_job.sh; small scale only): a learning rate five
    # times the paper's and half the rounds, so that the global models pass 70% test accuracy
    # within minutes
    if [ "$scale" = small ]; then
      keep=$common; [ -n "${FLCE_PRESET_ROUNDS:-}" ] || common=$(echo "$common" | sed "s/--rounds [0-9]*/--rounds 15/")
      run "$ds-main" --algo flce,fedavg,fedsv --dataset "$ds" $df --iid --lr 0.05
      common=$keep
    fi ;; esac
  case "$exp" in readings)
    # every reading the paper leaves open (docs/decisions.md, issue 30): FLCE (correct) with the
    # cosine-rule baselines in one folder (each records all four readings of the rule), FLCE
    # (all) in a second; seeds 101-105
    first=101; keep=$seeds; seeds=$((100 + ${FLCE_PRESET_SEEDS:-5}))
    for part in "iid:--iid" "noniid:--dirichlet 0.5" "dir0.1:--dirichlet 0.1" "qskew:--quantity-skew 0.5"; do
      tag=${part%%:*}; flag=${part#*:}
      case " ${FLCE_PRESET_PARTS:-iid noniid dir0.1 qskew} " in *" $tag "*) ;; *) continue;; esac
      run "$ds-readings-$tag" --algo flce,fedavg,fedprox,fedfv --dataset "$ds" $df $flag
      run "$ds-readings-$tag-flceall" --algo flce --proto-samples all --dataset "$ds" $df $flag
    done
    first=1; seeds=$keep ;; esac
  case "$exp" in horizon)
    # 200 rounds (docs/decisions.md, issue 30): FLCE (correct, all), FedAvg, FedFV; seeds 201-203
    first=201; keep=$seeds; seeds=$((200 + ${FLCE_PRESET_SEEDS:-3})); keepc=$common
    [ -n "${FLCE_PRESET_ROUNDS:-}" ] || common=$(echo "$common" | sed "s/--rounds [0-9]*/--rounds 200/")
    for part in "iid:--iid" "noniid:--dirichlet 0.5"; do
      tag=${part%%:*}; flag=${part#*:}
      case " ${FLCE_PRESET_PARTS:-iid noniid} " in *" $tag "*) ;; *) continue;; esac
      run "$ds-horizon-$tag" --algo flce,fedavg,fedfv --dataset "$ds" $df $flag
      run "$ds-horizon-$tag-flceall" --algo flce --proto-samples all --dataset "$ds" $df $flag
    done
    first=1; seeds=$keep; common=$keepc ;; esac
  case "$exp" in released)
    # issue 62 (docs/decisions.md, "The study under the released code"): per configuration (a) the
    # text, (b) every departure as released, (c) the text plus each training-side departure alone;
    # the evaluation-side ones (velocity, absent classes, no completion, the first-sample
    # prototypes) on (a)'s traces with flce eval (scripts/released_eval.sh, run by study_pack.sh),
    # and the baselines' L2 rule from their own contributions_rules.csv. Seeds 301-303.
    first=301; keep=$seeds; seeds=$((300 + ${FLCE_PRESET_SEEDS:-3}))
    local_rel="--local-steps 50 --momentum 0.9 --weight-decay 1e-5 --clip-norm 100"
    for part in "iid:--iid" "noniid:--dirichlet 0.5" "noise:--dirichlet 0.5 --label-noise 0.3 --noisy-clients 0.4"; do
      tag=${part%%:*}; flag=${part#*:}
      case " ${FLCE_PRESET_PARTS:-iid noniid noise} " in *" $tag "*) ;; *) continue;; esac
      run "$ds-rel-$tag-text" --algo flce,fedavg,fedsv --dataset "$ds" $df $flag
      if [ "$tag" = noise ]; then # the released code's noise: the last 40% of clients, every label (y + 1) mod C
        run "$ds-rel-$tag-released" --algo flce,fedavg,fedsv --dataset "$ds" $df --dirichlet 0.5 --label-noise 1 --noisy-clients 0.4 --as-released
        run "$ds-rel-$tag-noisecode" --algo flce,fedavg,fedsv --dataset "$ds" $df --dirichlet 0.5 --label-noise 1 --noisy-clients 0.4 \
          --noisy-choice last --label-noise-map next
      else run "$ds-rel-$tag-released" --algo flce,fedavg,fedsv --dataset "$ds" $df $flag --as-released; fi
      run "$ds-rel-$tag-first" --algo flce --proto-samples first --dataset "$ds" $df $flag
      run "$ds-rel-$tag-sweep" --algo flce --schedule sweep --dataset "$ds" $df $flag
      run "$ds-rel-$tag-initial" --algo flce --initial-prototypes initial-model --dataset "$ds" $df $flag
      run "$ds-rel-$tag-fedsvrel" --algo fedsv --schedule window --players drawn --utility-set test --next-model best --dataset "$ds" $df $flag
      run "$ds-rel-$tag-localtrain" --algo flce,fedavg $local_rel --dataset "$ds" $df $flag
      run "$ds-rel-$tag-clscale" --algo flce --cl-scale tau --dataset "$ds" $df $flag
      run "$ds-rel-$tag-mean" --algo fedavg,fedsv --aggregation mean --dataset "$ds" $df $flag
      [ "$tag" = iid ] || run "$ds-rel-$tag-balance" --algo flce,fedavg,fedsv --dirichlet-balance --dataset "$ds" $df $flag
    done
    first=1; seeds=$keep ;; esac
  case "$exp" in truth)
    # issue 63 (docs/decisions.md, "The ground-truth study"): per configuration and seed, the
    # truth with K = 3 of a coalition a round (two truth seeds for label skew: the truth's own
    # spread), every method on the same federation; then the same with full participation
    # (FLCE_PRESET_TRUTH_FULL=0 leaves that arm out). Seeds 401-403 (FLCE_PRESET_SEEDS=10: to 410,
    # the extension; scripts/truth_extend.sh runs it seed by seed). FLCE_PRESET_TRUTH_JOBS: flce
    # truth --jobs (default 1).
    first=401; keep=$seeds; seeds=$((400 + ${FLCE_PRESET_SEEDS:-3})); keepc=$common
    tcommon="--clients 6 --rounds ${FLCE_PRESET_ROUNDS:-10} --train-subset ${FLCE_PRESET_SUBSET:-900} --test-subset 1000 --val-size 60 --batch 32 --lr 0.05"
    truth() { # truth NAME ARGS...: flce truth into $out/NAME (continued when interrupted)
      tn=$1; shift
      if [ -f "$out/$tn/values.csv" ]; then echo "$tn: done already"
      elif [ -f "$out/$tn/truth.json" ]; then "$flce" truth "$@" --jobs "${FLCE_PRESET_TRUTH_JOBS:-1}" --out "$out/$tn" --resume
      else "$flce" truth "$@" --jobs "${FLCE_PRESET_TRUTH_JOBS:-1}" --out "$out/$tn" --force; fi
    }
    for arm in k full; do
      [ "$arm" = full ] && [ "${FLCE_PRESET_TRUTH_FULL:-1}" = 0 ] && continue
      for part in "qskew:--quantity-skew 1" "label:--dirichlet 0.5" "noisy:--iid --label-noise 0.8 --noisy-clients 0.34" "dup:--iid --duplicate 0:1"; do
        tag=${part%%:*}; flag=${part#*:}
        case " ${FLCE_PRESET_PARTS:-qskew label noisy dup} " in *" $tag "*) ;; *) continue;; esac
        ts=$first # not s: run() walks its seeds in s (the loop once skipped seed 402)
        while [ "$ts" -le "$seeds" ]; do
          # two truth seeds: label skew's in arm k (the original plan), and from seed 404 on every
          # configuration's in arm k (the ten-seed extension, docs/results/fmnist-truth/PLAN.md)
          R=1; [ "$arm" = k ] && { [ "$tag" = label ] || [ "$ts" -ge 404 ]; } && R=2
          if [ "$arm" = k ]; then
            truth "$ds-truth-$tag-k-s$ts" --dataset "$ds" $df $tcommon --per-round 3 $flag --seed "$ts" --truth-seeds "$R"
            common="$tcommon --per-round 3"
          else
            truth "$ds-truth-$tag-full-s$ts" --dataset "$ds" $df $tcommon --per-round 6 $flag --seed "$ts" --participation full
            common="$tcommon --per-round 6"
          fi
          keepf=$first; keeps=$seeds; first=$ts; seeds=$ts
          run "$ds-truth-$tag-$arm-runs" --algo all --dataset "$ds" $df $flag
          first=$keepf; seeds=$keeps; common=$keepc
          ts=$((ts + 1))
        done
      done
    done
    first=1; seeds=$keep; common=$keepc ;; esac
  case "$exp" in noise|all)
    # small scale: non-IID and the methods the claims need (FLCE, FedAvg, CGSV, FedSV): all eleven
    # on both partitions would take about five hours of a 2-core machine at three seeds
    if [ "$scale" = small ]; then parts="--dirichlet 0.5"; nalgo="flce,fedavg,cgsv,fedsv"; else parts="--iid|--dirichlet 0.5"; nalgo=all; fi
    echo "$parts" | tr '|' '\n' | while read -r p; do
      tag=$( [ "$p" = "--iid" ] && echo iid || echo noniid )
      run "$ds-$tag-feature" --algo "$nalgo" --dataset "$ds" $df $p --feature-noise 0.5 --noisy-clients 0.3
      run "$ds-$tag-label" --algo "$nalgo" --dataset "$ds" $df $p --label-noise 0.3 --noisy-clients 0.3
      run "$ds-$tag-both" --algo "$nalgo" --dataset "$ds" $df $p --feature-noise 0.5 --label-noise 0.3 --noisy-clients 0.3
    done ;; esac
done
case "$exp" in cost|all)
  mkdir -p "$out"
  q=""; [ "$scale" = small ] && q="--quick"
  "$(dirname "$flce")/flce-bench" server $q --csv "$out/server.csv" --plot "$out/server-figures" ;; esac
# (a folder that is no run, such as OUT/report, must not end the loop with a failure: set -e)
# (and the truth folders of flce truth that are finished: their values.csv written; the report
# judges the runs of each one's federation against it)
all_runs=$(ls -d "$out"/*/ 2>/dev/null | while read -r d; do
  if [ -f "$d/config.json" ] || [ -f "$d/summary.csv" ]; then echo "${d%/}"
  elif [ -f "$d/truth.json" ]; then
    if [ -f "$d/values.csv" ]; then echo "${d%/}"; else echo "run.sh: ${d%/}: the truth is not finished (no values.csv); left out of the report" >&2; fi
  fi; done)
if [ "${FLCE_PRESET_REPORT:-1}" = 0 ]; then echo "results: $out (no report: FLCE_PRESET_REPORT=0)"; exit 0; fi
[ -n "$all_runs" ] && "$flce" report $all_runs --out "$out/report"
echo "results: $out"
