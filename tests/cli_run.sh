#!/bin/sh
# cli_run.sh FLCE: `flce run` on tiny Fashion-MNIST configurations: the same command twice
# gives identical digests.txt, so does the reference backend; `flce eval DIR/trace`
# reproduces contributions.csv exactly; a run killed after round 1 and resumed ends with
# the digests of an uninterrupted run; bad configurations are one line and status 2
# before any work; a directory holding a run is never overwritten without --force.
# PART 1 checks the runs, flce eval on their traces, kills and resumes, every method, the report,
# the usage errors and the released rules of FLCE (issue 62); PART 2 the rest (FedSV, training and
# selection as released, the methods' settings, the completion's flags, --members, --seeds, FLCE_BACKEND
# and auto, the report's folders, the diverging runs), each after the same two runs: two ctest entries
# (cli_run_1, cli_run_2) of under 2 minutes under the sanitizers rather than one of 3.5 (204 s on a
# Zen 5; CI's machines have taken up to 1.3 times as long, and a test must stay under 5 minutes).
set -u
flce=${1:-}; part=${2:-}
PROG=$flce
. "$(dirname "$0")/lib.sh"
case "$part" in 1|2) ;; *) fail "usage: cli_run.sh FLCE 1|2 (got '$part')";; esac
t=$(mktemp -d /tmp/flce-run-XXXXXX); trap 'rm -rf "$t"' EXIT
base="--clients 4 --train-subset 300 --test-subset 60 --val-size 20 --batch 16 --seed 3 --quiet"
tiny="$base --per-round 2 --rounds 2"
"$flce" run --algo flce $tiny --out "$t/a" > "$t/log" || fail "flce run: $(cat "$t/log")"
"$flce" run --algo flce $tiny --out "$t/b" > /dev/null || fail "second run"
cmp -s "$t/a/digests.txt" "$t/b/digests.txt" || fail "two runs of one command differ: $(diff "$t/a/digests.txt" "$t/b/digests.txt")"

if [ "$part" = 1 ]; then
# the scalar reference backend is slow: one round of two IID clients of 10 images each (a full
# batch of 8 and a partial one of 2) and 8 test images, against the same on the CPU backend
# (300 images took 2.5 minutes in the sanitizer build, 100 images 50 s)
small="--iid --clients 2 --train-subset 30 --test-subset 8 --val-size 10 --batch 8 --seed 3 --quiet"
"$flce" run --algo flce $small --per-round 2 --rounds 1 --out "$t/c1" > /dev/null || fail "cpu run, 1 round"
"$flce" run --algo flce $small --per-round 2 --rounds 1 --out "$t/r1" --backend reference > /dev/null || fail "reference run"
cmp -s "$t/c1/digests.txt" "$t/r1/digests.txt" || fail "reference and cpu backends differ"
grep -q '^flce ' "$t/log" || fail "no summary row"
for f in config.json metrics.csv contributions.csv model.safetensors digests.txt trace/prototypes.npy trace/selected.npy \
         trace/data_sizes.npy trace/Q.npy trace/X_completed.npy; do
  [ -f "$t/a/$f" ] || fail "missing $f"
done
[ "$(wc -l < "$t/a/metrics.csv")" = 3 ] || fail "metrics.csv should have a header and 2 rows"
awk -F, 'NR>1 { s += $2 } END { d = s - 1; if (d < 0) d = -d; exit d > 1e-12 }' "$t/a/contributions.csv" || fail "contributions do not sum to 1"
mkdir "$t/ev"
"$flce" eval "$t/a/trace" --out "$t/ev" > /dev/null || fail "flce eval on the run's trace"
cmp -s "$t/ev/contributions.csv" "$t/a/contributions.csv" || fail "flce eval does not reproduce the run's contributions"
# a run's own record is never replaced by an evaluation: not its folder, not its trace folder,
# refused before any work; the run's files stay those of its twin $t/b. The default --out is the
# trace's new sibling RUN/trace-eval (it was the trace folder: refused, a usage error of the
# default), said at the end; `flce eval RUN` points at RUN/trace
expect 2 "a run folder" eval "$t/a/trace" --out "$t/a" --ablate CMC
expect 2 "the trace folder it reads" eval "$t/a/trace" --out "$t/a/trace" --ablate M
"$flce" eval "$t/a/trace" --ablate M > "$t/evm.log" 2>&1 || fail "flce eval RUN/trace with its default --out: $(cat "$t/evm.log")"
tail -1 "$t/evm.log" | grep -qF "wrote $t/a/trace-eval/contributions.csv" && [ -f "$t/a/trace-eval/completion_eval.json" ] ||
  fail "the default --out of a run's trace: $(tail -1 "$t/evm.log")"
rm -r "$t/a/trace-eval"
expect 2 "$t/a: a run folder; its trace is $t/a/trace (flce eval $t/a/trace)" eval "$t/a"
# a folder of several methods' runs (summary.csv beside them): the message names a run's trace
mkdir -p "$t/multi/fedavg" && cp -r "$t/a" "$t/multi/flce" && echo "method" > "$t/multi/summary.csv"
expect 2 "$t/multi: a folder of several runs; a run's trace is $t/multi/METHOD/trace (flce eval $t/multi/flce/trace)" eval "$t/multi"
for f in contributions.csv trace/Q.npy trace/X_completed.npy; do cmp -s "$t/a/$f" "$t/b/$f" || fail "a refused flce eval changed the run's $f"; done
[ -e "$t/a/trace/contributions.csv" ] || [ -e "$t/a/completion_eval.json" ] && fail "a refused flce eval wrote into the run"
mkdir "$t/theirs-ev" && echo "client,contribution" > "$t/theirs-ev/contributions.csv"
expect 2 "holds a contributions.csv that no flce eval wrote" eval "$t/a/trace" --out "$t/theirs-ev"
"$flce" eval "$t/a/trace" --out "$t/ev" > /dev/null || fail "flce eval again into its own earlier output"
# a run with the completion chosen by held-out error: its trace records the settings and the
# choices, and flce eval on the trace reproduces it without being told
"$flce" run --algo flce $tiny --rank auto --mu auto --out "$t/auto" > /dev/null || fail "flce run --rank auto --mu auto"
json_has "$t/auto/trace/completion.json" '"rank":"auto","mu":"auto"' || fail "completion.json lacks the auto settings"
json_has "$t/auto/trace/completion.json" '"heldout_mse"' || fail "completion.json lacks the held-out errors"
json_has "$t/auto/config.json" '"rank":"auto"' || fail "config.json lacks the completion settings"
"$flce" eval "$t/auto/trace" --out "$t/ev-auto" > /dev/null || fail "flce eval on the auto run's trace"
cmp -s "$t/ev-auto/contributions.csv" "$t/auto/contributions.csv" || fail "flce eval does not reproduce the auto run"
expect 2 "--rank 0" run --algo flce $tiny --rank 0 --out "$t/x"
# the flush-to-zero mode: recorded in config.json and device.txt, kept by a resume
"$flce" run --algo fedavg $tiny --backend cpu --denormals ftz --out "$t/ftz" > /dev/null 2>&1 || fail "flce run --denormals ftz"
json_has "$t/ftz/config.json" '"denormals":"ftz"' || fail "config.json does not record denormals ftz"
grep -q '^denormals ftz$' "$t/ftz/device.txt" || fail "device.txt does not record denormals ftz"
json_has "$t/a/config.json" '"denormals":"preserve"' || fail "config.json does not record denormals preserve"
expect 2 "settings differ" run --algo fedavg $tiny --backend cpu --denormals preserve --out "$t/ftz" --resume
expect 2 "--completion 'exact'" run --algo flce $tiny --completion exact --out "$t/x"
expect 2 "apply to FLCE only" run --algo fedavg $tiny --rank auto --out "$t/x"
echo "1 1 1 1 1 1 1 1 1 2" > "$t/cw10" # class weights are FLCE's b_c: a FedAvg run took them without a word
expect 2 "apply to FLCE only" run --algo fedavg $tiny --class-weights "$t/cw10" --out "$t/x"
# kill after round 1 (as SIGKILL would), check the files are valid, resume
FLCE_TEST_KILL_AFTER=1 "$flce" run --algo flce $tiny --out "$t/k" > /dev/null 2>&1
[ $? = 137 ] || fail "the kill hook did not fire"
[ "$(wc -l < "$t/k/metrics.csv")" = 2 ] || fail "a killed run should keep 1 round of metrics"
"$flce" eval "$t/k/trace" --out "$t/ev" --rounds 1 > /dev/null || fail "the trace of a killed run is not valid for its round done"
"$flce" run --algo flce $tiny --out "$t/k" --resume > /dev/null || fail "resume"
cmp -s "$t/a/digests.txt" "$t/k/digests.txt" || fail "resumed run differs: $(diff "$t/a/digests.txt" "$t/k/digests.txt")"
# --resume with a setting recorded there and not given now (a truth's coalition of another train
# seed): the message names the field (it said "(the members)")
FLCE_TEST_KILL_AFTER=1 "$flce" run --algo fedavg $tiny --backend cpu --train-seed 2 --out "$t/ts" > /dev/null 2>&1
[ $? = 137 ] || fail "the kill hook did not fire (--train-seed 2)"
expect 2 "the settings differ from those of the run in $t/ts (train_seed: recorded there, not set now;" run --algo fedavg $tiny --backend cpu --out "$t/ts" --resume
expect 2 "the settings differ from those of the run in $t/ts (train_seed;" run --algo fedavg $tiny --backend cpu --train-seed 3 --out "$t/ts" --resume
# several methods killed in the first one, then resumed: the second starts, both match
FLCE_TEST_KILL_AFTER=1 "$flce" run --algo flce,fedavg $tiny --out "$t/km" > /dev/null 2>&1
"$flce" run --algo flce,fedavg $tiny --out "$t/km" --resume > /dev/null || fail "resume of several methods"
cmp -s "$t/a/digests.txt" "$t/km/flce/digests.txt" || fail "resumed multi-method run differs"
# every method on one partition (120 training images: the eleven methods' training was half of
# this test's time in the sanitizer build), each contribution vector a distribution
"$flce" run --algo all --clients 4 --per-round 2 --rounds 2 --train-subset 120 --test-subset 40 --val-size 10 \
  --batch 16 --seed 3 --quiet --out "$t/nested/m" > /dev/null || fail "all methods"
for a in flce fedavg fedprox ditto moon fedfv cgsv qfedavg fedfa fedsv gtg; do
  awk -F, 'NR>1 { s += $2; if ($2 < 0) exit 1 } END { d = s - 1; if (d < 0) d = -d; exit d > 1e-12 }' "$t/nested/m/$a/contributions.csv" || fail "$a: not a distribution"
  [ "$(sed -n 1p "$t/nested/m/$a/digests.txt")" = "$(sed -n 1p "$t/nested/m/flce/digests.txt")" ] || fail "$a: another partition"
done
[ "$(sed -n 1p "$t/nested/m/flce/digests.txt")" = "$(sed -n 1p "$t/a/digests.txt")" ] && fail "120 and 300 images gave one partition digest"
[ -f "$t/nested/m/summary.csv" ] || fail "no summary.csv"

# the report of these runs (13: more than 12, so no figure of every run): the report's figures
# and tables, the runs' page, and the repeat (a, b) recognised as bit-identical
"$flce" report "$t/a" "$t/b" "$t/nested/m" --out "$t/rep" > /dev/null || fail "flce report"
for f in report.html report.md runs.html runs.md forest.png forest.svg conf01_rounds.png conf01_rounds.svg server_cost.png; do
  [ -s "$t/rep/$f" ] || fail "report: missing $f"
done
grep -q "identical, bit for bit" "$t/rep/runs.md" || fail "report: the repeated run was not recognised"
grep -q "<img class='rounds' src='conf01_rounds.svg'" "$t/rep/report.html" || fail "report.html does not show its figures"
grep -q "<img src='forest.svg'" "$t/rep/report.html" || fail "report.html does not show the claims' forest plot"
grep -q "| gtg |" "$t/rep/runs.md" || fail "report: a method row is missing"
grep -q "## Distance to the canonical Shapley value" "$t/rep/runs.md" || fail "report: no distance to Shapley"
grep -q "## Class contributions" "$t/rep/runs.md" || fail "report: no class contributions"

expect 2 "unknown option '--bogus'" run --algo flce --seed 1 --out "$t/x" --bogus
expect 2 "--per-round 9 exceeds --clients 4" run --algo flce $base --per-round 9 --out "$t/x"
expect 2 "--dirichlet 0" run --algo flce $tiny --dirichlet 0 --out "$t/x"
expect 2 "--train-subset 99999" run --algo flce --clients 4 --per-round 2 --seed 1 --train-subset 99999 --out "$t/x"
mkdir "$t/empty"
expect 2 "no CIFAR-10 binary files" run --algo flce $tiny --dataset cifar10 --data "$t/empty" --out "$t/x"
echo "1 2 3" > "$t/cw"
expect 2 "3 weights, expected 10" run --algo flce $tiny --class-weights "$t/cw" --out "$t/x"
expect 2 "already holds a run" run --algo flce $tiny --out "$t/a"
# an output the run cannot write is said before the data are read (issue 61): a folder where
# model.safetensors goes (it once stopped the run after its last round, status 0 with --force and
# the model unwritten), with training images truncated, which only reading them finds
mkdir "$t/dmg" && cp /usr/share/datasets/fashion-mnist/*-ubyte.gz "$t/dmg/" &&
  head -c 1000 "$t/dmg/train-images-idx3-ubyte.gz" > "$t/dmg/x" && mv "$t/dmg/x" "$t/dmg/train-images-idx3-ubyte.gz" || fail "damaged data"
expect 1 "train-images-idx3-ubyte.gz: truncated" run --algo flce $tiny --data "$t/dmg" --out "$t/dmg-run"
cp -a "$t/a" "$t/blk" && rm "$t/blk/model.safetensors" && mkdir -p "$t/blk/model.safetensors/mine" || fail "plant a folder"
expect 1 "$t/blk/model.safetensors: cannot replace: a folder, not a file" run --algo flce $tiny --data "$t/dmg" --out "$t/blk" --force
[ -d "$t/blk/model.safetensors/mine" ] && cmp -s "$t/a/digests.txt" "$t/blk/digests.txt" || fail "a refused --force changed the folder"
rm -r "$t/blk/trace" && : > "$t/blk/trace" && rm -r "$t/blk/model.safetensors" || fail "plant a file"
expect 1 "$t/blk/trace: a file where the trace folder goes" run --algo flce $tiny --data "$t/dmg" --out "$t/blk" --force
# the round's equations as the authors' released code computes them (issue 62): FLCE's settings
# --velocity distance and --absent-class forget, recorded in config.json and the trace's
# completion.json, change the training (other digests than the text's on the same seed), and
# flce eval on the trace reproduces the run's contributions from what it recorded
rel="--clients 4 --per-round 3 --rounds 3 --train-subset 600 --test-subset 60 --val-size 20 --batch 16 --seed 3 --quiet --lr 0.05"
"$flce" run --algo flce $rel --out "$t/rel-text" > /dev/null 2>&1 || fail "flce run (the text's rules)"
"$flce" run --algo flce $rel --velocity distance --absent-class forget --out "$t/rel" > /dev/null 2>&1 || fail "flce run --velocity distance --absent-class forget"
json_has "$t/rel/config.json" '"velocity":"distance","absent_class":"forget"' || fail "config.json lacks the rules"
grep -q '"velocity"\|"absent_class"' "$t/rel-text/config.json" && fail "config.json of the text's rules names them (at their defaults they stay out: older records compare)"
json_has "$t/rel/trace/completion.json" '"velocity":"distance","absent_class":"forget"' || fail "completion.json lacks the rules"
cmp -s "$t/rel/digests.txt" "$t/rel-text/digests.txt" && fail "the released rules changed nothing (the same digests as the text's)"
"$flce" eval "$t/rel/trace" --out "$t/rel-ev" > /dev/null || fail "flce eval on the released rules' trace"
cmp -s "$t/rel-ev/contributions.csv" "$t/rel/contributions.csv" || fail "flce eval does not reproduce the run under the released rules"
"$flce" eval "$t/rel/trace" --out "$t/rel-ev2" --velocity squared --absent-class keep > /dev/null || fail "flce eval with the text's rules"
cmp -s "$t/rel-ev2/contributions.csv" "$t/rel/contributions.csv" && fail "--velocity squared --absent-class keep changed nothing"
expect 2 "--velocity, --absent-class: rules of the velocity, and --ablate V leaves it out" run --algo flce --ablate V --velocity distance $tiny --out "$t/x"
expect 2 "--velocity 'x': one of squared,distance" run --algo flce --velocity x $tiny --out "$t/x"
# round 1's previous global prototypes from the initial model (issue 62, --initial-prototypes
# initial-model): recorded in the trace as initial_prototypes.npy (float64 [10, 64]: 128 bytes of
# header and 10 x 64 x 8 of data) and in config.json and completion.json; on seed 5 round 1's
# clients share a class the initial model gets right, so round 1's aggregation and the digests
# change; flce eval reproduces the run, and --initial-prototypes none (the text's round 1 on the
# same trajectory) gives other contributions
ip="--clients 4 --per-round 3 --rounds 3 --train-subset 600 --test-subset 60 --val-size 20 --batch 16 --seed 5 --quiet --lr 0.05"
"$flce" run --algo flce $ip --out "$t/ip-text" > /dev/null 2>&1 || fail "flce run (the text's round 1)"
"$flce" run --algo flce $ip --initial-prototypes initial-model --out "$t/ip" > /dev/null 2>&1 || fail "flce run --initial-prototypes initial-model"
[ "$(wc -c < "$t/ip/trace/initial_prototypes.npy")" -eq $((128 + 10 * 64 * 8)) ] || fail "initial_prototypes.npy: not float64 [10, 64]"
[ -f "$t/ip-text/trace/initial_prototypes.npy" ] && fail "the text's run wrote initial_prototypes.npy"
json_has "$t/ip/config.json" '"initial_prototypes":"initial-model"' && json_has "$t/ip/trace/completion.json" '"initial_prototypes":"initial-model"' ||
  fail "--initial-prototypes not recorded: $(cat "$t/ip/config.json")"
grep -q '"initial_prototypes"' "$t/ip-text/config.json" "$t/ip-text/trace/completion.json" && fail "the text's run records initial_prototypes"
cmp -s "$t/ip/digests.txt" "$t/ip-text/digests.txt" && fail "--initial-prototypes initial-model changed nothing"
"$flce" eval "$t/ip/trace" --out "$t/ip-ev" > "$t/ip-ev.log" || fail "flce eval on the initial-model trace"
cmp -s "$t/ip-ev/contributions.csv" "$t/ip/contributions.csv" || fail "flce eval does not reproduce the run with initial prototypes"
grep -q "round 1's previous global prototypes: from the initial model" "$t/ip-ev.log" || fail "flce eval does not say it used them: $(cat "$t/ip-ev.log")"
"$flce" eval "$t/ip/trace" --out "$t/ip-ev2" --initial-prototypes none > /dev/null || fail "flce eval --initial-prototypes none"
cmp -s "$t/ip-ev2/contributions.csv" "$t/ip/contributions.csv" && fail "flce eval --initial-prototypes none changed nothing"
expect 2 "--initial-prototypes initial-model: $t/ip-text/trace has no initial_prototypes.npy" eval "$t/ip-text/trace" --out "$t/x" --initial-prototypes initial-model
expect 2 "--initial-prototypes 'x': none (the text) or initial-model (the released code)" eval "$t/ip/trace" --out "$t/x" --initial-prototypes x
expect 2 "--initial-prototypes: round 1's reference of the velocity, and --ablate Q leaves it out" run --algo flce --ablate Q --initial-prototypes initial-model $tiny --out "$t/x"
# a trace that records round 1 from the initial model but lost initial_prototypes.npy is refused,
# never evaluated with the text's round 1 in silence; a rule's word this build does not know in
# completion.json is refused, never read as the default
# (a trace of Q.npy alone holds the run's own rules: evaluated as it is, initial-model or not)
cp -r "$t/ip/trace" "$t/ip-q" && rm "$t/ip-q"/prototypes*.npy
"$flce" eval "$t/ip-q" --out "$t/ip-q-ev" > /dev/null || fail "flce eval of an initial-model trace's Q.npy alone"
cmp -s "$t/ip-q-ev/contributions.csv" "$t/ip/contributions.csv" || fail "flce eval of Q.npy alone does not reproduce the initial-model run"
cp -r "$t/ip/trace" "$t/ip-noinit" && rm "$t/ip-noinit/initial_prototypes.npy"
expect 1 "completion.json records round 1's prototypes from the initial model, and initial_prototypes.npy is missing" eval "$t/ip-noinit" --out "$t/x"
"$flce" eval "$t/ip-noinit" --out "$t/ip-noinit-ev" --initial-prototypes none > /dev/null || fail "flce eval --initial-prototypes none without the file"
cmp -s "$t/ip-noinit-ev/contributions.csv" "$t/ip-ev2/contributions.csv" || fail "--initial-prototypes none without the file: not the text's round 1"
for kv in '"velocity": "cubed"' '"velocity": "squared distance"' '"absent_class": "drop"' '"prototypes": "median"' '"initial_prototypes": "random"' '"missing": "mean"'; do
  k=${kv%%:*}
  cp -r "$t/ip/trace" "$t/ip-word" && sed "s/$k:[^,}]*/$kv/" "$t/ip/trace/completion.json" > "$t/ip-word/completion.json"
  grep -q "$kv" "$t/ip-word/completion.json" || sed -i "s/^{/{$kv, /" "$t/ip-word/completion.json"
  expect 1 "completion.json: $k is" eval "$t/ip-word" --out "$t/x"
  rm -rf "$t/ip-word"
done
# the released code's prototype, the first sample of each class classified right: every FLCE
# trace records it (prototypes_first.npy); a run with --proto-samples first aggregates with it,
# records "first", and flce eval reproduces it; flce eval --proto-samples first on a text run's
# trace equals the same evaluation of a trace whose prototypes.npy is that file; a trace without
# the file says what it lacks
"$flce" run --algo flce $rel --proto-samples first --out "$t/first" > /dev/null 2>&1 || fail "flce run --proto-samples first"
json_has "$t/first/trace/completion.json" '"prototypes":"first"' || fail "completion.json does not record the first reading"
"$flce" eval "$t/first/trace" --out "$t/first-ev" > /dev/null || fail "flce eval on the first reading's trace"
cmp -s "$t/first-ev/contributions.csv" "$t/first/contributions.csv" || fail "flce eval does not reproduce the run with --proto-samples first"
cmp -s "$t/first/digests.txt" "$t/rel-text/digests.txt" && fail "--proto-samples first changed nothing"
# another run's prototypes_first.npy (seed 5's selections) in this trace: refused, the file named
cp -r "$t/rel-text/trace" "$t/fforeign" && cp "$t/ip/trace/prototypes_first.npy" "$t/fforeign/prototypes_first.npy"
expect 1 "fforeign/prototypes_first.npy: round" eval "$t/fforeign" --out "$t/x" --proto-samples first
[ -f "$t/rel-text/trace/prototypes_first.npy" ] || fail "a text run's trace lacks prototypes_first.npy"
"$flce" eval "$t/rel-text/trace" --out "$t/fe1" --proto-samples first --ablate CMC > /dev/null || fail "flce eval --proto-samples first"
mkdir "$t/swap" && cp "$t/rel-text/trace/selected.npy" "$t/rel-text/trace/data_sizes.npy" "$t/swap/" &&
  cp "$t/rel-text/trace/prototypes_first.npy" "$t/swap/prototypes.npy" || fail "the swapped trace"
"$flce" eval "$t/swap" --out "$t/fe2" --ablate CMC > /dev/null || fail "flce eval of the swapped trace"
cmp -s "$t/fe1/contributions.csv" "$t/fe2/contributions.csv" || fail "--proto-samples first does not evaluate prototypes_first.npy"
cp -r "$t/rel-text/trace" "$t/old-trace" && rm "$t/old-trace/prototypes_first.npy"
expect 2 "holds the correct reading and no prototypes_first.npy (written before runs recorded the released code's first correct sample" \
  eval "$t/old-trace" --out "$t/x" --proto-samples first
[ ! -e "$t/x" ] || fail "a refused command left $t/x"
echo "cli_run 1: all checks passed"
exit 0
fi

# part 2
mkdir "$t/empty"
# FedSV as released (issue 62): --schedule window (8 clients, K = 4: a window of 2, clients 0-1 in
# round 1, 2-3 in round 2, and 2 of the other 6 drawn), --players drawn (the window's valued 0 in
# every round), --utility-set test and --next-model best: round 1's local models and utilities are
# those of the same run with the aggregate as its next model, so its Shapley values are the same
# and its test accuracy (the utility's own measure) at least the aggregate's
sv="--algo fedsv --clients 8 --per-round 4 --rounds 2 --train-subset 800 --test-subset 200 --val-size 40 --batch 16 --seed 3 --quiet --lr 0.05
    --schedule window --players drawn --utility-set test"
"$flce" run $sv --out "$t/sva" > /dev/null 2>&1 || fail "FedSV, players drawn"
"$flce" run $sv --next-model best --out "$t/svb" > /dev/null 2>&1 || fail "FedSV, players drawn, next-model best"
awk -F, 'NR > 1 { n[$1]++; if (($1 == 1 && ($2 == 0 || $2 == 1)) || ($1 == 2 && ($2 == 2 || $2 == 3))) { w[$1]++; if ($3 != 0) bad = 1 } }
  END { exit !(n[1] == 4 && n[2] == 4 && w[1] == 2 && w[2] == 2 && !bad) }' "$t/sva/round_contributions.csv" ||
  fail "--schedule window --players drawn: not the window of 2 valued 0: $(cat "$t/sva/round_contributions.csv")"
[ "$(grep '^1,' "$t/sva/round_contributions.csv")" = "$(grep '^1,' "$t/svb/round_contributions.csv")" ] || fail "--next-model best changed round 1's Shapley values"
awk -F, 'FNR == 2 { a[++f] = $2 } END { exit !(a[2] >= a[1]) }' "$t/sva/metrics.csv" "$t/svb/metrics.csv" ||
  fail "--next-model best: round 1's test accuracy below the aggregate's"
json_has "$t/svb/config.json" '"schedule":"window"' && json_has "$t/svb/config.json" '"utility_set":"test","players":"drawn","next_model":"best"' ||
  fail "FedSV's released settings not recorded: $(cat "$t/svb/config.json")"
expect 2 "--players drawn: values the clients drawn beside --schedule window's, and the schedule is random" run --algo fedsv --players drawn $tiny --out "$t/x"
expect 2 "--next-model best: the released FedSV's exact form, and --shapley mc samples permutations" run --algo fedsv --next-model best --shapley mc $tiny --out "$t/x"
# local training and selection as released (issue 62), each checked by a property worked out
# without the program: IID, 4 clients of 70 samples (300 less 20 for validation), batch 16 -> 5 batches an epoch, so 5 and 10
# local steps are one and two epochs; the sweep's first rounds take clients 0-1, then 2-3; with
# equal data sizes the plain mean is the data-size weights; lambda 1 times tau 0.5 is lambda 0.5
iidr="--iid --clients 4 --per-round 2 --train-subset 300 --test-subset 60 --val-size 20 --batch 16 --seed 3 --quiet"
same_run() { # same_run NAME "FLAGS A" "FLAGS B": equal digests
  "$flce" run $iidr $2 --out "$t/$1-a" > /dev/null 2>&1 || fail "$1: flce run $2"
  "$flce" run $iidr $3 --out "$t/$1-b" > /dev/null 2>&1 || fail "$1: flce run $3"
  cmp -s "$t/$1-a/digests.txt" "$t/$1-b/digests.txt" || fail "$1: '$2' and '$3' differ"
}
same_run steps1 "--algo fedavg --rounds 1 --epochs 1" "--algo fedavg --rounds 1 --local-steps 5"
same_run steps2 "--algo fedavg --rounds 1 --epochs 2" "--algo fedavg --rounds 1 --local-steps 10"
awk -F, 'NR > 1 && $2 != 70 { exit 1 }' "$t/steps1-a/clients.csv" || fail "the IID clients do not hold 70 samples each: the steps' check says nothing"
"$flce" run $iidr --algo fedavg --rounds 1 --local-steps 6 --out "$t/steps6" > /dev/null 2>&1 || fail "--local-steps 6"
cmp -s "$t/steps1-a/digests.txt" "$t/steps6/digests.txt" && fail "--local-steps 6 gave the digests of 5"
same_run mean "--algo fedavg --rounds 2" "--algo fedavg --rounds 2 --aggregation mean"
same_run scale "--algo flce --rounds 2 --lambda 0.5" "--algo flce --rounds 2 --cl-scale tau --lambda 1 --tau 0.5"
"$flce" run --algo fedavg $tiny --out "$t/size-d" > /dev/null 2>&1 || fail "FedAvg, Dirichlet"
"$flce" run --algo fedavg $tiny --aggregation mean --out "$t/mean-d" > /dev/null 2>&1 || fail "--aggregation mean, Dirichlet"
cmp -s "$t/mean-d/digests.txt" "$t/size-d/digests.txt" && fail "--aggregation mean changed nothing on unequal sizes"
# a method never reads a setting it does not declare (its config.json lists its own only): GTG, whose
# server step is FedAvg's average and whose utility is flce_eng_utility's, beside FedAvg with
# --aggregation mean and beside FedSV with --utility-set test trains and values as GTG alone
# (3 of 4 clients a round and 200 test images: the test set's utilities give GTG other values here)
g="--clients 4 --train-subset 300 --test-subset 200 --val-size 60 --batch 16 --seed 3 --quiet --per-round 3 --rounds 2"
"$flce" run --algo gtg $g --out "$t/gtg" > /dev/null 2>&1 || fail "GTG alone"
"$flce" run --algo fedavg,gtg $g --aggregation mean --out "$t/gtg-m" > /dev/null 2>&1 || fail "FedAvg and GTG, --aggregation mean"
"$flce" run --algo fedsv,gtg $g --utility-set test --out "$t/gtg-u" > /dev/null 2>&1 || fail "FedSV and GTG, --utility-set test"
for d in gtg-m gtg-u; do
  cmp -s "$t/gtg/digests.txt" "$t/$d/gtg/digests.txt" && cmp -s "$t/gtg/contributions.csv" "$t/$d/gtg/contributions.csv" ||
    fail "$d: GTG beside another method's setting is not GTG alone: $(diff "$t/gtg/digests.txt" "$t/$d/gtg/digests.txt")"
done
# every reading of the baselines' contributions recorded, the released code's L2 update norm last
# (by hand: tests/test_rules.c); in each round its shares of the selected clients sum to 1
[ "$(head -1 "$t/size-d/contributions_rules.csv")" = "client,cos_global,cos_mean,cos_model,weight,l2_update" ] ||
  fail "contributions_rules.csv: header $(head -1 "$t/size-d/contributions_rules.csv")"
awk -F, 'NR > 1 { s[$1] += $7; n[$1]++ } END { for (r in s) if (n[r] != 2 || s[r] < 1 - 1e-12 || s[r] > 1 + 1e-12) exit 1; exit !length(s) }' \
  "$t/size-d/round_contributions_rules.csv" || fail "l2_update: a round's shares do not sum to 1: $(cat "$t/size-d/round_contributions_rules.csv")"
"$flce" run $iidr --algo fedavg --rounds 3 --schedule sweep --out "$t/sweep" > /dev/null 2>&1 || fail "--schedule sweep"
got=$(awk -F, 'NR > 1 && $1 <= 2 { printf "%s:%s ", $1, $2 }' "$t/sweep/round_contributions.csv")
[ "$got" = "1:0 1:1 2:2 2:3 " ] || fail "--schedule sweep: rounds 1 and 2 selected '$got', expected clients 0 1 then 2 3"
# momentum, weight decay and clipping change the training, and are recorded; 100 does not clip here
"$flce" run $iidr --algo fedavg --rounds 1 --momentum 0.9 --weight-decay 1e-5 --clip-norm 100 --out "$t/opt" > /dev/null 2>&1 || fail "momentum, weight decay, clipping"
cmp -s "$t/opt/digests.txt" "$t/steps1-a/digests.txt" && fail "--momentum 0.9 --weight-decay 1e-5 changed nothing"
json_has "$t/opt/config.json" '"momentum":0.9,"weight_decay":1e-05,"clip_norm":100' || fail "config.json lacks the optimiser: $(cat "$t/opt/config.json")"
grep -q '"momentum"\|"local_steps"\|"schedule"\|"cl_scale"\|"aggregation"' "$t/steps1-a/config.json" && fail "a plain run's config.json names the released settings"
# several methods: each one's settings checked before the first runs (Ditto refuses momentum; it
# once stopped --algo all --as-released after three methods had run)
expect 2 "Ditto trains two models" run $tiny --algo fedavg,ditto --momentum 0.9 --out "$t/mm"
[ ! -e "$t/mm" ] || fail "a refused run of several methods left $t/mm"
"$flce" run $iidr --algo fedavg --rounds 1 --clip-norm 1e-3 --out "$t/clip" > /dev/null 2>&1 || fail "--clip-norm 1e-3"
cmp -s "$t/clip/digests.txt" "$t/steps1-a/digests.txt" && fail "--clip-norm 1e-3 clipped nothing"
expect 2 "--local-steps and --epochs: give one" run --algo fedavg $tiny --local-steps 5 --epochs 2 --out "$t/x"
expect 2 "--local-steps and --epochs: give one" run --algo fedavg $tiny --local-steps 1 --epochs 1 --out "$t/x" # --epochs 1 was taken and ignored
expect 2 "--momentum 1: must be from 0 to below 1" run --algo fedavg $tiny --momentum 1 --out "$t/x"
expect 2 "--schedule 'round-robin': random, sweep or window" run --algo fedavg $tiny --schedule round-robin --out "$t/x"
expect 2 "--momentum 0.9: Ditto trains two models through one optimiser state" run --algo ditto $tiny --momentum 0.9 --out "$t/x"
expect 2 "--aggregation: a setting of fedavg, fedprox, ditto, moon, fedsv" run --algo flce $tiny --aggregation mean --out "$t/x"
# the released data generator's steps as settings (tests/test_partition.c checks what they do)
expect 2 "--noisy-choice: says which clients are noisy, and no --label-noise or --feature-noise is given" run --algo fedavg $tiny --noisy-choice last --out "$t/x"
expect 2 "--label-noise-map: says where a flipped label goes, and no --label-noise is given" run --algo fedavg $tiny --label-noise-map next --out "$t/x"
expect 2 "--dirichlet-balance: a step of the Dirichlet partition, and --iid draws none" run --algo fedavg $iidr --rounds 1 --dirichlet-balance --out "$t/x"
"$flce" run --algo fedavg $tiny --dirichlet-balance --label-noise 1 --noisy-clients 0.5 --noisy-choice last --label-noise-map next --out "$t/rdata" > /dev/null 2>&1 || fail "the released data steps"
json_has "$t/rdata/config.json" '"dirichlet_balance":"yes","noisy_choice":"last","label_noise_map":"next"' || fail "config.json lacks the data steps: $(cat "$t/rdata/config.json")"
[ "$(awk -F, 'NR > 1 { printf "%s", $4 }' "$t/rdata/clients.csv")" = 0011 ] || fail "--noisy-choice last: clients.csv's noisy column is not 0011"
# the released feature noise (relative to the client's pixels, rescaled; by hand: test_dataset's
# noise/released_feature_noise_by_hand): recorded, another run than the default's, set by
# --as-released where feature noise is given, refused without it
fn="--algo fedavg $tiny --feature-noise 1 --noisy-clients 0.5 --noisy-choice last"
"$flce" run $fn --out "$t/fn-given" > /dev/null 2>&1 || fail "feature noise"
"$flce" run $fn --feature-noise-std data --out "$t/fn-data" > /dev/null 2>&1 || fail "--feature-noise-std data"
json_has "$t/fn-data/config.json" '"feature_noise_std":"data"' || fail "config.json lacks feature_noise_std: $(cat "$t/fn-data/config.json")"
cmp -s "$t/fn-given/digests.txt" "$t/fn-data/digests.txt" && fail "--feature-noise-std data changed nothing"
"$flce" run $fn --as-released --local-steps 1 --out "$t/fn-rel" > /dev/null 2>&1 || fail "--as-released with feature noise"
json_has "$t/fn-rel/config.json" '"feature_noise_std":"data"' || fail "--as-released: no feature_noise_std data"
expect 2 "--feature-noise-std: says how the feature noise is made, and no --feature-noise is given" run --algo fedavg $tiny --feature-noise-std data --out "$t/x"
# off a terminal (a log, nohup, CI) a run says its size before it starts and its progress, the
# first line after round 1 with the time the rest will take, the last at the last round; --quiet:
# neither (a 3 min 50 s run once printed nothing at all in a log)
"$flce" run --algo fedavg --clients 4 --per-round 2 --rounds 3 --train-subset 300 --test-subset 60 --val-size 20 --batch 16 --seed 3 \
  --backend cpu --out "$t/prog" > /dev/null 2> "$t/prog.err" || fail "a run off a terminal"
grep -q '^flce run: fedavg: 4 clients, 2 a round, 3 rounds, 300 training images, 1 local epoch of batch 16 (about [0-9.]* \(s\|min\|h\) on this machine: a training step measured, [0-9.]* s)$' "$t/prog.err" &&
  grep -q '^flce run: fedavg round 1/3 .* the rest will take about [0-9]* s$' "$t/prog.err" &&
  grep -q '^flce run: fedavg round 3/3 .* ETA 0 s$' "$t/prog.err" || fail "no size or progress lines off a terminal: $(cat "$t/prog.err")"
"$flce" run --algo fedavg --clients 4 --per-round 2 --rounds 3 --train-subset 300 --test-subset 60 --val-size 20 --batch 16 --seed 3 \
  --backend cpu --quiet --out "$t/progq" > /dev/null 2> "$t/progq.err" || fail "a quiet run"
[ ! -s "$t/progq.err" ] || fail "--quiet printed: $(cat "$t/progq.err")"
# the estimate's timed step (a scratch model) changes no bit of the run: the quiet run times none
cmp -s "$t/prog/digests.txt" "$t/progq/digests.txt" || fail "the run with its estimate differs from the quiet one"
# a coalition trained alone (issue 63's utilities): --members with every client is the plain run
# (the same seeded draw), a coalition's rounds select only its members (min(K, |S|) a round),
# --participation full every member every round; config.json records them
"$flce" run --algo fedavg $tiny --members 0,1,2,3 --out "$t/mem-all" > /dev/null 2>&1 || fail "--members 0,1,2,3"
"$flce" run --algo fedavg $tiny --out "$t/mem-plain" > /dev/null 2>&1 || fail "the plain run beside it"
cmp -s "$t/mem-all/digests.txt" "$t/mem-plain/digests.txt" || fail "--members with every client differs from the plain run"
"$flce" run --algo fedavg $tiny --members 1,3 --out "$t/mem13" > /dev/null 2>&1 || fail "--members 1,3"
[ "$(awk -F, 'NR > 1 { print $2 }' "$t/mem13/round_contributions.csv" | sort -u | tr '\n' ' ')" = "1 3 " ] || fail "--members 1,3 selected others"
awk -F, 'NR > 1 && ($1 == 0 || $1 == 2) && $2 != 0 { exit 1 }' "$t/mem13/contributions.csv" || fail "a client outside the coalition got a contribution"
"$flce" run --algo fedavg $base --rounds 2 --members 0,2,3 --participation full --out "$t/memfull" > /dev/null 2>&1 || fail "--participation full"
[ "$(awk -F, 'NR > 1 { n[$1]++ } END { for (r in n) print n[r] }' "$t/memfull/round_contributions.csv" | sort -u)" = 3 ] || fail "--participation full: not 3 a round"
json_has "$t/memfull/config.json" '"members":[0,2,3]' && json_has "$t/memfull/config.json" '"per_round":3' || fail "config.json lacks the coalition"
expect 2 "--members '2,1': clients 0..3, ascending, each once" run --algo fedavg $tiny --members 2,1 --out "$t/x"
expect 2 "--participation: applies to a coalition (--members)" run --algo fedavg $tiny --participation full --out "$t/x"
expect 2 "--participation full: every member every round, and --per-round 2 is below the 3 members" run --algo fedavg $tiny --members 0,1,2 --participation full --out "$t/x"
"$flce" run --algo fedavg $base --per-round 4 --rounds 2 --members 0,2,3 --participation full --out "$t/memfull4" > /dev/null 2>&1 || fail "--participation full with --per-round 4"
cmp -s "$t/memfull4/digests.txt" "$t/memfull/digests.txt" || fail "--participation full: --per-round 4 (at least the members) changed the run"
# several seeds as one job: --seeds 3-4 puts each into OUT/sSEED with the digests of its --seed run,
# and --resume with --seeds 3-5 leaves 3 and 4 as they are and runs 5
noseed="--clients 4 --train-subset 300 --test-subset 60 --val-size 20 --batch 16 --quiet --per-round 2 --rounds 1"
"$flce" run --algo fedavg $noseed --seeds 3-4 --out "$t/seeds" > /dev/null 2>&1 || fail "--seeds 3-4"
"$flce" run --algo fedavg $noseed --seed 4 --out "$t/seed4" > /dev/null 2>&1 || fail "--seed 4"
[ "$(ls "$t/seeds" | tr '\n' ' ')" = "s3 s4 " ] || fail "--seeds 3-4 made $(ls "$t/seeds")"
cmp -s "$t/seeds/s4/digests.txt" "$t/seed4/digests.txt" || fail "--seeds: seed 4's folder is not the --seed 4 run"
before=$(md5sum "$t/seeds/s3/digests.txt" "$t/seeds/s4/model.safetensors")
"$flce" run --algo fedavg $noseed --seeds 3-5 --out "$t/seeds" --resume > /dev/null 2>&1 || fail "--seeds 3-5 --resume"
[ -f "$t/seeds/s5/digests.txt" ] && [ "$(md5sum "$t/seeds/s3/digests.txt" "$t/seeds/s4/model.safetensors")" = "$before" ] || fail "--resume of the seeds"
expect 2 "--seed and --seeds exclude each other" run --algo fedavg $tiny --seeds 1-2 --out "$t/x"
expect 2 "--seeds: 2 is named twice" run --algo fedavg $noseed --seeds 2,2 --out "$t/x"
# --as-released: every released setting this harness has, recorded; a flag given beside it wins
"$flce" run --algo flce,fedavg $iidr --rounds 1 --as-released --local-steps 2 --out "$t/asrel" > /dev/null 2>&1 || fail "--as-released"
json_has "$t/asrel/flce/config.json" '"ablate":"CMC"' && json_has "$t/asrel/flce/config.json" '"local_steps":2,"momentum":0.9,"weight_decay":1e-05,"clip_norm":100,"schedule":"sweep"' &&
  json_has "$t/asrel/flce/config.json" '"velocity":"distance","absent_class":"forget","cl_scale":"tau","initial_prototypes":"initial-model"' &&
  json_has "$t/asrel/flce/trace/completion.json" '"prototypes":"first"' || fail "--as-released, flce's config.json: $(cat "$t/asrel/flce/config.json")"
json_has "$t/asrel/fedavg/config.json" '"aggregation":"mean"' || fail "--as-released, fedavg's config.json: $(cat "$t/asrel/fedavg/config.json")"
grep -q '"schedule"' "$t/asrel/fedavg/config.json" && fail "--as-released: fedavg selects at random as released, and its config.json names a schedule"
# ... whichever methods run beside it: FLCE alone records what FLCE beside FedAvg does (FedSV's
# released settings too), so that the report puts the two in one configuration
"$flce" run --algo flce $iidr --rounds 1 --as-released --local-steps 2 --out "$t/asrel1" > /dev/null 2>&1 || fail "--as-released, FLCE alone"
cmp -s "$t/asrel1/config.json" "$t/asrel/flce/config.json" ||
  fail "--as-released: FLCE alone records other settings than FLCE beside FedAvg: $(diff "$t/asrel1/config.json" "$t/asrel/flce/config.json" | tr '\n' ' ')"
json_has "$t/asrel1/config.json" '"utility_set":"test","players":"drawn","next_model":"best"' || fail "--as-released: FedSV's released settings not recorded: $(cat "$t/asrel1/config.json")"
expect 2 "--local-steps 0: must be 1..1000000" run --algo fedavg $tiny --local-steps 0 --out "$t/x"
# settings that another setting makes meaningless are refused, as --mc-perms with exact Shapley:
# the completion's with --ablate CMC (once recorded in config.json and ignored: the same digests)
for cs in "--rank 2" "--mu 0.1" "--solver gd" "--missing unobserved" "--completion literal --rank 2"; do
  expect 2 "settings of the completion, and --ablate CMC runs none" run --algo flce --ablate CMC $cs $tiny --out "$t/x"
  expect 2 "settings of the completion, and --ablate CMC runs none" eval "$t/a/trace" --out "$t/x" --ablate CMC $cs
done
expect 2 "settings of the completion, and --ablate CMC runs none" eval "$t/a/trace" --out "$t/x" --ablate CMC --seed 2
# one rule for a number, every flag (--mu 1e-320 was accepted where --lr 1e-320 was "not a
# finite number"): a subnormal is refused alike, said as such; infinities and hex are not numbers
for fl in "--mu" "--lr" "--tau"; do
  expect 2 "$fl '1e-320': too close to 0 (below 2.2e-308 in magnitude" run --algo flce $fl 1e-320 $tiny --out "$t/x"
  expect 2 "$fl 'inf': not a finite number" run --algo flce $fl inf $tiny --out "$t/x"
  expect 2 "$fl '0x1p-3': not a finite number" run --algo flce $fl 0x1p-3 $tiny --out "$t/x"
done
expect 2 "--prox-mu '1e-320': too close to 0" run --algo fedprox --prox-mu 1e-320 $tiny --out "$t/x"
expect 2 "--mu '1e-320': too close to 0" eval "$t/a/trace" --out "$t/x" --mu 1e-320
# --mc-eps in its stated range: with the accuracy utility (in [0, 1]) an eps of 1 stops every
# permutation at its first client (every value 0, every client the same share)
expect 2 "--mc-eps 2: below 1 with --utility accuracy" run --algo fedsv --shapley mc --mc-eps 2 $tiny --out "$t/x"
expect 2 "--mc-eps 1: below 1 with --utility accuracy" run --algo fedsv --shapley mc --mc-eps 1 $tiny --out "$t/x"
expect 2 "holds no run" run --algo flce $tiny --out "$t/empty" --resume
expect 2 "--algo 'fedprox2'" run --algo fedprox2 $tiny --out "$t/x"
expect 2 "--seed is required" run --algo flce --out "$t/x"
# issue 20, item 9: lists and values that were accepted or half-run
expect 2 "an empty method name" run --algo , $tiny --out "$t/x"
expect 2 "an empty method name" run --algo fedavg,,flce $tiny --out "$t/x"
expect 2 "'fedavg' is named twice" run --algo fedavg,fedavg $tiny --out "$t/x"
expect 2 "--algo 'bogus'" run --algo flce,fedavg,fedprox,ditto,moon,fedfv,cgsv,qfedavg,fedfa,fedsv,gtg,bogus $tiny --out "$t/x"
expect 2 "--ablate: applies to FLCE only" run --algo fedavg --ablate V $tiny --out "$t/x"
# settings that did nothing (2026-11-29): a repeated ablation letter (most likely another one
# mistyped), --mpi-timeout outside a job of several processes
expect 2 "--ablate m given twice" run --algo flce --ablate M --ablate V --ablate m $tiny --out "$t/x"
expect 2 "--ablate M given twice" eval "$t/a/trace" --out "$t/x" --ablate M,Q --ablate M
expect 2 "--mpi-timeout: applies to a job of several processes under mpirun, and this is one process" run --algo flce --mpi-timeout 60 $tiny --out "$t/x"
expect 2 "--mc-eps -1" run --algo fedsv --mc-eps -1 $tiny --out "$t/x"
# issue 32: the methods' settings come from their tables: a setting of a method not run is a
# usage error naming its method (it used to be accepted and ignored), the limits and words checked
expect 2 "--prox-mu: a setting of fedprox, and --algo 'flce,fedavg' does not run it" run --algo flce,fedavg --prox-mu 0.1 $tiny --out "$t/x"
expect 2 "--utility: a setting of fedsv, gtg" run --algo flce --utility loss $tiny --out "$t/x"
expect 2 "--mc-perms 1.5: must be a whole number >= 1" run --algo fedsv --mc-perms 1.5 $tiny --out "$t/x"
# settings that did nothing, status 0: Monte-Carlo's with exact Shapley, --noisy-clients without
# noise, --device with a backend that opens no Vulkan device
expect 2 "--mc-perms, --mc-eps: settings of --shapley mc" run --algo fedsv --mc-perms 10 $tiny --out "$t/x"
expect 2 "--mc-perms, --mc-eps: settings of --shapley mc" run --algo fedsv,gtg --mc-eps 0.1 $tiny --out "$t/x"
expect 2 "--noisy-clients 0.5: says which clients get --label-noise or --feature-noise" run --algo fedavg --noisy-clients 0.5 $tiny --out "$t/x"
expect 2 "Vulkan" run --algo fedavg --backend cpu --device 0 $tiny --out "$t/x"
expect 2 "Vulkan" run --algo fedavg --backend reference --device 0 $tiny --out "$t/x"
[ ! -e "$t/x" ] || fail "a refused run left $t/x"
# FLCE_BACKEND, the default of --backend (ctest sets it to cpu): a bad value is a usage error
# naming the variable (before --device, which would take it for a backend), for flce run and
# flce truth, and so is --device with a backend it names that opens no Vulkan device (in a build
# without Vulkan: that the build has none); --backend comes first; unset or empty, the default
# is auto again (its line on stderr), the same bits
be_env=${FLCE_BACKEND-}
export FLCE_BACKEND=bogus
expect 2 "FLCE_BACKEND='bogus': unknown or not built (reference, cpu" run --algo fedavg $tiny --out "$t/x"
expect 2 "FLCE_BACKEND='bogus': unknown or not built (reference, cpu" run --algo fedavg --device 0 $tiny --out "$t/x"
expect 2 "FLCE_BACKEND='bogus': unknown or not built (reference, cpu" truth --clients 2 --per-round 2 --rounds 1 --out "$t/x"
FLCE_BACKEND='cpu ' expect 2 "FLCE_BACKEND='cpu ': unknown" run --algo fedavg $tiny --out "$t/x"
"$flce" run --algo fedavg $tiny --backend cpu --out "$t/be1" > /dev/null 2> "$t/be1.err" || fail "--backend cpu over FLCE_BACKEND=bogus: $(cat "$t/be1.err")"
[ -s "$t/be1.err" ] && fail "--backend cpu: said something on stderr: $(cat "$t/be1.err")"
export FLCE_BACKEND=cpu
case "$(FLCE_BACKEND=bogus "$flce" run --algo fedavg $tiny --out "$t/x" 2>&1)" in # the backends built
  *vulkan*) dev_err="--device 0: names a Vulkan device, and FLCE_BACKEND='cpu' opens none";;
  *) dev_err="--device: this build has no Vulkan backend";; esac
expect 2 "$dev_err" run --algo fedavg --device 0 $tiny --out "$t/x"
auto_line='; using the cpu backend$\|^flce: vulkan backend on '
unset FLCE_BACKEND
"$flce" run --algo fedavg $tiny --out "$t/be2" > /dev/null 2> "$t/be2.err" || fail "FLCE_BACKEND unset: $(cat "$t/be2.err")"
grep -q "$auto_line" "$t/be2.err" || fail "FLCE_BACKEND unset: not auto: $(cat "$t/be2.err")"
cmp -s "$t/be1/digests.txt" "$t/be2/digests.txt" || fail "FLCE_BACKEND unset (auto) and --backend cpu: other digests"
FLCE_BACKEND= "$flce" run --algo fedavg $tiny --out "$t/be3" > /dev/null 2> "$t/be3.err" || fail "FLCE_BACKEND empty: $(cat "$t/be3.err")"
grep -q "$auto_line" "$t/be3.err" || fail "FLCE_BACKEND empty: not auto: $(cat "$t/be3.err")"
[ -n "$be_env" ] && export FLCE_BACKEND="$be_env"
[ ! -e "$t/x" ] || fail "a refused run left $t/x"
# a CPU without AVX2 (acted by FLCE_CPU_ISA=x86-64): one line naming the reference backend, not
# an illegal instruction in the AVX2-compiled kernels
export FLCE_CPU_ISA=x86-64
expect 2 "this CPU has no AVX2, which its kernels need; --backend reference" run --algo fedavg --backend cpu $tiny --out "$t/x"
[ ! -e "$t/x" ] || fail "a refused backend left $t/x"
unset FLCE_CPU_ISA
expect 2 "--shapley 'approx': one of exact,mc" run --algo fedsv --shapley approx $tiny --out "$t/x"
expect 2 "--moon-tau 0: must be > 0" run --algo moon --moon-tau 0 $tiny --out "$t/x"
"$flce" run --help | grep -q -- "--prox-mu .*0.01 .*fedprox" || fail "flce run --help: no table of method settings with --prox-mu"
expect 2 "--feature-noise 1e+300: must be a number from 0 to below 1e6" run --algo fedavg --feature-noise 1e300 $tiny --out "$t/x"
echo "0 0 0 0 0 0 0 0 0 0" > "$t/cw0"
expect 2 "all weights are 0" run --algo flce $tiny --class-weights "$t/cw0" --out "$t/x"
expect 2 "not a run directory" report "$t/empty" --out "$t/rep2"
expect 2 "--out DIR is required with several RUN_DIRs" report "$t/a" "$t/b"
# one run's report goes to RUN/report by default (the run's files untouched, the run still resumable
# and reported again into the same folder); any other folder inside the run is refused
(cd "$t/a" && find . -type f | sort | xargs md5sum) > "$t/a.sums"
"$flce" report "$t/a/" --quiet > "$t/arep.log" 2>&1 || fail "flce report RUN with its default --out: $(cat "$t/arep.log")"
grep -qF "report: $t/a/report/report.html" "$t/arep.log" && [ -f "$t/a/report/report.md" ] || fail "the default report folder: $(cat "$t/arep.log")"
(cd "$t/a" && find . -type f -not -path './report/*' | sort | xargs md5sum) | cmp -s - "$t/a.sums" || fail "a report into RUN/report changed the run's files"
"$flce" report "$t/a" --quiet > /dev/null 2>&1 || fail "flce report RUN again into RUN/report"
"$flce" run --algo flce $tiny --out "$t/a" --resume > /dev/null 2>&1 || fail "--resume of a run holding its report"
expect 2 "inside the run folder" report "$t/a" --out "$t/a/trace/rep"
rm -r "$t/a/report"
[ -e "$t/x" ] && fail "a refused run left $t/x behind"
"$flce" run --algo flce $tiny --out "$t/a" --force > /dev/null || fail "--force"
cmp -s "$t/a/digests.txt" "$t/b/digests.txt" || fail "--force rerun differs"
# a long --out is refused, not truncated (issue 35: 1,185 characters once wrote the run to a
# truncated path with exit 0; a report --out of about 1,480 wrote outside it)
seg=$(printf 'd%.0s' $(seq 1 98)); long="$t"; for i in 1 2 3 4 5 6 7 8 9 10 11 12; do long="$long/$seg"; done # about 1,210 characters
expect 2 "--out: a path of" run --algo fedavg $tiny --out "$long"
expect 2 "--out: a path of" report "$t/a" --out "$long"
ls "$t" | grep -q '^ddddd' && fail "a refused long --out left a folder behind"
# --out a file: one line saying so (it said "cannot create: File exists"), the file unchanged
echo "my notes" > "$t/notes.txt"
expect 2 "--out $t/notes.txt: a file, not a folder" run --algo fedavg $tiny --out "$t/notes.txt"
[ "$(cat "$t/notes.txt")" = "my notes" ] || fail "a run with --out a file changed it"
# which setting leaves the clients too little data: the validation set (it said "exceeds the 10
# training samples", the 300 less --val-size's 290) or the clients themselves
sz="--train-subset 300 --test-subset 60 --batch 16 --seed 3 --quiet --per-round 2 --rounds 1 --backend cpu"
expect 2 "--val-size 290 leaves 10 of the 300 training samples for --clients 4 x --min-samples 10" run --algo fedavg $sz --clients 4 --val-size 290 --out "$t/v"
expect 2 "--clients 40 x --min-samples 10 exceeds the 300 training samples" run --algo fedavg $sz --clients 40 --val-size 10 --out "$t/v"
# a whole number too large for the option was "not an integer"
expect 2 "--rounds 99999999999: out of range" run --algo fedavg $base --per-round 2 --rounds 99999999999 --out "$t/big"
expect 2 "--rounds '2x': not an integer" run --algo fedavg $base --per-round 2 --rounds 2x --out "$t/big"
# 'all' among other names was "unknown (..., or all)"
expect 2 "--algo 'all,flce': all stands alone" run --algo all,flce $tiny --out "$t/all-and"
# a run whose training diverges fails (status 1, naming round, client and method) before it
# writes the round: it finished with status 0 and uniform contributions (the cosine rule read the
# NaN norms as no similarity), accuracy 0.1, a KL as if it meant something
for m in fedavg flce; do
  expect 1 "round 1, client 1: its model is not finite after local training (parameter" run --algo $m $tiny --lr 1e10 --backend cpu --out "$t/div-$m"
  expect 1 "diverged; a smaller --lr?" run --algo $m $tiny --lr 1e10 --backend cpu --out "$t/div2-$m"
  [ -e "$t/div-$m/metrics.csv" ] || [ -e "$t/div-$m/contributions.csv" ] && fail "a diverged $m run wrote its round"
done
# the hint names the flag most likely at fault: a loss not finite on the first batch, before any
# step, is the loss's own setting given (--tau 1e-45 once drew "a smaller --lr?")
expect 1 "before any step, is nan: --tau 1e-45 (default 0.5)?" run --algo flce $tiny --tau 1e-45 --backend cpu --out "$t/div-tau"
echo "cli_run 2: all checks passed"
