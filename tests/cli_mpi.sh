#!/bin/sh
# cli_mpi.sh: `mpirun -n P flce run` (issue 19). Every method whose client work or server work
# is spread differently (FLCE: prototypes; Ditto and MOON: per-client state; FedSV: exact
# Shapley's coalitions and GTG's permutation prefixes over the ranks; FedFV and q-FedAvg: client
# reports; CGSV) gives, with 1
# and 3 processes, the digests of the plain program; a run killed after its first round with 2
# processes and resumed with 3 ends with the same digests; a rank whose data differ is refused
# at start-up with one line naming it (exit 2); a rank that dies mid-run stops the job and the
# run folder resumes to the same digests; a stopped rank ends the job after --mpi-timeout.
# PART 1: the eight methods with 1 and 3 processes, the shared completion under its readings, GTG;
# PART 2: the released training, the kill and the resume, the dead, mismatched and stopped ranks,
# flce truth on 3 processes: two ctest entries (cli_mpi_1, cli_mpi_2), as cli_run's, rather than one
# of about 3 minutes in the release build (176-199 s on a Zen 5; CI's machines up to 1.3 times that).
set -u
flce=${1:-}; part=${2:-}
PROG=$flce
. "$(dirname "$0")/lib.sh"
case "$part" in 1|2) ;; *) fail "usage: cli_mpi.sh FLCE 1|2 (got '$part')";; esac
command -v mpirun > /dev/null || { echo "SKIPPED: no mpirun (openmpi-bin)"; exit 77; }
t=$(mktemp -d /tmp/flce-mpi-XXXXXX); trap 'rm -rf "$t"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# containers often forbid the cross-process copy Open MPI tries first: plain shared memory instead
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# with at most two processes Open MPI binds each to one core, which left one of the two cores idle
# with -n 1 (twice the plain run's time): no binding, as with more processes than cores
export OMPI_MCA_hwloc_base_binding_policy=none
mpi() { mpirun -q --oversubscribe "$@"; }

if [ "$part" = 1 ]; then
A="--algo flce,fedavg,ditto,moon,fedsv,fedfv,qfedavg,cgsv --clients 8 --per-round 4 --rounds 2 --train-subset 360 --test-subset 60
   --val-size 40 --batch 32 --seed 5 --backend cpu --quiet"
"$flce" run $A --out "$t/plain" > /dev/null 2>&1 || fail "the plain run"
for P in 1 3; do
  mpi -n $P "$flce" run $A --out "$t/p$P" > "$t/p$P.log" 2>&1 || fail "mpirun -n $P: $(tail -3 "$t/p$P.log")"
  for m in flce fedavg ditto moon fedsv fedfv qfedavg cgsv; do
    cmp -s "$t/plain/$m/digests.txt" "$t/p$P/$m/digests.txt" || fail "-n $P, $m: digests differ from the plain run"
    cmp -s "$t/plain/$m/model.safetensors" "$t/p$P/$m/model.safetensors" || fail "-n $P, $m: checkpoint differs"
  done
  [ "$(grep -c '^summary:' "$t/p$P.log")" = 1 ] || fail "-n $P: rank 0 alone reports ($(grep -c '^summary:' "$t/p$P.log") summaries)"
  # FLCE's completion after the last round is shared out (class c on rank c % P): its files the same bytes
  for f in Q.npy X_completed.npy; do cmp -s "$t/plain/flce/trace/$f" "$t/p$P/flce/trace/$f" || fail "-n $P: FLCE's $f differs"; done
  grep -v '"seconds"' "$t/plain/flce/trace/completion.json" > "$t/c0"; grep -v '"seconds"' "$t/p$P/flce/trace/completion.json" > "$t/c1"
  cmp -s "$t/c0" "$t/c1" || fail "-n $P: FLCE's completion.json differs (beyond its seconds)"
done
# the shared completion under the readings that change what a rank completes from: the ablation
# M (rank 0's momentum sent as it is), --missing unobserved (which prototypes were there sent too),
# and without completion (CMC); with 2 and 4 processes
F="--algo flce --clients 8 --per-round 4 --rounds 3 --train-subset 360 --test-subset 60 --val-size 40 --batch 32 --seed 7
   --backend cpu --quiet"
for V in "--ablate M --missing unobserved" "--ablate CMC"; do
  "$flce" run $F $V --out "$t/f1" --force > /dev/null 2>&1 || fail "plain run with $V"
  for P in 2 4; do
    mpi -n $P "$flce" run $F $V --out "$t/f$P" --force > "$t/f$P.log" 2>&1 || fail "mpirun -n $P with $V: $(tail -3 "$t/f$P.log")"
    for f in digests.txt trace/Q.npy trace/X_completed.npy; do
      cmp -s "$t/f1/$f" "$t/f$P/$f" || fail "-n $P with $V: $f differs from one process's"
    done
  done
done
# GTG-Shapley on a run whose utility moves (so that permutations are sampled): each
# permutation's prefixes spread over the ranks, the same values
G="--algo gtg --clients 6 --per-round 4 --rounds 3 --train-subset 3000 --test-subset 300 --val-size 100 --batch 32 --lr 0.05 --seed 5
   --backend cpu --quiet"
"$flce" run $G --out "$t/g1" > /dev/null 2>&1 || fail "plain GTG"
mpi -n 3 "$flce" run $G --out "$t/g3" > /dev/null 2>&1 || fail "GTG with 3"
cmp -s "$t/g1/digests.txt" "$t/g3/digests.txt" || fail "GTG with 3 processes: digests differ"
awk -F, 'NR == 2 { lo = hi = $2 + 0 } NR > 2 { x = $2 + 0; if (x < lo) lo = x; if (x > hi) hi = x } END { exit !(hi - lo > 0.01) }' \
  "$t/g1/contributions.csv" || fail "GTG's contributions are uniform (no permutation sampled): the test says nothing"
echo "cli_mpi 1: all checks passed"
exit 0
fi

# the released code's local training (issue 62: momentum, weight decay, clipping through the host,
# local steps, the sweep, FLCE's initial prototypes, FedSV's window, test-set utilities and best
# coalition): the same digests with 1 and 3 processes
R="--algo flce,fedavg,fedsv --clients 6 --per-round 3 --rounds 2 --train-subset 300 --test-subset 60 --val-size 20 --batch 16 --seed 7
   --backend cpu --quiet --as-released --local-steps 4 --clip-norm 1"
"$flce" run $R --out "$t/r1" > /dev/null 2>&1 || fail "plain run, as released"
mpi -n 3 "$flce" run $R --out "$t/r3" > /dev/null 2>&1 || fail "3 processes, as released"
for m in flce fedavg fedsv; do cmp -s "$t/r1/$m/digests.txt" "$t/r3/$m/digests.txt" || fail "as released, $m: 1 and 3 processes differ"; done
# killed after round 1 with 2 processes, resumed with 3
B="--algo flce,fedavg --clients 8 --per-round 4 --rounds 3 --train-subset 360 --test-subset 60 --val-size 40 --batch 32 --seed 6
   --backend cpu --quiet"
"$flce" run $B --out "$t/b-plain" > /dev/null 2>&1 || fail "plain run B"
FLCE_TEST_KILL_AFTER=1 mpi -x FLCE_TEST_KILL_AFTER -n 2 "$flce" run $B --out "$t/b" > /dev/null 2>&1 && fail "the killed run did not stop"
mpi -n 3 "$flce" run $B --out "$t/b" --resume > "$t/b.log" 2>&1 || fail "resume with 3: $(tail -3 "$t/b.log")"
for m in flce fedavg; do cmp -s "$t/b-plain/$m/digests.txt" "$t/b/$m/digests.txt" || fail "resumed with 3, $m: digests differ"; done
# one rank dies after round 2 (the others wait for it): the job stops and mpirun names the rank
# (without -q); resumed with 1 process
FLCE_TEST_KILL_AFTER=2 FLCE_TEST_KILL_RANK=1 mpirun --oversubscribe -x FLCE_TEST_KILL_AFTER -x FLCE_TEST_KILL_RANK -n 3 "$flce" run $B --out "$t/c" \
  > "$t/c.log" 2>&1 && fail "a dead rank did not stop the job"
grep -q "Process name: \[\[[0-9]*,1\],1\]" "$t/c.log" || fail "the dead rank is not named: $(cat "$t/c.log")"
grep -q "^flce run: flce: a process stopped during round 3 (mpirun names it above); rounds 1..2 are written" "$t/c.log" ||
  fail "rank 0 did not say the round: $(cat "$t/c.log")"
"$flce" run $B --out "$t/c" --resume > /dev/null 2>&1 || fail "resume after a dead rank"
for m in flce fedavg; do cmp -s "$t/b-plain/$m/digests.txt" "$t/c/$m/digests.txt" || fail "resumed after a dead rank, $m: digests differ"; done
# a rank with other data is refused before any work, in one line naming it
FLCE_TEST_MISMATCH_RANK=2 mpi -x FLCE_TEST_MISMATCH_RANK -n 3 "$flce" run --algo fedavg --clients 8 --per-round 4 --rounds 1 \
  --train-subset 600 --test-subset 100 --val-size 40 --seed 1 --quiet --out "$t/m" > /dev/null 2> "$t/m.err"; rc=$?
[ $rc = 2 ] || fail "a rank with other data: status $rc"
# (our lines only: an Open MPI installation may add notices of its own, e.g. about network devices)
[ "$(grep -c '^flce' "$t/m.err")" = 1 ] && grep -q '^flce run: rank 2: runs other data' "$t/m.err" || fail "mismatch message: $(cat "$t/m.err")"
[ -e "$t/m/config.json" ] && fail "a refused run wrote config.json"
# ranks agree or stop (issue 35): a rank started with another --lr (once: exit 0 and other
# digests) or another --seed (once: a collective that waited forever) is refused before any
# work, status 2 on every rank, one line naming the rank and the setting
M="--algo fedavg --clients 8 --per-round 4 --rounds 1 --train-subset 600 --test-subset 100 --val-size 40 --quiet --backend cpu"
for other in "--lr 0.02 --seed 1" "--lr 0.01 --seed 2" "--lr 0.01 --seed 1 --denormals ftz"; do
  rm -rf "$t/s"
  timeout 300 mpirun -q --oversubscribe -n 2 "$flce" run $M --lr 0.01 --seed 1 --out "$t/s" : -n 1 "$flce" run $M $other --out "$t/s"     > /dev/null 2> "$t/s.err"; rc=$?
  [ $rc = 2 ] || fail "a rank with $other: status $rc (124: it hung)"
  case "$other" in *0.02*) want="rank 2: runs other settings than rank 0 (rank 0: its lr is 0.01, this run's 0.02)";;
                   *ftz*) want="rank 2: runs other settings than rank 0 (rank 0: its denormals is \"auto\", this run's \"ftz\")";;
                   *) want="rank 2: runs other settings than rank 0 (rank 0: its seed is 1, this run's 2)";; esac
  [ "$(grep -c '^flce' "$t/s.err")" = 1 ] && grep -qF "$want" "$t/s.err" || fail "a rank with $other: $(cat "$t/s.err")"
  [ -e "$t/s/config.json" ] && fail "a refused run wrote config.json"
done
# no wait is endless (issue 35): a rank stopped (SIGSTOP) after round 1 once hung the job for
# good; with --mpi-timeout 30 the job ends within seconds of it, one line names the rank and the
# round, no process is left, and the run resumes to the digests of the plain run. A federation
# whose round trains in well under a second here, so that only the stopped rank is silent when
# the roll is called, even on one loaded core (a round of federation B under --mpi-timeout 20 was
# once the margin of a fast machine: 90 s then, idle for a minute and a half of every run)
S="--algo flce,fedavg --clients 4 --per-round 2 --rounds 2 --train-subset 80 --test-subset 20 --val-size 8 --batch 16 --seed 6
   --backend cpu --quiet"
"$flce" run $B --mpi-timeout -1 --out "$t/x" > /dev/null 2>&1; [ $? = 2 ] || fail "--mpi-timeout -1: not a usage error"
"$flce" run $S --out "$t/s-plain" > /dev/null 2>&1 || fail "plain run S"
FLCE_TEST_STOP_AFTER=1 FLCE_TEST_STOP_RANK=1 timeout 300 mpirun -q --oversubscribe -x FLCE_TEST_STOP_AFTER -x FLCE_TEST_STOP_RANK -n 3 \
  "$flce" run $S --mpi-timeout 30 --out "$t/h" > "$t/h.log" 2>&1; rc=$?
[ $rc = 124 ] && fail "a stopped rank hung the job (300 s)"
[ $rc = 0 ] && fail "a stopped rank: exit 0"
[ "$(grep -c '^flce' "$t/h.log")" = 1 ] && grep -q '^flce run: rank 1 did not answer for 30 s (--mpi-timeout) during round 2: the job ends' "$t/h.log" ||
  fail "a stopped rank: $(cat "$t/h.log")"
i=0 # the processes' exit is polled (a loaded machine takes its time), up to 60 s
while pgrep -f "$t/h" > /dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
pgrep -f "$t/h" > /dev/null && { pkill -9 -f "$t/h"; fail "a stopped rank: processes left behind after 60 s"; }
"$flce" run $S --out "$t/h" --resume > /dev/null 2>&1 || fail "resume after a stopped rank"
for m in flce fedavg; do cmp -s "$t/s-plain/$m/digests.txt" "$t/h/$m/digests.txt" || fail "resumed after a stopped rank, $m: digests differ"; done
# flce truth spread over 3 processes (issue 63): the coalitions dealt to the ranks, rank 0 gathers;
# the table and the values byte for byte those of one process
T3="--clients 3 --train-subset 150 --test-subset 30 --val-size 12 --batch 16 --per-round 2 --rounds 2 --backend cpu --seed 5 --quiet"
"$flce" truth $T3 --out "$t/tr1" > /dev/null 2>&1 || fail "flce truth, one process"
mpi -n 3 "$flce" truth $(echo "$T3" | sed 's/ --quiet//') --out "$t/tr3" > "$t/tr3.log" 2>&1 || fail "mpirun -n 3 flce truth: $(tail -3 "$t/tr3.log")"
# one progress line per coalition, whichever process trained it; the size line once (rank 0's)
[ "$(grep -c ': process [123]/3 coalition {' "$t/tr3.log")" = 8 ] || fail "mpirun -n 3 flce truth: not one progress line per coalition: $(cat "$t/tr3.log")"
[ "$(grep -c '8 coalitions x 1 seed, 8 to train (0 done), 22 client-rounds on 3 processes' "$t/tr3.log")" = 1 ] ||
  fail "mpirun -n 3 flce truth: not one size line: $(cat "$t/tr3.log")"
cmp -s "$t/tr1/utilities.csv" "$t/tr3/utilities.csv" || fail "flce truth on 3 processes: another table: $(diff "$t/tr1/utilities.csv" "$t/tr3/utilities.csv")"
cmp -s "$t/tr1/values.csv" "$t/tr3/values.csv" || fail "flce truth on 3 processes: other values"
echo "cli_mpi 2: all checks passed"
