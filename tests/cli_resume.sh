#!/bin/sh
# cli_resume.sh: --resume continues only what the run wrote (issue 20, items 3 and 10). Damaged
# or mismatched state is one line naming the file and exit 1, never a different result:
# a flipped bit or a NaN in state.bin's model, its round count edited, a truncated
# trace/prototypes.npy, a byte flipped in trace/selected.npy, other data of the same shape.
# A run killed before its first round ends resumes to the uninterrupted run's digests and
# model.safetensors (num_batches_tracked included); a folder with someone's metrics.csv but
# no config.json is not overwritten without --force. A state of another run (other settings or
# method) is refused naming what differs; after a resume every per-round file holds the rounds
# the state says are done; a run that died before its first state resumes from round 0 or is
# replaced by a plain rerun. A folder another process is writing is refused (status 2), and a
# running flce holds its folder. An unfinished run's trace is evaluated for its rounds done only.
set -u
flce=$1
PROG=$flce
. "$(dirname "$0")/lib.sh"
t=$(mktemp -d /tmp/flce-resume-XXXXXX); trap 'rm -rf "$t"' EXIT
# a copy of the data, so that it can be changed
src=/usr/share/datasets/fashion-mnist
[ -d "$src" ] || fail "no Fashion-MNIST in $src (dataset-fashion-mnist)"
mkdir "$t/fm" && cp "$src"/*-ubyte.gz "$t/fm/" || fail "copy the data"
tiny="--clients 4 --per-round 2 --rounds 2 --train-subset 300 --test-subset 60 --val-size 20 --batch 16 --seed 3 --quiet --backend cpu --data $t/fm"
"$flce" run --algo flce $tiny --out "$t/full" > /dev/null 2>&1 || fail "uninterrupted run"
# killed before its first round, and after round 1: both resume to the same bits
for k in 0 1; do
  FLCE_TEST_KILL_AFTER=$k "$flce" run --algo flce $tiny --out "$t/k$k" > /dev/null 2>&1
  [ -f "$t/k$k/state.bin" ] || fail "killed after $k rounds: no state.bin"
  [ -f "$t/k$k/digests.txt" ] && fail "killed after $k rounds: the run finished"
  "$flce" run --algo flce $tiny --out "$t/k$k" --resume > /dev/null 2>&1 || fail "resume after $k rounds"
  cmp -s "$t/full/digests.txt" "$t/k$k/digests.txt" || fail "resumed after $k rounds: digests differ"
  cmp -s "$t/full/model.safetensors" "$t/k$k/model.safetensors" || fail "resumed after $k rounds: model.safetensors differs"
done
# --resume of a finished run leaves every file as it is (it redid FLCE's completion: costs.txt and
# completion.json were rewritten with new seconds, device.txt with the resuming machine) and
# says so; a finished run whose contributions.csv was edited is refused, not reported
cp -a "$t/full" "$t/fin"
sleep 1
"$flce" run --algo flce $tiny --out "$t/fin" --resume > "$t/fin.out" 2> "$t/fin.err" || fail "resume of a finished run: $(cat "$t/fin.err")"
grep -q "finished already (2 rounds): its files are left as they are" "$t/fin.err" || fail "resume of a finished run: not said: $(cat "$t/fin.err")"
for f in $(cd "$t/full" && find . -type f); do
  cmp -s "$t/full/$f" "$t/fin/$f" || fail "resume of a finished run changed $f"
done
[ -z "$(find "$t/fin" -type f -newer "$t/full/digests.txt")" ] || fail "resume of a finished run wrote $(find "$t/fin" -type f -newer "$t/full/digests.txt")"
grep -q "^flce " "$t/fin.out" || fail "resume of a finished run: no summary row"
awk -F, 'BEGIN { OFS = "," } NR == 2 { $2 = $2 + 0.001 } { print }' "$t/full/contributions.csv" > "$t/fin/contributions.csv"
expect 1 "finished, but its contributions.csv is not the one its digests.txt names" run --algo flce $tiny --out "$t/fin" --resume
# a finished run without its state.bin (as study_pack.sh carries finished runs): --resume ran it
# again from round 0, hours for a study's run, and rewrote it
cp -a "$t/full" "$t/nostate" && rm "$t/nostate/state.bin"
expect 2 "is a finished run without its state.bin" run --algo flce $tiny --out "$t/nostate" --resume
[ -z "$(find "$t/nostate" -type f -newer "$t/full/digests.txt")" ] || fail "a refused resume wrote into the finished run"
# damaged state: each a fresh copy of a run killed after round 1
fresh() {
  rm -rf "$t/d"
  FLCE_TEST_KILL_AFTER=1 "$flce" run --algo flce $tiny --out "$t/d" > /dev/null 2>&1
}
flip() { # flip one bit of byte $2 of file $1
  b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  printf "$(printf '\\%03o' $((b ^ 1)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
fresh; flip "$t/d/state.bin" 100
expect 1 "state.bin: checksum mismatch" run --algo flce $tiny --out "$t/d" --resume
fresh; printf '\377\377\377\177' | dd of="$t/d/state.bin" bs=1 seek=40 conv=notrunc 2>/dev/null # a NaN in the model
expect 1 "state.bin: checksum mismatch" run --algo flce $tiny --out "$t/d" --resume
fresh; printf '\000' | dd of="$t/d/state.bin" bs=1 seek=4 conv=notrunc 2>/dev/null # done: 1 -> 0
expect 1 "state.bin" run --algo flce $tiny --out "$t/d" --resume
fresh; printf 'FLS4' | dd of="$t/d/state.bin" bs=1 seek=0 conv=notrunc 2>/dev/null # an older build's state: said so, not "damaged"
expect 2 "was written by an older build (state format FLS4, this one reads FLS5)" run --algo flce $tiny --out "$t/d" --resume
fresh; truncate -s -100 "$t/d/trace/prototypes.npy"
expect 1 "trace/prototypes.npy" run --algo flce $tiny --out "$t/d" --resume
fresh; sz=$(wc -c < "$t/d/trace/selected.npy"); flip "$t/d/trace/selected.npy" $((sz - 2 * 4 + 1)) # round 1, client 1 (2 rounds x 4 clients, a byte each)
expect 1 "trace/selected.npy: checksum mismatch" run --algo flce $tiny --out "$t/d" --resume
# an unfinished run's trace (round 2 of 2 not run): flce eval refuses to complete the round that
# never happened, and evaluates the round done with --rounds 1, as the finished run's first round
fresh
expect 2 "rounds 2..2 of 2 were not run (an unfinished run): evaluate the rounds done with --rounds 1" eval "$t/d/trace" --out "$t/ev"
[ -e "$t/ev" ] && fail "a refused evaluation wrote $t/ev"
"$flce" eval "$t/d/trace" --out "$t/ev1" --rounds 1 > /dev/null 2>&1 || fail "eval --rounds 1 of an unfinished run"
"$flce" eval "$t/full/trace" --out "$t/evf" --rounds 1 > /dev/null 2>&1 || fail "eval --rounds 1 of the finished run"
cmp -s "$t/ev1/contributions.csv" "$t/evf/contributions.csv" || fail "round 1 of the unfinished run evaluates otherwise than the finished run's"
# a round without a selection before one with: damaged (the first row of selected.npy zeroed: 4 clients)
cp -r "$t/full/trace" "$t/holed"
sz=$(wc -c < "$t/holed/selected.npy")
printf '\000\000\000\000' | dd of="$t/holed/selected.npy" bs=1 seek=$((sz - 8)) conv=notrunc 2>/dev/null
expect 1 "round 1 selects no client but round 2 does" eval "$t/holed" --out "$t/evh"
# other data of the same shape: one test label changed
fresh
gunzip -c "$t/fm/t10k-labels-idx1-ubyte.gz" > "$t/lab"
lb=$(od -An -tu1 -j 8 -N1 "$t/lab" | tr -d ' ')
printf "$(printf '\\%03o' $(((lb + 1) % 10)))" | dd of="$t/lab" bs=1 seek=8 conv=notrunc 2>/dev/null
gzip -c "$t/lab" > "$t/fm/t10k-labels-idx1-ubyte.gz"
expect 1 "not the data this run used" run --algo flce $tiny --out "$t/d" --resume
# a state belongs to one run (issue 35): another run's state.bin is refused, naming what differs
"$flce" run --algo fedavg $tiny --out "$t/fa" > /dev/null 2>&1 || fail "fedavg run"
FLCE_TEST_KILL_AFTER=1 "$flce" run --algo fedavg $tiny --lr 0.02 --out "$t/lr" > /dev/null 2>&1
cp "$t/fa/state.bin" "$t/lr/state.bin"
expect 2 "belongs to another run (its lr is 0.01, this run's 0.02)" run --algo fedavg $tiny --lr 0.02 --out "$t/lr" --resume
FLCE_TEST_KILL_AFTER=1 "$flce" run --algo fedprox $tiny --out "$t/px" > /dev/null 2>&1
cp "$t/fa/state.bin" "$t/px/state.bin"
expect 2 'belongs to another run (its algo is "fedavg", this run'"'"'s "fedprox")' run --algo fedprox $tiny --out "$t/px" --resume
# the same settings, a finished run's state in a run killed after round 1: the per-round files
# then hold the two rounds the state says are done, not the one the killed run wrote
FLCE_TEST_KILL_AFTER=1 "$flce" run --algo fedavg $tiny --out "$t/sw" > /dev/null 2>&1
cp "$t/fa/state.bin" "$t/sw/state.bin"
"$flce" run --algo fedavg $tiny --out "$t/sw" --resume > /dev/null 2>&1 || fail "resume with a finished state"
[ "$(wc -l < "$t/sw/metrics.csv")" = 3 ] || fail "after a resume metrics.csv holds $(($(wc -l < "$t/sw/metrics.csv") - 1)) rounds, not 2"
cmp -s "$t/sw/metrics.csv" "$t/fa/metrics.csv" || fail "after a resume metrics.csv is not the run's"
cmp -s "$t/sw/round_contributions.csv" "$t/fa/round_contributions.csv" || fail "after a resume round_contributions.csv is not the run's"
# a run that died before its first state.bin (config.json only): --resume starts it from round 0,
# and a plain rerun replaces it without --force; both end at the uninterrupted digests
for how in resume rerun; do
  FLCE_TEST_KILL_AFTER=0 "$flce" run --algo flce $tiny --out "$t/dead$how" > /dev/null 2>&1
  rm -f "$t/dead$how/state.bin"
  if [ $how = resume ]; then "$flce" run --algo flce $tiny --out "$t/dead$how" --resume > /dev/null 2>&1 || fail "--resume of a run without state"
  else "$flce" run --algo flce $tiny --out "$t/dead$how" > /dev/null 2>&1 || fail "rerun of a run without state"; fi
  cmp -s "$t/full/digests.txt" "$t/dead$how/digests.txt" || fail "a run without state, $how: digests differ"
done
# one process at a time in a run folder: while another holds it (here flock(1), as a running flce
# holds it), a run there with --resume or --force is a usage error and changes no file
command -v flock > /dev/null || fail "no flock(1) (util-linux)"
sum_fa=$(cat "$t/fa/config.json" "$t/fa/metrics.csv" "$t/fa/digests.txt" "$t/fa/state.bin" | md5sum)
for how in --resume --force; do
  err=$(flock -n "$t/fa" "$flce" run --algo fedavg $tiny --out "$t/fa" $how 2>&1 >/dev/null); rc=$?
  [ "$rc" = 2 ] || fail "a run into a folder in use ($how): status $rc, expected 2 ($err)"
  case "$err" in *"another flce run is writing this folder"*) ;; *) fail "a folder in use ($how): '$err'";; esac
done
[ "$(cat "$t/fa/config.json" "$t/fa/metrics.csv" "$t/fa/digests.txt" "$t/fa/state.bin" | md5sum)" = "$sum_fa" ] ||
  fail "a refused run changed the folder in use"
# and a running flce holds its folder: from its config.json to its end (1,000 rounds: it is
# killed once checked, so it still runs however fast the machine; its start is waited for up
# to 10 minutes, however slow)
"$flce" run --algo fedavg --clients 4 --per-round 2 --rounds 1000 --train-subset 300 --test-subset 60 --val-size 20 --batch 16 \
  --seed 3 --quiet --backend cpu --data "$t/fm" --out "$t/busy" > /dev/null 2>&1 &
bg=$!
i=0
while [ ! -f "$t/busy/config.json" ] && [ $i -lt 6000 ]; do sleep 0.1; i=$((i + 1)); done
[ -f "$t/busy/config.json" ] || fail "the background run wrote no config.json in 10 minutes"
flock -n -E 3 "$t/busy" true; rc=$?
kill -0 $bg 2> /dev/null || fail "the background run of 1,000 rounds ended before the check"
kill $bg; wait $bg 2> /dev/null
[ "$rc" = 3 ] || fail "a running flce did not hold its folder (flock -n: status $rc)"
# someone's metrics.csv without a run
mkdir "$t/theirs" && echo "their,numbers" > "$t/theirs/metrics.csv"
expect 2 "holds metrics.csv but no run" run --algo fedavg $tiny --out "$t/theirs"
[ "$(cat "$t/theirs/metrics.csv")" = "their,numbers" ] || fail "someone's metrics.csv was changed"
# runs nested in runs: a run of several methods into a run's folder put its method folders beside
# the run, a run into the folder of several methods' runs put its files beside theirs; `flce
# report` on such a folder reported the one and left out the others, status 0
sum_fa=$(cat "$t/fa/config.json" "$t/fa/metrics.csv" "$t/fa/digests.txt" "$t/fa/state.bin" | md5sum)
for how in "" --force --resume; do
  expect 2 "is the folder of a run (config.json)" run --algo fedavg,fedprox $tiny --out "$t/fa" $how
done
[ ! -e "$t/fa/fedavg" ] && [ ! -e "$t/fa/fedprox" ] || fail "method folders made inside a run's folder"
[ "$(cat "$t/fa/config.json" "$t/fa/metrics.csv" "$t/fa/digests.txt" "$t/fa/state.bin" | md5sum)" = "$sum_fa" ] ||
  fail "a refused run of several methods changed the run in its --out"
mkdir -p "$t/several/fedavg" "$t/several2/fedprox"
cp "$t/fa/config.json" "$t/several/fedavg/"; echo "method,accuracy" > "$t/several2/summary.csv"
for how in "" --force; do
  expect 2 "is the folder of a run of several methods (it holds fedavg/)" run --algo fedavg $tiny --out "$t/several" $how
  expect 2 "(it holds summary.csv)" run --algo fedavg $tiny --out "$t/several2" $how
done
[ ! -e "$t/several/config.json" ] && [ ! -e "$t/several2/config.json" ] || fail "a run written into a folder of runs"
mkdir "$t/mixed" && cp -r "$t/fa/." "$t/mixed/" && mkdir "$t/mixed/fedprox" && cp -r "$t/fa/." "$t/mixed/fedprox/"
expect 2 "a run's folder that also holds other runs" report "$t/mixed" --out "$t/mixed-report"
[ ! -e "$t/mixed-report" ] || fail "a refused report wrote its folder"
echo "cli_resume: all checks passed"
