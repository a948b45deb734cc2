#!/bin/sh
# cli_report_released.sh: the report's section "The paper's text and its released code" (issue
# 62) on a tiny study: three seeds of (a) the text (FLCE, FedAvg, FedSV), (b) --as-released, and
# one training-side arm (FLCE with --cl-scale tau), the evaluation-side departures made by
# scripts/released_eval.sh. Three of its comparisons are worked out here with awk from the run
# folders' files: the text's KL claim (KL to the data shares, FedAvg minus FLCE), the released
# metric under (b) (min-max rescaled KL to uniform, FedAvg's contributions by the L2 rule) and
# the evaluated unsquared velocity (FLCE's RUN/released/velocity beside (a)'s FedAvg); the arm
# not run (plain-mean aggregation) is absent; runs of another study are left out. Then a noise
# configuration (two seeds of the text and as released): the noise claim under the released
# metric, the min-max KL to the quality reference, worked out the same way.
set -u
flce=$1
PROG=$flce
. "$(dirname "$0")/lib.sh"
t=$(mktemp -d /tmp/flce-released-XXXXXX); trap 'rm -rf "$t"' EXIT
B="--clients 4 --per-round 2 --rounds 3 --train-subset 400 --test-subset 60 --val-size 20 --batch 16 --lr 0.05 --quiet --dirichlet 0.5 --backend cpu"
for s in 1 2 3; do
  "$flce" run --algo flce,fedavg,fedsv $B --seed $s --out "$t/text-s$s" > /dev/null 2>&1 || fail "the text, seed $s"
  "$flce" run --algo flce,fedavg,fedsv $B --seed $s --as-released --local-steps 2 --out "$t/rel-s$s" > /dev/null 2>&1 || fail "as released, seed $s"
  "$flce" run --algo flce $B --seed $s --cl-scale tau --out "$t/cls-s$s" > /dev/null 2>&1 || fail "--cl-scale tau, seed $s"
done
"$flce" run --algo flce $B --seed 1 --proto-samples all --out "$t/other" > /dev/null 2>&1 || fail "a run of the readings"
FLCE_BIN=$flce "$(dirname "$0")/../scripts/released_eval.sh" "$t"/text-s* "$t"/cls-s* > /dev/null || fail "released_eval.sh"
[ -f "$t/text-s1/flce/released/velocity/contributions.csv" ] || fail "released_eval.sh made no velocity evaluation"
"$flce" report "$t"/text-s* "$t"/rel-s* "$t"/cls-s* "$t/other" --out "$t/rep" > /dev/null 2>&1 || fail "flce report"
grep -q "^## The paper's text and its released code" "$t/rep/report.md" || fail "no section"
csv=$t/rep/released_claims.csv
[ -f "$csv" ] || fail "no released_claims.csv"
# the power columns (issue 80), worked out by tools/tquant.py from each row's difference, half-width and n
n=$(python3 "$(dirname "$0")/../tools/tquant.py" check "$csv" mean_difference half_width_95 n sd detectable_difference seeds_to_decide) ||
  fail "released_claims.csv's power columns: $n"
[ "$n" -ge 10 ] || fail "released_claims.csv: only $n rows to check the power columns of"
# KL(P || Q) of the contributions in column $2 of file $1 against Q: the data shares (clients.csv
# of run $3) or, with $4 = minmax, uniform after the released rescaling to [0.01, 1]; with $4 =
# quality, the released quality reference instead of uniform (1 a clean client, 1e-6 one with
# noisy labels, normalised; the noisy column of clients.csv)
kl() {
  awk -F, -v mode="${4:-shares}" 'FNR == 1 { f++; next } f == 1 { s[$1] = $2; ts += $2; nz[$1] = $4 } f == 2 { p[$1] = $(c + 1); n++ }
    END { if (mode == "minmax" || mode == "quality") { lo = 1e300; hi = -1e300; for (k in p) { if (p[k] < lo) lo = p[k]; if (p[k] > hi) hi = p[k] }
            for (k in p) { p[k] = 0.01 + 0.99 * (p[k] - lo) / (hi - lo); tp += p[k] }
            for (k in p) { q[k] = mode == "quality" ? (nz[k] ? 1e-6 : 1) : 1; tq += q[k] } # label noise: 1e-6 (KL_cmp.py)
            for (k in p) { p[k] /= tp; q[k] /= tq } }
          else for (k in p) q[k] = s[k] / ts
          for (k in p) if (p[k] > 0) x += p[k] * log(p[k] / q[k]); printf "%.12f", x }' c="$2" "$3/clients.csv" "$1"
}
# the mean over the seeds of d_s = (baseline's KL) - (FLCE's KL), the claim's direction; against the csv's
check() { # NAME ARM BASELINE_FILE COL FLCE_FILE MODE (the seeds: $seeds, the claims: $csv)
  want=$(for s in $seeds; do
    a=$(echo "$3" | sed "s/SEED/$s/"); b=$(echo "$5" | sed "s/SEED/$s/"); run=$(dirname "$b" | sed 's|/released/.*||')
    echo "$(kl "$a" "$4" "$run" "$6") $(kl "$b" 1 "$run" "$6")"; done | awk '{ d += $1 - $2; n++ } END { printf "%.10g", d / n }')
  got=$(awk -F, -v arm="$2" -v m="$6" '$0 ~ arm && $0 ~ (m == "shares" ? "text.s metric" : "released metric") && $0 ~ ",fedavg," {
          for (i = 1; i <= NF; i++) if ($i == "fedavg") { print $(i + 1); exit } }' "$csv")
  [ -n "$got" ] || fail "$1: no row in released_claims.csv: $(cat "$csv")"
  awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-8 * (1 + (b < 0 ? -b : b))) }' ||
    fail "$1: released_claims.csv says $got, worked out here $want"
}
seeds="1 2 3"
check "the text's KL" "[(]a[)] the text" "$t/text-sSEED/fedavg/contributions.csv" 1 "$t/text-sSEED/flce/contributions.csv" shares
check "the released metric as released" "[(]b[)] as released" "$t/rel-sSEED/fedavg/contributions_rules.csv" 5 "$t/rel-sSEED/flce/contributions.csv" minmax
check "the evaluated velocity" "velocity unsquared [(]evaluated[)]" "$t/text-sSEED/fedavg/contributions.csv" 1 \
  "$t/text-sSEED/flce/released/velocity/contributions.csv" shares
# "Without completion" (a diagnostic): each arm's KL without completion minus (a)'s, paired by
# seed: (b)'s own contributions, the --cl-scale arm's and the evaluated velocity's evaluations with
# --ablate CMC, each against the text's evaluation with --ablate CMC
nocmc() { # NAME ARM FILE (SEED for the seed)
  want=$(for s in 1 2 3; do
    f=$(echo "$3" | sed "s/SEED/$s/"); run=$(dirname "$f" | sed 's|/released/.*||')
    echo "$(kl "$f" 1 "$run") $(kl "$t/text-s$s/flce/released/nocmc/contributions.csv" 1 "$t/text-s$s/flce")"; done |
    awk '{ d[++n] = $1 - $2; m += d[n] } END { m /= n; for (i = 1; i <= n; i++) ss += (d[i] - m) ^ 2
      h = 4.302652729749464 * sqrt(ss / (n - 1)) / sqrt(n) # Student t, 2 degrees of freedom
      r = (m + h < 0) ? "lowers it" : (m - h > 0) ? "raises it" : "no clear change"; printf "%.10g %s", m, r }')
  got=$(awk -F, -v arm="$2" 'index($0, arm) { print $(NF - 6); exit }' "$t/rep/released_nocmc.csv") # difference_from_text
  [ -n "$got" ] || fail "$1: no row in released_nocmc.csv: $(cat "$t/rep/released_nocmc.csv")"
  awk -v a="$got" -v b="${want%% *}" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-8 * (1 + (b < 0 ? -b : b))) }' ||
    fail "$1: released_nocmc.csv says $got, worked out here ${want%% *}"
  rd=$(awk -F, -v arm="$2" 'index($0, arm) { print $(NF - 3); exit }' "$t/rep/released_nocmc.csv") # reading
  [ "$rd" = "${want#* }" ] || fail "$1: released_nocmc.csv reads '$rd', the interval worked out here '${want#* }'"
}
# another run's evaluations in a run's released/ (the --cl-scale arm's, of the same seed and
# readings, under the text's run): refused, status 1, the folder named (they were taken, and changed
# the table "Without completion"); an evaluation names its trace by digests.txt's digest of it
json_has "$t/text-s1/flce/released/nocmc/completion_eval.json" "\"trace_digest\":\"$(sed -n 's/^trace //p' "$t/text-s1/flce/digests.txt")\"" ||
  fail "completion_eval.json does not name the trace it evaluated"
cp -r "$t/text-s1" "$t/tf" && rm -r "$t/tf/flce/released" && cp -r "$t/cls-s1/released" "$t/tf/flce/released"
"$flce" report "$t/tf" "$t"/rel-s* --out "$t/rep-foreign" > /dev/null 2> "$t/foreign.err"; rc=$?
[ $rc = 1 ] && [ "$(wc -l < "$t/foreign.err")" = 1 ] &&
  grep -q "tf/flce/released/[a-z-]*: its completion_eval.json names trace [0-9a-f]* and the run's digests.txt [0-9a-f]*: another run's evaluation" "$t/foreign.err" ||
  fail "another run's released evaluations: status $rc, $(cat "$t/foreign.err")"
[ ! -e "$t/rep-foreign" ] || fail "a report refused for another run's evaluations left $t/rep-foreign"
# an evaluation folder without its contributions.csv (unfinished or damaged) is refused, never read
# as an evaluation not made; released_eval.sh on a trace flce eval refuses says so in one line and
# leaves no such folder behind
cp -r "$t/text-s1" "$t/tn" && rm "$t/tn/flce/released/nocmc/contributions.csv"
expect 1 "tn/flce/released/nocmc: no contributions.csv (an evaluation unfinished or damaged" report "$t/tn" "$t"/rel-s* --out "$t/rep-tn"
[ ! -e "$t/rep-tn" ] || fail "a report refused for an unfinished evaluation left $t/rep-tn"
cp -r "$t/text-s1" "$t/te" && rm -r "$t/te/flce/released" && : > "$t/te/flce/trace/completion.json"
FLCE_BIN=$flce "$(dirname "$0")/../scripts/released_eval.sh" "$t/te" > /dev/null 2> "$t/te.err" && fail "released_eval.sh over an empty completion.json: status 0"
[ "$(wc -l < "$t/te.err")" = 1 ] && grep -q "^released_eval.sh: flce eval failed on .*te/flce ([a-z-]*): .*completion.json" "$t/te.err" ||
  fail "released_eval.sh over an empty completion.json: $(cat "$t/te.err")"
[ -z "$(ls -A "$t/te/flce/released")" ] || fail "released_eval.sh left $(ls -A "$t/te/flce/released") after flce eval failed"
# and flce report refuses that run as damaged (status 1, the file named), as it refuses a damaged
# evaluation: its completion sensitivity was filled from the trace whose record flce eval refused
expect 1 "te/flce/trace/completion.json: not valid JSON" report "$t/te" "$t"/rel-s* --out "$t/rep-te"
[ ! -e "$t/rep-te" ] || fail "a report refused for a damaged trace record left $t/rep-te"
[ -f "$t/rep/released_nocmc.csv" ] || fail "no released_nocmc.csv"
grep -q "^### Without completion" "$t/rep/report.md" || fail "no table Without completion"
nocmc "without completion as released" "(b) as released" "$t/rel-sSEED/flce/contributions.csv"
nocmc "without completion, L_CL times tau" "L_CL times tau" "$t/cls-sSEED/released/nocmc/contributions.csv"
nocmc "without completion, the velocity evaluated" "velocity unsquared (evaluated)" "$t/text-sSEED/flce/released/nocmc-velocity/contributions.csv"
nocmc "without completion, the first-sample prototypes evaluated" "prototypes: first correct sample (evaluated)" \
  "$t/text-sSEED/flce/released/nocmc-first/contributions.csv"
# its power columns (issue 80) as tools/tquant.py works them out from the paired difference, its
# half-width and the pairs; (a)'s rows, with no difference, have the three empty
n=$(python3 "$(dirname "$0")/../tools/tquant.py" check "$t/rep/released_nocmc.csv" difference_from_text half_width_95 n_pairs sd \
  detectable_difference seeds_to_decide) || fail "released_nocmc.csv's power columns: $n"
[ "$n" -ge 4 ] || fail "released_nocmc.csv: only $n rows to check the power columns of"
# and the table says beside each "no clear change" what deciding would take
grep -A40 "^### Without completion" "$t/rep/report.md" | grep "^|.*no clear change" > "$t/nocmc-rows" || fail "no row reads no clear change"
grep -v "no clear change\( ([0-9]* of the [0-9]* seeds)\)\{0,1\}; \(decides at about [0-9]* seeds\|the [0-9]* seeds run detect only\|every seed gives\)" "$t/nocmc-rows" &&
  fail "a 'no clear change' of the table Without completion says nothing of what deciding would take"
# both flags took effect: the velocity without completion is neither the velocity alone nor no completion alone
v=$t/text-s1/flce/released
cmp -s "$v/nocmc-velocity/contributions.csv" "$v/nocmc/contributions.csv" && fail "nocmc-velocity equals nocmc: --velocity lost"
cmp -s "$v/nocmc-velocity/contributions.csv" "$v/velocity/contributions.csv" && fail "nocmc-velocity equals velocity: --ablate CMC lost"
# the table's cell for (a) names the comparison that decided it, with its numbers (one baseline
# here: FedAvg's mean paired difference as the csv has it)
m=$(awk -F, '$0 ~ /[(]a[)] the text/ && $0 ~ /text.s metric/ { for (i = 1; i <= NF; i++) if ($i == "fedavg") { printf "%+.3g", $(i + 1); exit } }' "$csv")
grep "KL to the data shares" "$t/rep/report.md" | awk -F'|' '{ print $4 }' | grep -q -- "($m +- .* against FedAvg" ||
  fail "the (a) cell of the text's KL claim does not give $m against FedAvg: $(grep 'KL to the data shares' "$t/rep/report.md")"
grep -q "L_CL times tau" "$csv" || fail "the --cl-scale arm is not judged"
# an evaluation is read only where it is this run's with the flags its folder names: another
# seed's, or another departure's, is refused (status 1, the folder named), never judged
v1=$t/text-s1/flce/released
mv "$v1/velocity" "$t/vel-s1"
cp -r "$t/text-s2/flce/released/velocity" "$v1/velocity"
PROG=$flce expect 1 "text-s1/flce/released/velocity: its completion_eval.json's seed is not the run's" report "$t"/text-s* "$t"/rel-s* --out "$t/rep-x"
[ -e "$t/rep-x" ] && fail "a refused report left $t/rep-x"
rm -r "$v1/velocity" && cp -r "$v1/first" "$v1/velocity"
PROG=$flce expect 1 "records velocity 'squared', and 'velocity' over this run's settings means 'distance'" report "$t"/text-s* "$t"/rel-s* --out "$t/rep-x"
rm -r "$v1/velocity" && mv "$t/vel-s1" "$v1/velocity"
# a run with --train-seed records that seed as its completion's: its evaluations are its own
"$flce" run --algo flce $B --seed 1 --train-seed 5 --out "$t/tseed" > /dev/null 2>&1 || fail "flce run --train-seed 5"
FLCE_BIN=$flce "$(dirname "$0")/../scripts/released_eval.sh" "$t/tseed" > /dev/null || fail "released_eval.sh on a --train-seed run"
"$flce" report "$t/tseed" --out "$t/rep-tseed" > /dev/null 2> "$t/rep-tseed.err" || fail "flce report of a --train-seed run's evaluations: $(cat "$t/rep-tseed.err")"
grep -q "plain-mean aggregation" "$csv" && fail "an arm not run (plain-mean aggregation) has rows"
grep -q "all samples\|prototypes from all" "$csv" && fail "a run of the readings was taken for one of the study's"
# (b) on two of the three seeds: its verdicts say so; a run with one setting of the released local
# training alone (weight decay) is that arm, not the text
"$flce" run --algo flce,fedavg $B --seed 1 --weight-decay 1e-5 --out "$t/wd-s1" > /dev/null 2>&1 || fail "--weight-decay alone"
"$flce" report "$t"/text-s* "$t"/rel-s1 "$t"/rel-s2 "$t/wd-s1" "$t"/cls-s1 "$t"/cls-s2 --out "$t/rep2" > /dev/null 2>&1 || fail "flce report, (b) on two seeds"
# a trained arm on two of the three seeds compares on those two: its FLCE never taken from (a)
# on the third (only the methods the arm does not train come from (a))
awk -F, '/L_CL times tau/ && $(NF - 4) != 2 { print; bad = 1 } END { exit bad }' "$t/rep2/released_claims.csv" > "$t/cls.bad" ||
  fail "the --cl-scale arm on 2 seeds compared on other counts: $(cat "$t/cls.bad")"
awk -F'|' '/^\| .*FLCE.s accuracy at least/ { print $5 }' "$t/rep2/report.md" | grep -q "2 of the 3 seeds[;)]" ||
  fail "(b) on 2 of 3 seeds not marked: $(grep 'accuracy at least' "$t/rep2/report.md")"
awk -F'|' '/^\| .*FLCE.s accuracy at least/ { print $4 }' "$t/rep2/report.md" | grep -q "of the [0-9]* seeds" &&
  fail "(a) on all 3 seeds marked as partial: $(grep 'accuracy at least' "$t/rep2/report.md")"
grep -q "local training: 50 steps" "$t/rep2/released_claims.csv" || fail "a run with --weight-decay alone is not the local-training arm"
# the local-training arm's comparisons against FedSV (from (a)) are said not to be like for like,
# where that arm was run and only there
grep -q "not like for like" "$t/rep2/report.md" || fail "the local-training arm's FedSV comparisons not flagged"
grep -q "not like for like" "$t/rep/report.md" && fail "the local-training note without that arm"
# every arm's configuration has a name of its own in the per-configuration tables: the text's none
# of the departures' words, as released "as released", --cl-scale tau and --weight-decay theirs
h=$(grep '^### ' "$t/rep2/report.md")
echo "$h" | grep -q 'rounds; released local training' || fail "the --weight-decay arm's configuration is not named by it: $h"
echo "$h" | grep -q 'rounds; L_CL times tau' || fail "the --cl-scale arm's configuration is not named by it: $h"
echo "$h" | grep -q '; as released' || fail "the as-released configuration is not named so: $h"
[ "$(echo "$h" | grep -c 'rounds (3 seeds)$')" -ge 1 ] || fail "the text's configuration carries a departure's words: $h"
# one heading a configuration: "Each configuration" has as many headings, all different, as there
# are configurations among the run folders (config.json but the seed, the method and its
# ablation); as released, FLCE (sweep), FedAvg (at random) and FedSV (window) select differently
# and are three (they were three headings of one name)
python3 - "$t/rep/report.md" "$t"/text-s* "$t"/rel-s* "$t"/cls-s* "$t/other" <<'PY' || fail "the configurations' headings: not one name each"
import glob, json, os, sys
sec = [s for s in open(sys.argv[1]).read().split("\n## ") if s.startswith("Each configuration")][0]
heads = [l[4:] for l in sec.splitlines() if l.startswith("### ")]
keys = set()
for top in sys.argv[2:]:
    for cj in glob.glob(os.path.join(top, "config.json")) + glob.glob(os.path.join(top, "*", "config.json")):
        c = json.load(open(cj))
        for k in ("seed", "algo", "ablate"):
            c.pop(k, None)
        keys.add(json.dumps(c, sort_keys=True))
assert len(heads) == len(set(heads)) == len(keys), (len(keys), heads)
PY
# The noise configuration (docs/decisions.md, "The study under the released code"): the text's
# 30% of labels on 40% of the clients drawn, as released every label (y + 1) mod C on the last
# 40%; two seeds. The KL claims are the noise claim: under (b) the released metric is the min-max
# KL to the quality reference (1 clean, 1e-6 noisy), worked out here from clients.csv's noisy
# flags; the baselines by the L2 rule.
N="--clients 5 --per-round 2 --rounds 3 --train-subset 280 --test-subset 60 --val-size 20 --batch 16 --lr 0.05 --quiet --dirichlet 0.5 --backend cpu"
for s in 1 2; do
  "$flce" run --algo flce,fedavg,fedsv $N --label-noise 0.3 --noisy-clients 0.4 --seed $s --out "$t/ntext-s$s" > /dev/null 2>&1 ||
    fail "the text with noise, seed $s"
  "$flce" run --algo flce,fedavg,fedsv $N --label-noise 1 --noisy-clients 0.4 --as-released --local-steps 2 --seed $s \
    --out "$t/nrel-s$s" > /dev/null 2>&1 || fail "as released with noise, seed $s"
done
awk -F, 'NR > 1 { n += $4 } END { exit n != 2 }' "$t/nrel-s1/flce/clients.csv" || fail "as released: not 2 of 5 clients noisy"
awk -F, 'NR > 1 && $4 && $1 < 3 { bad = 1 } END { exit bad }' "$t/nrel-s1/flce/clients.csv" || fail "as released: a noisy client not among the last 40%"
"$flce" report "$t"/ntext-s* "$t"/nrel-s* --out "$t/nrep" > /dev/null 2>&1 || fail "flce report, the noise configuration"
# each row of released_claims.csv names the configuration its arm ran: (b) at label noise 1, (a) at 0.3
python3 - "$t/nrep/released_claims.csv" <<'PY' || fail "released_claims.csv labels an arm by another arm's noise"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = {"(b) as released": "noise L1 F0", "(a) the text": "noise L0.3 F0"}
bad = [r for r in rows if r["arm"] in want and want[r["arm"]] not in r["configuration"]]
n = sum(r["arm"] in want for r in rows)
assert n >= 4 and not bad, (n, bad[:2])
PY
csv=$t/nrep/released_claims.csv seeds="1 2"
grep -q "the noise claim: FLCE's KL below FedAvg's (the released metric: min-max KL to the quality reference" "$t/nrep/report.md" ||
  fail "the noise configuration's released KL claim is not the noise claim: $(grep 'KL below' "$t/nrep/report.md")"
check "the noise claim as released" "[(]b[)] as released" "$t/nrel-sSEED/fedavg/contributions_rules.csv" 5 "$t/nrel-sSEED/flce/contributions.csv" quality
check "the noise claim under the text, released metric" "[(]a[)] the text" "$t/ntext-sSEED/fedavg/contributions.csv" 1 \
  "$t/ntext-sSEED/flce/contributions.csv" quality
check "the noise claim under the text" "[(]a[)] the text" "$t/ntext-sSEED/fedavg/contributions.csv" 1 "$t/ntext-sSEED/flce/contributions.csv" shares
grep -q "quality reference, 1 for clean clients and 1e-6 for noisy ones" "$t/nrep/report.md" || fail "the label-noise claim does not name 1e-6"
# feature noise alone: its quality reference is 0.32 (KL_cmp.py), and the claim says so
for arm in "" "--as-released --local-steps 2"; do
  # shellcheck disable=SC2086
  "$flce" run --algo flce,fedavg $N --feature-noise 0.5 --noisy-clients 0.4 --seed 1 $arm --out "$t/fn${arm:+rel}" > /dev/null 2>&1 ||
    fail "feature noise ${arm:-the text}"
done
"$flce" report "$t/fn" "$t/fnrel" --out "$t/fnrep" > /dev/null 2>&1 || fail "flce report, feature noise"
grep -q "quality reference, 1 for clean clients and 0.32 (feature noise) for noisy ones" "$t/fnrep/report.md" ||
  fail "the feature-noise claim does not name 0.32: $(grep 'quality reference' "$t/fnrep/report.md")"
echo "cli_report_released: all checks passed"
