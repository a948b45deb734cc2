#!/bin/sh
# presets.sh FLCE: scripts/presets/run.sh at one round and one seed (FLCE_PRESET_ROUNDS=1,
# FLCE_PRESET_SEEDS=1): the main experiment makes its run folder (the main job's settings in each
# method's config.json) and a report; run again, it says the folder is done and ends with status
# 0 although OUT now holds the report folder, which is no run (a loop once ended the script there
# under set -e); FLCE_PRESET_REPORT=0 makes no report; moreseeds runs the next two seeds of the
# normal configurations with FLCE, FedAvg and FedSV only; a wrong experiment or seed count is
# one line and status 2. study_pack.sh carries a run cut short that --resume then finishes.
set -u
flce=$1
PROG=$flce
. "$(dirname "$0")/lib.sh"
run=$(cd "$(dirname "$0")/.." && pwd)/scripts/presets/run.sh
t=$(mktemp -d /tmp/flce-presets-XXXXXX); trap 'rm -rf "$t"' EXIT
# 600 training images (FLCE_PRESET_SUBSET): the presets' logic, not their data, is under test
export FLCE_BIN="$flce" FLCE_PRESET_ROUNDS=1 FLCE_PRESET_SEEDS=1 FLCE_PRESET_SUBSET=600
# a truth of flce truth still unfinished in OUT (truth.json, no values.csv) is left out of the
# report, and said so, rather than ending it (the report refuses an unfinished truth)
mkdir -p "$t/o/fmnist-truth-x" && echo '{}' > "$t/o/fmnist-truth-x/truth.json"
sh "$run" main small "$t/o" > "$t/1.log" 2>&1 || fail "run.sh main: $(tail -3 "$t/1.log")"
grep -q "fmnist-truth-x: the truth is not finished (no values.csv); left out of the report" "$t/1.log" ||
  fail "the unfinished truth was not said to be left out: $(cat "$t/1.log")"
rm -rf "$t/o/fmnist-truth-x"
for a in flce fedavg fedsv; do
  c="$t/o/fmnist-main-s1/$a/config.json"
  [ -f "$c" ] || fail "no $a run in fmnist-main-s1: $(ls "$t/o/fmnist-main-s1")"
  json_has "$c" '"rounds":1,' && json_has "$c" '"lr":0.05,' && json_has "$c" '"partition":"iid"' && json_has "$c" '"seed":1,' ||
    fail "$a: not the main job's settings at one round: $(cat "$c")"
done
[ -s "$t/o/report/report.html" ] || fail "no report"
sh "$run" main small "$t/o" > "$t/2.log" 2>&1 || fail "run.sh main again (OUT holds report/): status $?: $(tail -3 "$t/2.log")"
grep -q '^fmnist-main-s1: done already$' "$t/2.log" || fail "the finished folder was not skipped: $(cat "$t/2.log")"
grep -q '^results: ' "$t/2.log" || fail "run.sh stopped before its end: $(tail -3 "$t/2.log")"
rm -rf "$t/o/report"
FLCE_PRESET_REPORT=0 sh "$run" main small "$t/o" > "$t/3.log" 2>&1 || fail "FLCE_PRESET_REPORT=0: $(tail -3 "$t/3.log")"
[ -e "$t/o/report" ] && fail "FLCE_PRESET_REPORT=0 made a report"
grep -q 'no report: FLCE_PRESET_REPORT=0' "$t/3.log" || fail "FLCE_PRESET_REPORT=0 does not say so: $(tail -2 "$t/3.log")"
FLCE_PRESET_REPORT=0 sh "$run" moreseeds small "$t/o" > "$t/4.log" 2>&1 || fail "moreseeds: $(tail -3 "$t/4.log")"
for d in noniid-s2 noniid-s3 iid-s2 iid-s3; do
  [ "$(ls "$t/o/fmnist-$d" | grep -v '\.csv$' | tr '\n' ' ')" = "fedavg fedsv flce " ] || fail "moreseeds fmnist-$d: $(ls "$t/o/fmnist-$d")"
done
[ -e "$t/o/fmnist-noniid-s1" ] && fail "moreseeds ran seed 1"
json_has "$t/o/fmnist-noniid-s3/flce/config.json" '"seed":3,' && json_has "$t/o/fmnist-noniid-s3/flce/config.json" '"dirichlet":0.5,' ||
  fail "moreseeds: fmnist-noniid-s3 is not Dirichlet 0.5 with seed 3"
err=$(sh "$run" bogus small "$t/o" 2>&1 >/dev/null); rc=$?
[ $rc = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && case "$err" in *usage:*moreseeds*) true;; *) false;; esac ||
  fail "run.sh bogus: status $rc, '$err'"
err=$(FLCE_PRESET_ROUNDS="5/;s/x/" sh "$run" main small "$t/o" 2>&1 >/dev/null); rc=$?
[ $rc = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && case "$err" in *FLCE_PRESET_ROUNDS*) true;; *) false;; esac ||
  fail "FLCE_PRESET_ROUNDS='5/;s/x/' (once went into a sed expression): status $rc, '$err'"
# a word after OUT (`run.sh main small OUT --seeds 5`) was ignored and the preset ran without it
err=$(sh "$run" main small "$t/extra" --seeds 5 2>&1 >/dev/null); rc=$?
case "$err" in *"EXPERIMENT SCALE [OUT] only"*) ok=1;; *) ok=0;; esac
[ $rc = 2 ] && [ $ok = 1 ] && [ ! -e "$t/extra" ] || fail "run.sh with a fourth word: status $rc, '$err'"
# the study scripts too took extra words without a word (of these the old code failed on the first
# word, so this test stays quick on it; setup.sh, test.sh, main_job.sh and gpu_proof.sh are guarded
# the same way but would run on the old code)
sdir=$(dirname "$run")/..
for cmd in "same_results.sh $t/none1 $t/none2 $t/d extra" "study_recomplete.sh $t/none extra" "horizon_finish.sh $t/none extra" "released_finish.sh $t/none extra" "truth_finish.sh $t/none extra" \
           "study_pack.sh unpack $t/none $t/none.tar.xz extra"; do
  # shellcheck disable=SC2086
  err=$(sh "$sdir"/$cmd 2>&1 >/dev/null); rc=$?
  case "$err" in *"(got "*" arguments)"*) ok=1;; *) ok=0;; esac
  [ $rc = 2 ] && [ $ok = 1 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "scripts/$cmd: status $rc, '$err'"
done
# released_retrace.sh: a misspelt configuration is one line, status 2, before anything is trained;
# an archived run it cannot find is a failure of the work (status 1) naming the run
err=$(sh "$sdir/released_retrace.sh" "$t" nonidd 2>&1 >/dev/null); rc=$?
[ $rc = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && case "$err" in *"PART 'nonidd'"*) true;; *) false;; esac ||
  fail "released_retrace.sh with a misspelt part: status $rc, '$err'"
err=$(FLCE_RETRACE_DIR=$t/rt sh "$sdir/released_retrace.sh" "$t" iid 2>&1 >/dev/null); rc=$?
[ $rc = 1 ] && case "$err" in *"fmnist-rel-iid-text-s301/flce: not a finished run"*) true;; *) false;; esac ||
  fail "released_retrace.sh without the archived runs: status $rc, '$err'"
[ -d "$t/rt/iid-s301" ] && fail "released_retrace.sh trained before it found the archived run"
# with a finished run in FLCE_RETRACE_DIR nothing is trained: equal digests put its trace files
# back; different digests copy nothing and fail (status 1)
for s in 301 302 303; do
  mkdir -p "$t/arch/fmnist-rel-iid-text-s$s/flce/trace" "$t/rt/iid-s$s/trace"
  echo "trace $s" > "$t/arch/fmnist-rel-iid-text-s$s/flce/digests.txt"; echo "trace $s" > "$t/rt/iid-s$s/digests.txt"
  for f in prototypes.npy prototypes_alt.npy prototypes_first.npy selected.npy; do echo "$f $s" > "$t/rt/iid-s$s/trace/$f"; done
done
FLCE_RETRACE_DIR=$t/rt sh "$sdir/released_retrace.sh" "$t/arch" iid > /dev/null 2>&1 || fail "released_retrace.sh with equal digests failed"
[ "$(cat "$t/arch/fmnist-rel-iid-text-s302/flce/trace/selected.npy")" = "selected.npy 302" ] || fail "released_retrace.sh put nothing back"
rm "$t"/arch/fmnist-rel-iid-text-s30?/flce/trace/*.npy; echo "trace other" > "$t/rt/iid-s302/digests.txt"
err=$(FLCE_RETRACE_DIR=$t/rt sh "$sdir/released_retrace.sh" "$t/arch" iid 2>&1 >/dev/null); rc=$?
[ $rc = 1 ] && case "$err" in *"iid-s302's digests differ"*) true;; *) false;; esac || fail "released_retrace.sh, digests that differ: status $rc, '$err'"
[ -f "$t/arch/fmnist-rel-iid-text-s302/flce/trace/prototypes.npy" ] && fail "released_retrace.sh copied a trajectory whose digests differ"
# a misspelt configuration in FLCE_PRESET_PARTS ran nothing at all, status 0
for parts in "nonidd" "iid dir0.1" ""; do
  err=$(FLCE_PRESET_PARTS="$parts" sh "$run" horizon small "$t/hz" 2>&1 >/dev/null); rc=$?
  [ $rc = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && case "$err" in *FLCE_PRESET_PARTS*) true;; *) false;; esac ||
    fail "FLCE_PRESET_PARTS='$parts' for horizon: status $rc, '$err'"
done
[ -e "$t/hz" ] && fail "a refused preset made $t/hz"
err=$(FLCE_PRESET_SEEDS=x sh "$run" main small "$t/o" 2>&1 >/dev/null); rc=$?
[ $rc = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && case "$err" in *FLCE_PRESET_SEEDS*) true;; *) false;; esac ||
  fail "FLCE_PRESET_SEEDS=x: status $rc, '$err'"
# study_pack.sh, the readings/horizon archive: a method run cut short is carried whole, with its
# state and trace, and the preset's --resume continues it to the uninterrupted run's digests
# (the horizon's 200-round runs outlast a session; before, such a run was left out and started
# again from round 0)
pack=$(cd "$(dirname "$0")/.." && pwd)/scripts/study_pack.sh
tiny="--algo flce --clients 4 --per-round 2 --rounds 2 --train-subset 300 --test-subset 60 --val-size 20 --batch 16 --seed 3 --quiet --backend cpu"
"$flce" run $tiny --out "$t/full" > /dev/null 2>&1 || fail "uninterrupted tiny run"
FLCE_TEST_KILL_AFTER=1 "$flce" run $tiny --out "$t/r/fmnist-readings-x-s1" > /dev/null 2>&1
[ -f "$t/r/fmnist-readings-x-s1/state.bin" ] && [ ! -f "$t/r/fmnist-readings-x-s1/digests.txt" ] || fail "the run killed after round 1 finished or left no state"
sh "$pack" pack "$t/r" "$t/a/fmnist-readings/runs.tar.xz" > "$t/p.log" 2>&1 || fail "study_pack.sh pack: $(tail -2 "$t/p.log")"
grep -q '1 method runs cut short' "$t/p.log" || fail "the run cut short was not carried: $(tail -1 "$t/p.log")"
sh "$pack" unpack "$t/u" "$t/a/fmnist-readings/runs.tar.xz" > "$t/p.log" 2>&1 || fail "study_pack.sh unpack: $(tail -2 "$t/p.log")"
"$flce" run $tiny --out "$t/u/fmnist-readings-x-s1" --resume > "$t/p.log" 2>&1 || fail "--resume of the unpacked run: $(tail -2 "$t/p.log")"
cmp -s "$t/full/digests.txt" "$t/u/fmnist-readings-x-s1/digests.txt" || fail "the unpacked run resumed to other digests"
# unpacking the same archive again over the finished run keeps the run (the archive's round-1
# state.bin and metrics.csv once overwrote it beside its own digests.txt); a run here that is
# behind the archive's (no round yet) is replaced by it
cp -r "$t/u/fmnist-readings-x-s1" "$t/before"
sh "$pack" unpack "$t/u" "$t/a/fmnist-readings/runs.tar.xz" > "$t/p.log" 2>&1 || fail "study_pack.sh unpack again: $(tail -2 "$t/p.log")"
grep -q "0 method runs taken from the archive, 1 kept" "$t/p.log" || fail "unpack over a finished run: $(tail -1 "$t/p.log")"
diff -r "$t/before" "$t/u/fmnist-readings-x-s1" > /dev/null || fail "unpacking the archive again changed the finished run"
ls -A "$t/u" | grep -q unpack && fail "unpack left its temporary folder"
mkdir -p "$t/v/fmnist-readings-x-s1" && cp "$t/before/config.json" "$t/v/fmnist-readings-x-s1/"
sh "$pack" unpack "$t/v" "$t/a/fmnist-readings/runs.tar.xz" > "$t/p.log" 2>&1 || fail "study_pack.sh unpack over a run behind: $(tail -2 "$t/p.log")"
grep -q "1 method runs taken from the archive, 0 kept" "$t/p.log" && [ -f "$t/v/fmnist-readings-x-s1/state.bin" ] ||
  fail "unpack over a run behind the archive's: $(tail -1 "$t/p.log")"
echo "presets: ok"
