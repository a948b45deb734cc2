#!/bin/sh
# cli_eval.sh FLCE FIXTURES: `flce eval` on the trace of tests/fixtures.c, whose
# contributions are worked out by hand:
#   class 0, round 0: M = (1/2, 1/2), V uniform -> Q = (1/2, 1/2), g = (1/2, 1/2)
#   class 0, round 1: pbar = (1/2, 1); s = (1/3, 2/3); phat = (1/3, 4/3); M = (1/5, 4/5);
#                     |p - g|^2 = (1/2, 5/2) -> V = (1/6, 5/6); Q = (1/21, 20/21)
#   class 1: one client per round -> Q = 1
#   -CMC, a = b = 1/2: CE = (0.375, 0.125 + 1/84, 0.25 + 5/21)
#   -CMC, b = (1, 3):  CE = (1.75, 0.25 + 1/42, 1.5 + 10/21) / 4
set -u
flce=$1; fixtures=$2
PROG=$flce
. "$(dirname "$0")/lib.sh"
calc() { awk "BEGIN { printf \"%.17g\", $1 }"; }
t=$(mktemp -d /tmp/flce-eval-XXXXXX); trap 'rm -rf "$t"' EXIT
mkdir "$t/trace" "$t/out"
"$fixtures" trace "$t/trace" || fail "fixtures"

check() { # check FILE c0 c1 c2
  awk -F, -v a="$2" -v b="$3" -v c="$4" 'NR==1 { if ($0 != "client,contribution") exit 1; next }
    { want = (NR==2) ? a : (NR==3) ? b : c; d = $2 - want; if (d < 0) d = -d; if (d > 1e-12) { print "client " $1 ": " $2 " vs " want; exit 1 } }
    END { if (NR != 4) exit 1 }' "$1" || fail "$1 differs from the hand-worked values"
}
"$flce" eval "$t/trace" --out "$t/out" --ablate CMC > "$t/log" || fail "eval -CMC: $(cat "$t/log")"
check "$t/out/contributions.csv" 0.375 "$(calc '0.125 + 1/84')" "$(calc '0.25 + 5/21')"
grep -q "KL(contributions || data shares)" "$t/log" || fail "no KL line"
echo "1, 3" > "$t/cw.txt"
"$flce" eval "$t/trace" --out "$t/out" --ablate cmc --class-weights "$t/cw.txt" > /dev/null || fail "eval class weights"
check "$t/out/contributions.csv" 0.4375 "$(calc '(0.25 + 1/42)/4')" "$(calc '(1.5 + 10/21)/4')"
# -Q and -CMC: Q = 1/|S| -> class 0 rounds (1/2,1/2,0), (0,1/2,1/2); class 1 as before
"$flce" eval "$t/trace" --out "$t/out" --ablate CMC --ablate Q > "$t/logq" || fail "eval -Q"
check "$t/out/contributions.csv" 0.375 0.25 0.375
# the released code's velocity ||p - g||: class 0, round 1: |p - g| = (1/sqrt 2, sqrt(5/2)), V = (1, sqrt 5)/(1 + sqrt 5),
# M = (1/5, 4/5) -> Q1 = 1 / (1 + 4 sqrt 5) for client 1, 4 sqrt 5 / (1 + 4 sqrt 5) for client 2
# (-CMC, a = b = 1/2: CE = (0.375, 0.125 + Q1/4, 0.25 + (1 - Q1)/4)); forgetting an absent class
# changes nothing here (every class is present in both rounds, and round 0's two prototypes of
# class 0 have the same norm)
"$flce" eval "$t/trace" --out "$t/out" --ablate CMC --velocity distance > "$t/logv" || fail "eval --velocity distance: $(cat "$t/logv")"
q1=$(calc '1 / (1 + 4 * sqrt(5))')
check "$t/out/contributions.csv" 0.375 "$(calc "0.125 + $q1 / 4")" "$(calc "0.25 + (1 - $q1) / 4")"
grep -q "velocity ||p - g|| (not squared), a class absent from a round keeps its global prototype" "$t/logv" || fail "the rules not said: $(cat "$t/logv")"
json_has "$t/out/completion_eval.json" '"velocity":"distance","absent_class":"keep"' ||
  fail "completion_eval.json does not record the rules: $(cat "$t/out/completion_eval.json")"
"$flce" eval "$t/trace" --out "$t/out" --ablate CMC --absent-class forget > /dev/null || fail "eval --absent-class forget"
check "$t/out/contributions.csv" 0.375 "$(calc '0.125 + 1/84')" "$(calc '0.25 + 5/21')"
expect 2 "--velocity 'cubed': squared (the text) or distance (the released code)" eval "$t/trace" --out "$t/out" --velocity cubed
expect 2 "--absent-class 'drop': keep (the text) or forget (the released code)" eval "$t/trace" --out "$t/out" --absent-class drop
expect 2 "--velocity, --absent-class: rules of the velocity, and --ablate V leaves it out" eval "$t/trace" --out "$t/out" --ablate V --velocity distance
# the released code's KL (KL_cmp.py): (0.375, 0.25, 0.375) min-max to (1, 0.01, 1), sum 2.01;
# against uniform sum p ln(3 p), against the data shares (0.1, 0.3, 0.6) sum p ln(p / share)
ku=$(calc '2 * (1/2.01) * log(3/2.01) + (0.01/2.01) * log(0.03/2.01)')
ks=$(calc '(1/2.01) * log((1/2.01)/0.1) + (0.01/2.01) * log((0.01/2.01)/0.3) + (1/2.01) * log((1/2.01)/0.6)')
line=$(grep '^KL as released (min-max to \[0.01, 1\]): against uniform = ' "$t/logq") || fail "no released-KL line: $(cat "$t/logq")"
awk -v l="$line" -v u="$ku" -v s="$ks" 'BEGIN { n = split(l, w, " "); gu = w[11] + 0; gs = w[n] + 0
  du = gu - u; ds = gs - s; if (du < 0) du = -du; if (ds < 0) ds = -ds; exit !(du < 1e-6 && ds < 1e-6) }' ||
  fail "the released KL: '$line', worked out by hand: uniform $ku, shares $ks"
# with completion: the default output folder is the trace's sibling TRACE-eval, said in the last
# line, and the trace folder gains nothing (it once received Q.npy and contributions.csv: an
# evaluation wrote into its input); contributions sum to 1
(cd "$t/trace" && ls -A) > "$t/trace.before"
"$flce" eval "$t/trace/" > "$t/log" || fail "eval: $(cat "$t/log")"
[ -f "$t/trace-eval/contributions.csv" ] && [ -f "$t/trace-eval/Q.npy" ] && [ -f "$t/trace-eval/X_completed.npy" ] || fail "outputs missing in trace-eval"
tail -1 "$t/log" | grep -qF "wrote $t/trace-eval/contributions.csv" || fail "the default --out not said: $(tail -1 "$t/log")"
(cd "$t/trace" && ls -A) | cmp -s - "$t/trace.before" || fail "the evaluation wrote into the trace it read: $(cd "$t/trace" && ls -A)"
awk -F, 'NR>1 { s += $2; if ($2 < 0) exit 1 } END { d = s - 1; if (d < 0) d = -d; exit d > 1e-12 }' "$t/trace-eval/contributions.csv" || fail "not a distribution"
# an output never the input: the trace itself (through a link too) or a folder inside it
expect 2 "is the trace folder it reads" eval "$t/trace" --out "$t/trace"
ln -s "$t/trace" "$t/trace-link"
expect 2 "is the trace folder it reads" eval "$t/trace-link" --out "$t/trace/"
expect 2 "inside the trace folder it reads" eval "$t/trace" --out "$t/trace/sub/x"
[ ! -e "$t/trace/sub" ] || fail "a refused --out inside the trace was made"
# an output it cannot write is said before the work: a folder where Q.npy goes, given with a
# damaged trace, names the folder (the trace's damage would be found only by reading it)
mkdir -p "$t/blocked/Q.npy"
expect 1 "$t/blocked/Q.npy: cannot replace: a folder, not a file" eval "$t/trace" --out "$t/blocked"

expect 2 "needs TRACE_DIR" eval
expect 2 "no such trace directory" eval "$t/nope"
expect 2 "--ablate 'X'" eval "$t/trace" --ablate X
expect 2 "flce run" eval "$t/trace" --ablate CL
expect 2 "--rank 0" eval "$t/trace" --rank 0
expect 2 "--mu -1" eval "$t/trace" --mu -1
expect 2 "--completion literal takes a fixed rank" eval "$t/trace" --completion literal --rank auto
# auto and literal run on the hand-worked trace and say what they did
"$flce" eval "$t/trace" --out "$t/auto" --rank auto --mu auto --heldout > "$t/auto.log" || fail "eval --rank auto --mu auto"
grep -q "auto (5-fold held-out error) chose" "$t/auto.log" || fail "eval auto: no line naming the choice"
json_has "$t/auto/completion_eval.json" '"rank":"auto","mu":"auto"' || fail "completion_eval.json lacks the settings"
grep -q "held-out MSE" "$t/auto.log" || fail "eval --heldout printed no error"
"$flce" eval "$t/trace" --out "$t/rule" --rank rule --mu 0.01 > /dev/null || fail "eval --rank rule"
json_has "$t/rule/completion_eval.json" '"rank":"rule","mu":0.01' || fail "completion_eval.json lacks the rule's settings"
"$flce" eval "$t/trace" --out "$t/dflt" > /dev/null || fail "eval with the default completion"
json_has "$t/dflt/completion_eval.json" '"rank":"auto","mu":"auto"' || fail "the default completion is not auto"
"$flce" eval "$t/trace" --out "$t/lit" --completion literal > "$t/lit.log" || fail "eval --completion literal"
grep -q "literal (all entries)" "$t/lit.log" || fail "eval literal: not said"
# --out DIR that does not exist yet is created, as by every other command (issue 20, item 9)
"$flce" eval "$t/trace" --out "$t/new/deeper" > /dev/null || fail "eval --out a new folder"
[ -s "$t/new/deeper/contributions.csv" ] || fail "eval --out a new folder wrote no contributions.csv"
touch "$t/afile"
expect 2 "--out" eval "$t/trace" --out "$t/afile"
echo "1 2 3" > "$t/cw3.txt"
expect 2 "more than 2 weights" eval "$t/trace" --class-weights "$t/cw3.txt"
echo "1" > "$t/cw1.txt"
expect 2 "1 weights, expected 2" eval "$t/trace" --class-weights "$t/cw1.txt"
echo "1 -2" > "$t/cwn.txt"
expect 2 "must be finite and >= 0" eval "$t/trace" --class-weights "$t/cwn.txt"
# weights are relative: b = (1e300, 3e300) gives b = (1, 3)'s contributions; weights whose sums
# overflow once normalised to the uniform shares with status 0
echo "1e300, 3e300" > "$t/cwb.txt"
"$flce" eval "$t/trace" --out "$t/outb" --ablate cmc --class-weights "$t/cwb.txt" > /dev/null || fail "eval class weights 1e300"
check "$t/outb/contributions.csv" 0.4375 "$(calc '(0.25 + 1/42)/4')" "$(calc '(1.5 + 10/21)/4')"
echo "1e300 1e300" > "$t/rwb.txt"
expect 1 "weights are too large" eval "$t/trace" --out "$t/outc" --round-weights "$t/rwb.txt" --class-weights "$t/cwb.txt"
[ ! -e "$t/outc/contributions.csv" ] || fail "overflowing weights: contributions written"
echo "1e308 1e308" > "$t/cwo.txt"
expect 2 "sum to more than" eval "$t/trace" --class-weights "$t/cwo.txt"
# --rounds 1 over weights that give round 1 nothing: the uniform shares, status 0
echo "0 1" > "$t/rw01.txt"
expect 2 "rounds 1..1 all weigh 0" eval "$t/trace" --out "$t/outd" --rounds 1 --round-weights "$t/rw01.txt"
# a NUL byte inside a number once cut it short and dropped the rest of the list silently; a
# terminal escape in a bad token is not echoed raw (issue 35)
printf '1\0002, 3\n' > "$t/cwz.txt"
expect 2 "a NUL byte at byte 1" eval "$t/trace" --class-weights "$t/cwz.txt"
printf '1, \033[31mred\n' > "$t/cwe.txt"
"$flce" eval "$t/trace" --class-weights "$t/cwe.txt" > /dev/null 2> "$t/cwe.err"
grep -q "'?\[31mred' is not a number" "$t/cwe.err" && ! grep -q "$(printf '\033')" "$t/cwe.err" || fail "escape echoed: $(od -c "$t/cwe.err" | head -3)"
mkdir "$t/bad1" "$t/bad2" "$t/bad3"
"$fixtures" trace "$t/bad1" bad-unselected; "$fixtures" trace "$t/bad2" bad-partial
expect 1 "was not selected" eval "$t/bad1"
expect 1 "$t/blocked/Q.npy: cannot replace: a folder, not a file" eval "$t/bad1" --out "$t/blocked"
expect 1 "partly NaN" eval "$t/bad2"
"$fixtures" trace "$t/bad3"; head -c 100 "$t/bad3/prototypes.npy" > "$t/bad3/p"; mv "$t/bad3/p" "$t/bad3/prototypes.npy"
expect 1 "prototypes.npy: truncated" eval "$t/bad3"
rm "$t/bad3/prototypes.npy"; expect 1 "prototypes.npy" eval "$t/bad3"
# a run folder packed without prototypes (the study's archive): Q.npy and data_sizes.npy are
# enough for the completion and the totals, the selection read off Q's NaN rows; the same
# contributions as from the prototypes; ablations M, V, Q refused (Q holds the run's own)
mkdir "$t/qonly"
"$flce" eval "$t/trace" --out "$t/full" > /dev/null || fail "eval for Q"
cp "$t/full/Q.npy" "$t/trace/data_sizes.npy" "$t/qonly/"
"$flce" eval "$t/qonly" --out "$t/qout" > "$t/q.log" || fail "eval of Q.npy alone: $(cat "$t/q.log")"
cmp -s "$t/qout/contributions.csv" "$t/full/contributions.csv" || fail "Q.npy alone: other contributions"
grep -q "from Q.npy" "$t/q.log" || fail "Q.npy alone: not said"
"$flce" eval "$t/qonly" --out "$t/qout" --ablate CMC > /dev/null || fail "Q.npy alone, -CMC"
check "$t/qout/contributions.csv" 0.375 "$(calc '0.125 + 1/84')" "$(calc '0.25 + 5/21')"
expect 2 "Q.npy but no prototypes.npy" eval "$t/qonly" --ablate M
expect 2 "--velocity, --absent-class: $t/qonly has Q.npy but no prototypes.npy" eval "$t/qonly" --velocity distance
# completion versions: a completion.json without "version" was written by version 1 (today's:
# the faster code of 2026-11-27 gives the same bits), and is evaluated so; a version this build
# does not know is refused (status 2), not computed differently
mkdir "$t/v"; "$fixtures" trace "$t/v"
"$flce" eval "$t/v" --out "$t/v1" > /dev/null || fail "eval for the version check"
grep -q '"completion_version":[[:space:]]*1' "$t/v1/completion_eval.json" || fail "completion_eval.json: version 1 not recorded"
printf '{"seed": 1, "ablate": "", "rank": "auto", "mu": "auto"}\n' > "$t/v/completion.json"
"$flce" eval "$t/v" --out "$t/vold" > "$t/v.log" || fail "eval of a record without a version: $(cat "$t/v.log")"
grep -q "completion: version 1," "$t/v.log" || fail "a record without a version: not version 1: $(grep completion: "$t/v.log")"
cmp -s "$t/vold/contributions.csv" "$t/v1/contributions.csv" || fail "a record without a version: other contributions"
printf '{"seed": 1, "completion_version": 9}\n' > "$t/v/completion.json"
expect 2 "completion version 9: this build knows version 1 only" eval "$t/v"
expect 2 "--threads 65" eval "$t/trace" --threads 65
expect 2 "--tol -1" eval "$t/trace" --tol -1
expect 2 "--rounds -1: must be at least 1" eval "$t/trace" --rounds -1 # once evaluated every round
expect 2 "--rounds 0: must be at least 1" eval "$t/trace" --rounds 0
expect 2 "--rounds 99: must be from 1 to" eval "$t/trace" --rounds 99
# a damaged trace file is a failure of the work (status 1), never a usage error, whichever file
# (completion.json once gave 2): each file of a run's trace cut to 40 bytes in turn
"$flce" run --algo flce --clients 4 --per-round 2 --rounds 2 --train-subset 300 --test-subset 60 --val-size 20 --batch 16 \
  --seed 3 --quiet --backend cpu --out "$t/run" > /dev/null 2>&1 || fail "the run for the damaged trace files"
for f in completion.json data_sizes.npy prototypes.npy selected.npy prototypes_alt.npy; do
  [ -f "$t/run/trace/$f" ] || fail "the run's trace has no $f"
  rm -rf "$t/dt"; cp -r "$t/run/trace" "$t/dt"; head -c 40 "$t/run/trace/$f" > "$t/dt/$f"
  ps=""; [ $f = prototypes_alt.npy ] && ps="--proto-samples all"
  expect 1 "$t/dt/$f" eval "$t/dt" $ps --out "$t/dt-out"
done
# ... and a FIFO (once waited on for ever), a folder or a link loop in place of a trace file:
# status 1 at once, one line saying what the path is
for f in selected.npy completion.json; do
  for kind in fifo folder loop; do
    rm -rf "$t/dt"; cp -r "$t/run/trace" "$t/dt"; rm "$t/dt/$f"
    case $kind in fifo) mkfifo "$t/dt/$f"; want="a FIFO, not a file";; folder) mkdir "$t/dt/$f"; want="a folder, not a file";;
                  loop) ln -s "$t/dt/$f" "$t/dt/$f"; want="Too many levels of symbolic links";; esac
    err=$(timeout 600 "$flce" eval "$t/dt" --out "$t/dt-out" 2>&1 > /dev/null); rc=$?
    [ $rc = 1 ] || fail "$f a $kind: status $rc (124: it waited), expected 1"
    case "$err" in *"$t/dt/$f: cannot open: $want"*) ;; *) fail "$f a $kind: $err";; esac
  done
done
# a trace that a writer holds (the C API and the Python package lock the folder exclusively while
# they swap a new trace in): flce eval waits for it and reads the folder whole; the writer here
# leaves a mark just before it lets go, so an evaluation that did not wait ends before the mark
mkdir "$t/lk"; "$fixtures" trace "$t/lk"
flock -x "$t/lk" -c "sleep 2; touch '$t/released'" &
sleep 0.5
"$flce" eval "$t/lk" --out "$t/lk-out" --ablate CMC > /dev/null 2> "$t/lk.err" || fail "eval of a locked trace: $(cat "$t/lk.err")"
[ -e "$t/released" ] || fail "flce eval read a trace while its writer held it"
wait
# the guard (--prototype-clip, docs/attacks.md) as completion.json records it, K = 1: class 0's
# round-1 prototypes (1,0) and (0,2) (lengths 1 and 2; the lower median 1) become (1,0), (0,1):
# M = (1/2,1/2), |p - g|^2 = (1/2,1/2) -> Q = (1/2,1/2); -CMC, a = b = 1/2: CE = (0.375, 0.25, 0.375)
rm -rf "$t/gt" && mkdir -p "$t/gt/trace" && "$fixtures" trace "$t/gt/trace" || fail "fixtures (guard)"
printf '{"prototype_clip": 1}' > "$t/gt/trace/completion.json"
"$flce" eval "$t/gt/trace" --out "$t/gt/out" --ablate CMC > "$t/gt.log" 2>&1 || fail "eval of a guarded trace: $(cat "$t/gt.log")"
check "$t/gt/out/contributions.csv" 0.375 0.25 0.375
grep -q "^guard (not the paper's)" "$t/gt.log" || fail "eval does not name the guard"
# a run's config.json beside the trace that says otherwise: one of them edited, refused
printf '{"algo": "flce"}' > "$t/gt/config.json"
expect 1 "one of them edited" eval "$t/gt/trace" --out "$t/gt/out2" --ablate CMC
echo "cli_eval: all checks passed"
