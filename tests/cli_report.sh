#!/bin/sh
# cli_report.sh: `flce report` with hostile names runs nothing and escapes everything (issue 20):
#  - an --out path with a quote and $(...) (once made gnuplot's shell run `touch PWNED`),
#  - a run directory named x'.system("touch PWNED").'<img src=x onerror=alert(1)> (once ran
#    through gnuplot's own system() and went into report.html as markup),
#  - "algo": "x'.system('touch PWNED2').'" in a run's config.json (refused since issue 35: a
#    name holds letters, digits, space and ._+- only),
#  - an ordinary apostrophe (--out "Bob's runs"), which once gave no figures;
# every figure is still made, no PWNED file appears, and report.html holds the names escaped;
# report.md holds no markup from them and the CSV files keep their columns (the name, with a
# comma and a bar, reaches the labels: issue 35). Contributions that are not the run's (edited,
# truncated, another run's) are refused by their digest.
set -u
flce=$1
PROG=$flce
. "$(dirname "$0")/lib.sh"
t=$(mktemp -d /tmp/flce-report-XXXXXX); trap 'rm -rf "$t"' EXIT
cd "$t" || fail "cd $t"
evil="x'.system(\"touch PWNED\").'<img src=x onerror=alert(1)>,a|b"
"$flce" run --algo flce --clients 4 --per-round 2 --rounds 2 --train-subset 300 --test-subset 60 --val-size 20 \
  --batch 16 --seed 3 --quiet --out "$t/$evil" > /dev/null 2>&1 || fail "flce run into a hostile directory name"
cp -r "$t/$evil" "$t/b"
cp -r "$t/b" "$t/c"
# the same run with its config.json's members in reverse order (as a build of another date
# writes them): one configuration with the original, a repeat identical bit for bit
cp -r "$t/b" "$t/o"
python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))
json.dump(dict(reversed(list(c.items()))), open(sys.argv[1], "w"), indent=2)' "$t/o/config.json" || fail "could not reorder config.json"
[ "$(head -c 200 "$t/o/config.json" | tr -d ' \n' | cut -c 1-20)" != "$(head -c 200 "$t/b/config.json" | tr -d ' \n' | cut -c 1-20)" ] || fail "the test did not reorder config.json"
"$flce" report "$t/b" "$t/o" --out "$t/rep-o" > "$t/log" 2>&1 || fail "flce report over a reordered config.json: $(cat "$t/log")"
grep -q "^2 runs: 1 method in 1 configuration" "$t/rep-o/report.md" || fail "a reordered config.json made another configuration: $(grep -m1 '^2 runs' "$t/rep-o/report.md")"
grep -q "identical, bit for bit" "$t/rep-o/runs.md" || fail "the run with a reordered config.json was not recognised as a repeat"
# a run of several methods that has not finished (its method folders, no summary.csv yet), a
# folder of runs, and a folder of neither: each named as what it is (the first two were once
# "not a run directory")
mkdir -p "$t/multi" "$t/several" "$t/none" && cp -r "$t/b" "$t/multi/flce" && cp -r "$t/b" "$t/several/r1"
expect 2 "a run of several methods that has not finished (no summary.csv yet; method folders: flce)" report "$t/multi" --out "$t/x1"
expect 2 "a folder of runs, not a run: name the runs in it" report "$t/several" --out "$t/x1"
expect 2 "not a run directory (no config.json or summary.csv)" report "$t/none" --out "$t/x1"
[ ! -e "$t/x1" ] || fail "a refused report wrote $t/x1"
# --out a folder of someone's files (a report.md not of this harness): refused, nothing changed;
# an earlier report's folder is replaced
mkdir "$t/mine" && echo "my notes" > "$t/mine/report.md"
expect 2 "holds other files and no report of this harness" report "$t/b" --out "$t/mine"
[ "$(cat "$t/mine/report.md")" = "my notes" ] && [ "$(ls "$t/mine" | wc -l)" = 1 ] || fail "a refused report changed $t/mine"
# --out a file: refused as one (it said "cannot create: File exists"), the file unchanged
expect 2 "--out $t/mine/report.md: a file, not a folder" report "$t/b" --out "$t/mine/report.md"
[ "$(cat "$t/mine/report.md")" = "my notes" ] || fail "a report with --out a file changed it"
"$flce" report "$t/b" --out "$t/rep-o" > /dev/null 2>&1 || fail "a report over an earlier report's folder"
# one folder named twice would be a "repeat" of itself: refused, nothing written
expect 2 "are the same run folder" report "$t/b" "$t/o" "$t/b/." --out "$t/rep-twice"
# the limits, said (1,024 runs: the strategic-clients study's 890 in one report; past the runs and
# truths together, before any folder is read)
expect 2 "more than 1024 runs: report them in parts" report $(yes "$t/b" | head -1025) --out "$t/rep-many"
expect 2 "1100 folders: more than 1024 runs and 64 truth folders" report $(yes "$t/b" | head -1100) --out "$t/rep-many"
expect 2 "5000 folders: more than 1024 runs" report $(yes "$t/b" | head -5000) --out "$t/rep-many"
expect 2 "are the same run folder" report $(yes "$t/b" | head -1024) --out "$t/rep-many" # 1,024 taken, then checked
[ -e "$t/rep-many" ] && fail "a refused report wrote its folder"
[ -e "$t/rep-twice" ] && fail "a refused report left $t/rep-twice behind"
# a run folder that lost a file every run writes (clients.csv, round_contributions.csv): refused,
# status 1, the file named, nothing written (a lost clients.csv once gave every client 0 samples and
# a data share of 1/n, and the report exited 0)
for f in clients.csv round_contributions.csv; do
  rm -rf "$t/lost" && cp -r "$t/b" "$t/lost" && rm "$t/lost/$f"
  expect 1 "$t/lost/$f: missing (every run writes it): the run folder is damaged or incomplete" report "$t/b" "$t/lost" --out "$t/rep-lost"
  [ ! -e "$t/rep-lost" ] || fail "a report refused for a lost $f left $t/rep-lost"
done
sed -i -E "s/\"algo\":[[:space:]]*\"flce\"/\"algo\": \"x'.system('touch PWNED2').'\"/" "$t/c/config.json"
grep -q "PWNED2" "$t/c/config.json" || fail "the test could not plant the algo name"
expect 1 '"algo" holds a character no name of this harness has' report "$t/c" --out "$t/rep-c"
for out in "r'\$(touch PWNED)'x" "Bob's runs"; do
  # the second run's label is "flce (<parent>/<its folder>)": the hostile name enters the labels
  "$flce" report "$t/b" "$t/$evil" --out "$t/$out" > "$t/log" 2>&1 || fail "flce report --out $out: $(cat "$t/log")"
  for f in accuracy.png accuracy.svg macro_f1.png kl.png contributions.png server_cost.png; do
    [ -s "$t/$out/$f" ] || fail "report --out $out: figure $f missing ($(cat "$t/log"))"
  done
  for pg in report runs; do
    grep -q '<img src=x' "$t/$out/$pg.html" && fail "$pg.html holds a run name as markup"
    grep -q '<img' "$t/$out/$pg.md" && fail "$pg.md holds a run name as markup: $(grep -m1 '<img' "$t/$out/$pg.md")"
  done
  grep -q '&lt;img src=x onerror=alert(1)&gt;' "$t/$out/runs.html" || fail "runs.html does not show the run name escaped"
  grep -q '&lt;img src=x onerror=alert(1)&gt;,a\\|b' "$t/$out/runs.md" || fail "runs.md does not show the run name escaped"
  python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert len(rows[0]) == 4 and all(len(r) == 4 for r in rows), [len(r) for r in rows]
assert rows[0][3].endswith(",a|b)"), rows[0][3]' "$t/$out/contributions.csv" || fail "contributions.csv: the name shifted its columns"
done
found=$(find "$t" \( -name PWNED -o -name PWNED2 \) 2>/dev/null | head -3)
[ -z "$found" ] || fail "a command ran: $found"
echo "ok: hostile names ran nothing and were escaped"

# damaged config.json (issue 20, item 5: a heap overflow before): one line, exit 1, nothing read past
PROG=$flce
for bad in '' 'garbage' '{"algo": "fedavg", "per_round": 2, "rounds": 2}' \
           '{"algo": "fedavg", "clients": 0, "per_round": 2, "rounds": 2}' \
           '{"algo": "fedavg", "clients": -1, "per_round": 2, "rounds": 2}' \
           '{"algo": "fedavg", "clients": 1e300, "per_round": 2, "rounds": 2}' \
           '{"algo": "fedavg", "clients": 4, "per_round": 2, "rounds": 99999999999}'; do
  rm -rf "$t/d"; cp -r "$t/b" "$t/d"
  printf '%s' "$bad" > "$t/d/config.json"
  expect 1 "config.json" report "$t/d" --out "$t/rep-bad"
done
# a short class_weights list is not read past its end: the report says so and goes on
rm -rf "$t/d"; cp -r "$t/$evil" "$t/d"
sed -i -E 's/"class_weights":[[:space:]]*null/"class_weights": [0.5, 0.5]/' "$t/d/config.json"
json_has "$t/d/config.json" '"class_weights":[0.5,0.5]' || fail "could not plant class weights"
"$flce" report "$t/d" --out "$t/rep-cw" > /dev/null 2> "$t/cw.err" || fail "report with a short class_weights list"
grep -q "class_weights is not a list of 10 non-negative numbers" "$t/cw.err" || fail "the short class_weights list was not reported: $(cat "$t/cw.err")"
[ -s "$t/rep-cw/class_contributions_00.png" ] || fail "no class contributions figure"
echo "ok: damaged run files are refused in one line"
# inputs are read, never written (issue 35): an --out that is a run folder, inside one, or a
# link to one is refused with status 2, and the run's files stay as they were
before=$(cat "$t/b/contributions.csv")
expect 2 "inside the run folder" report "$t/b" --out "$t/b"
expect 2 "inside the run folder" report "$t/b" --out "$t/b/report/deeper"
ln -s "$t/b" "$t/blink"
expect 2 "inside the run folder" report "$t/b" --out "$t/blink/r"
( cd "$t/b" && "$flce" report . --out rep > /dev/null 2>&1 ) && fail "report . --out rep inside the run: exit 0"
[ "$(cat "$t/b/contributions.csv")" = "$before" ] || fail "a refused report changed the run's contributions.csv"
[ -e "$t/b/report" ] || [ -e "$t/b/rep" ] && fail "a refused report made a folder inside the run"
echo "ok: --out inside an input run is refused"
# readers open regular files only (issue 35): a run file that is a link to /dev/zero once made the
# report spin forever; now one line naming the file, status 1, at once; a FIFO likewise (not
# waited on), a folder too
for f in contributions.csv clients.csv round_contributions.csv metrics.csv; do
  rm -rf "$t/z"; cp -r "$t/b" "$t/z"; rm "$t/z/$f"; ln -s /dev/zero "$t/z/$f"
  timeout 600 "$flce" report "$t/z" --out "$t/zr" > /dev/null 2> "$t/z.err"; rc=$?
  [ $rc = 1 ] || fail "$f linked to /dev/zero: status $rc (124: it hung), expected 1"
  grep -q "$f: a device, not a file" "$t/z.err" || fail "$f linked to /dev/zero: $(cat "$t/z.err")"
done
rm -rf "$t/z"; cp -r "$t/b" "$t/z"; rm "$t/z/contributions.csv"; mkfifo "$t/z/contributions.csv"
timeout 600 "$flce" report "$t/z" --out "$t/zr" > /dev/null 2> "$t/z.err"; rc=$?
[ $rc = 1 ] && grep -q "a FIFO, not a file" "$t/z.err" || fail "contributions.csv a FIFO: status $rc: $(cat "$t/z.err")"
rm -rf "$t/z"; cp -r "$t/b" "$t/z"; rm "$t/z/clients.csv"; mkdir "$t/z/clients.csv"
timeout 600 "$flce" report "$t/z" --out "$t/zr" > /dev/null 2> "$t/z.err"; rc=$?
[ $rc = 1 ] && grep -q "a folder, not a file" "$t/z.err" || fail "clients.csv a folder: status $rc: $(cat "$t/z.err")"
echo "ok: devices, FIFOs and folders in place of run files are refused"
# impossible numbers are refused naming the file and row (negative server seconds once made the
# cost claim "hold" with a ratio of -2273)
rm -rf "$t/z"; cp -r "$t/b" "$t/z"
awk -F, 'BEGIN { OFS = "," } NR == 2 { $6 = -5 } { print }' "$t/b/metrics.csv" > "$t/z/metrics.csv"
expect 1 "metrics.csv: row 2: its server seconds is impossible" report "$t/z" --out "$t/zr"
rm -rf "$t/z"; cp -r "$t/b" "$t/z"; printf 'final_server_seconds -3\n' > "$t/z/costs.txt"
expect 1 "costs.txt: impossible seconds" report "$t/z" --out "$t/zr"
echo "ok: impossible numbers are refused"
# contributions that are not the run's (one value edited; a row removed; another run's file) are
# refused: their digest is not the one the run wrote into digests.txt
rm -rf "$t/z"; cp -r "$t/b" "$t/z"
awk -F, 'BEGIN { OFS = "," } NR == 3 { $2 = $2 + 0.01 } { print }' "$t/b/contributions.csv" > "$t/z/contributions.csv"
cmp -s "$t/b/contributions.csv" "$t/z/contributions.csv" && fail "the test did not change contributions.csv"
expect 1 "contributions.csv: not the contributions the run wrote" report "$t/z" --out "$t/zr"
rm -rf "$t/z"; cp -r "$t/b" "$t/z"; sed -i '$d' "$t/z/contributions.csv"
expect 1 "contributions.csv: not the contributions the run wrote" report "$t/z" --out "$t/zr"
"$flce" run --algo flce --clients 4 --per-round 2 --rounds 2 --train-subset 300 --test-subset 60 --val-size 20 \
  --batch 16 --seed 4 --quiet --out "$t/s4" > /dev/null 2>&1 || fail "flce run seed 4"
cmp -s "$t/b/contributions.csv" "$t/s4/contributions.csv" && fail "seeds 3 and 4 gave the same contributions"
rm -rf "$t/z"; cp -r "$t/b" "$t/z"; cp "$t/s4/contributions.csv" "$t/z/contributions.csv"
expect 1 "contributions.csv: not the contributions the run wrote" report "$t/z" --out "$t/zr"
[ -e "$t/zr" ] && fail "a refused report wrote $t/zr"
echo "ok: contributions that are not the run's are refused"
# round_contributions.csv and clients.csv decide the reference rules (the selections are its rows)
# and the data shares: a damaged row was skipped and the report went on with status 0
for how in "sed -i 2d" "sed -i 2s/,0\./,x/" "sed -i 3p" "sed -i 2s/^1,/9,/"; do
  rm -rf "$t/z"; cp -r "$t/b" "$t/z"; $how "$t/z/round_contributions.csv"
  cmp -s "$t/b/round_contributions.csv" "$t/z/round_contributions.csv" && fail "'$how' did not change round_contributions.csv"
  expect 1 "round_contributions.csv: " report "$t/z" --out "$t/zr"
done
for how in "sed -i 3d" "sed -i 2s/,/;/" "sed -i 3p"; do
  rm -rf "$t/z"; cp -r "$t/b" "$t/z"; $how "$t/z/clients.csv"
  expect 1 "clients.csv: " report "$t/z" --out "$t/zr"
done
[ -e "$t/zr" ] && fail "a refused report wrote $t/zr"
echo "ok: damaged round contributions and client lists are refused"
# --window longer than the runs: the text said "over the last 5 rounds" of runs of 2
"$flce" report "$t/b" --out "$t/win" --window 5 > /dev/null 2>&1 || fail "report --window 5"
grep -q "macro-F1 over all 2 rounds (--window 5 is longer than the runs)" "$t/win/report.md" || fail "--window 5 over runs of 2 rounds: not said"
grep -q "over the last 5 rounds" "$t/win/report.md" && fail "--window 5 over runs of 2 rounds: 'the last 5 rounds' said"
# more seeds of one configuration than a table holds: every table takes the 20 seeds given (the
# reference rules' table once took the first 16 and said "16 seeds" beside a table of 20), and 65
# (one over the report's limit of 64) are refused whole, naming the limit, nothing written (they
# were once reported over the first 64). The seeds are copies of one run with the seed in
# config.json changed: settings apart from the seed are what makes a configuration.
mkdir -p "$t/many"
for s in $(seq 1001 1065); do
  cp -r "$t/b" "$t/many/s$s" && sed -i "s/\"seed\":[[:space:]]*3,/\"seed\": $s,/" "$t/many/s$s/config.json" || fail "copy of seed $s"
done
grep -q '"seed": 1065,' "$t/many/s1065/config.json" || fail "the test did not change the seed in config.json"
"$flce" report $(seq -f "$t/many/s%g" 1001 1020) --out "$t/many20" --quiet > "$t/log" 2>&1 || fail "flce report of 20 seeds: $(cat "$t/log")"
grep -q "^20 runs: 1 method in 1 configuration" "$t/many20/report.md" || fail "20 seeds: $(grep -m1 'runs: ' "$t/many20/report.md")"
grep -q "^### .*(20 seeds)$" "$t/many20/report.md" || fail "the reference rules' table of 20 seeds: $(grep '^### .*seeds)$' "$t/many20/report.md")"
grep -q "(1[0-9] seeds)" "$t/many20/report.md" && fail "a table of 20 seeds over fewer: $(grep '(1[0-9] seeds)' "$t/many20/report.md")"
# shellcheck disable=SC2046
expect 2 "more than 64 seeds of one configuration" report $(seq -f "$t/many/s%g" 1001 1065) --out "$t/many65"
[ -e "$t/many65" ] && fail "a refused report of 65 seeds wrote $t/many65"
# the rounds the horizon judges: a malformed FLCE_REPORT_HORIZON is refused, not read in part
FLCE_REPORT_HORIZON="2;3" expect 2 "FLCE_REPORT_HORIZON '2;3': rounds from 1 to 1000000" report "$t/b" --out "$t/hz"
FLCE_REPORT_HORIZON="0" expect 2 "FLCE_REPORT_HORIZON '0'" report "$t/b" --out "$t/hz"
[ -e "$t/hz" ] && fail "a refused report wrote $t/hz"
unset FLCE_REPORT_HORIZON
echo "ok: more seeds than a table takes are reported whole or refused"
# the clients section (issue 65), on numbers set here and worked out by hand. The selections:
# round 1 clients 0 and 1, round 2 clients 0 and 2 (rounds selected 2, 1, 1, 0: average ranks 4,
# 2.5, 2.5, 1); data sizes 10, 40, 30, 20 (ranks 1, 4, 3, 2). Spearman of the rule "rounds
# selected" with the data shares: sum dx dy = -1.5, sum dx^2 = 4.5, sum dy^2 = 5, so
# -1.5 / sqrt(22.5) = -1/sqrt(10) = -0.316228; of the data-size weights summed over those rounds
# (0.2 + 0.25, 0.8, 0.75, 0: ranks 2, 4, 3, 1) 4 / 5 = 0.8 with the data shares and 1.5 /
# sqrt(5 x 4.5) = 0.316228 with the rounds selected; KL of uniform to the shares (0.1, 0.4, 0.3,
# 0.2): 0.25 ln(0.25^4 / 0.0024) = 0.121777
rm -rf "$t/sp"; cp -r "$t/b" "$t/sp"
printf 'round,client,contribution\n1,0,0.5\n1,1,0.5\n2,0,0.5\n2,2,0.5\n' > "$t/sp/round_contributions.csv"
awk -F, 'BEGIN { OFS = ","; split("10 40 30 20", n, " ") } NR > 1 { $2 = n[$1 + 1] } { print }' "$t/b/clients.csv" > "$t/sp/clients.csv"
"$flce" report "$t/sp" --out "$t/sprep" > "$t/log" 2>&1 || fail "flce report of the set selections: $(cat "$t/log")"
sp_row() { awk -F, -v m="$2" '$3 == m { print $4, $5, $6 }' "$1/clients_summary.csv"; }
close() { awk -v g="$1" -v w="$2" 'BEGIN { n = split(g, a, " "); split(w, b, " "); if (n != 3) exit 1
  for (i = 1; i <= 3; i++) if (b[i] != "-" && (a[i] - b[i]) ^ 2 > 1e-11) exit 1 }'; }
got=$(sp_row "$t/sprep" "rounds selected (rule)")
close "$got" "- -0.316228 1" || fail "rounds selected: KL, Spearman with the data shares and with itself '$got', worked out by hand - -0.316228 1"
got=$(sp_row "$t/sprep" "data-size weights summed over the rounds selected (rule)")
close "$got" "- 0.8 0.316228" || fail "data-size weights: '$got', worked out by hand - 0.8 0.316228"
got=$(awk -F, '$3 == "uniform (rule)" { print $4, ($5 == "" ? "empty" : $5), ($6 == "" ? "empty" : $6) }' "$t/sprep/clients_summary.csv")
[ "${got#* }" = "empty empty" ] && close "${got%% *} 0 0" "0.121777 - -" || fail "uniform: KL 0.121777 and no Spearman (constant) worked out by hand, the report '$got'"
# the method's: data sizes made an increasing function of its contributions give a rank
# correlation of 1, a decreasing one -1, whatever the contributions
for dir in up down; do
  rm -rf "$t/sp-$dir"; cp -r "$t/sp" "$t/sp-$dir"
  awk -F, -v d=$dir 'BEGIN { OFS = "," } FNR == 1 { f++ } f == 1 && FNR > 1 { c[$1] = $2 }
    f == 2 && FNR > 1 { $2 = d == "up" ? 1 + 1000 * c[$1] : 1001 - 1000 * c[$1] } f == 2 { print }' \
    "$t/sp/contributions.csv" "$t/sp/clients.csv" > "$t/sp-$dir/clients.csv"
done
sed -i 's/"seed":[[:space:]]*3,/"seed": 1001,/' "$t/sp-up/config.json"; sed -i 's/"seed":[[:space:]]*3,/"seed": 1002,/' "$t/sp-down/config.json"
[ "$(awk -F, 'NR > 1 { print $2 }' "$t/sp/contributions.csv" | sort -u | wc -l)" -gt 1 ] || fail "the run's contributions are all equal: no order to correlate"
"$flce" report "$t/sp-up" --out "$t/sprep-up" > /dev/null 2>&1 || fail "flce report, sizes increasing with the contributions"
close "$(sp_row "$t/sprep-up" flce)" "- 1 -" || fail "Spearman of sizes increasing with the contributions: $(sp_row "$t/sprep-up" flce), not 1"
# a report of one seed opens on the clients, the claims follow, saying they need two seeds
[ "$(grep -m1 '^## ' "$t/sprep/report.md")" = "## Clients: contributions beside data shares" ] || fail "one seed: report.md opens on $(grep -m1 '^## ' "$t/sprep/report.md")"
grep -q "^The paper's claims need at least two seeds of a configuration" "$t/sprep/report.md" || fail "one seed: the claims do not say they need two seeds"
grep -q "<details class='claims'><summary>The paper's claims need at least two seeds" "$t/sprep/report.html" || fail "one seed: the claims are not folded in report.html"
# the two as seeds of one configuration: Spearman beside KL over the seeds, 1 and -1: mean 0,
# half-width t(0.975, 1) sqrt(2) / sqrt(2) = tan(0.475 pi) = 12.706204736; no clients section, the claims unfolded
"$flce" report "$t/sp-up" "$t/sp-down" --out "$t/sprep2" > /dev/null 2>&1 || fail "flce report of two seeds"
col=$(head -1 "$t/sprep2/seeds.csv" | tr ',' '\n' | grep -n '^spearman_data_shares$' | cut -d: -f1)
[ -n "$col" ] || fail "seeds.csv has no Spearman column: $(head -1 "$t/sprep2/seeds.csv")"
got=$(awk -F, -v c="$col" '$1 == "flce" && $3 == 2 { print $c, $(c + 1) }' "$t/sprep2/seeds.csv")
awk -v g="$got" 'BEGIN { split(g, a, " "); exit !(g != "" && a[1] ^ 2 < 1e-12 && (a[2] - 12.706204736174707) ^ 2 < 1e-9) }' ||
  fail "Spearman over the seeds 1 and -1: '$got', worked out by hand 0 12.706204736 (tan(0.475 pi))"
grep -q '^| method | n | accuracy | macro-F1 | KL | Spearman with data shares |' "$t/sprep2/report.md" || fail "no Spearman beside KL in the configuration's table"
grep -q '^## Clients' "$t/sprep2/report.md" && fail "a report of two seeds has the clients section"
grep -q "<details class='claims'>" "$t/sprep2/report.html" && fail "a report of two seeds folds the claims"
# report.html shows no Markdown bold; the class contributions' bars start at 0 and its heat map
# is drawn cell by cell (a bitmap in the SVG, stretched by the browser, was a blur)
grep -q '\*\*' "$t/sprep/report.html" && fail "report.html holds a literal **: $(grep -o '.\{20\}\*\*.\{20\}' "$t/sprep/report.html" | head -1)"
grep -q 'A claim <b>holds</b> when all its comparisons hold' "$t/sprep/report.html" || fail "report.html lacks the rule's bold"
grep -q "set yrange \[0:\*\]" "$t/sprep/class_contributions_00.gp" && grep -q "with image pixels" "$t/sprep/class_contributions_00.gp" ||
  fail "class contributions: bars not from 0 or the heat map a bitmap: $(cat "$t/sprep/class_contributions_00.gp")"
grep -q '<image' "$t/sprep/class_contributions_00.svg" && fail "the class contributions' heat map is a bitmap in the SVG"
for g in "$t/sprep"/*.gp; do
  grep -q "set xlabel '[^']" "$g" && grep -q "set ylabel '[^']" "$g" || fail "$(basename "$g"): a figure without an x or a y axis label"
done
echo "ok: the clients section (Spearman and KL worked out by hand), one seed first, Spearman beside KL over seeds, labels, bars from 0"
