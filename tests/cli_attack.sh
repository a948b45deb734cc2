#!/bin/sh
# cli_attack.sh FLCE: strategic clients (--attack, fl/attacks.c, docs/attacks.md). An honest run
# keeps the bits of the build before attacks existed (its digests, written down from that build,
# commit 3f7f1aa); an attack with a strength that changes nothing gives those bits too; each kind
# does what docs/attacks.md says, checked on the run's own files (prototypes read from the trace
# here, sample counts, the partition and model digests); every bad input is one line, status 2,
# nothing written.
PROG=$1
flce=$1
. "$(dirname "$0")/lib.sh"
t=$(mktemp -d /tmp/flce-attack-XXXXXX); trap 'rm -rf "$t"' EXIT
B="--clients 4 --per-round 2 --rounds 2 --train-subset 200 --test-subset 40 --val-size 16 --batch 16 --dirichlet 0.5 --seed 3 --backend cpu"
dig() { awk -v k="$2" '$1 == k { print $2 }' "$1/digests.txt"; }

# the honest run: the digests of the build before --attack (commit 3f7f1aa), written down here
"$flce" run --algo flce,fedavg $B --quiet --out "$t/hon" > /dev/null 2>&1 || fail "honest run"
for kv in partition:a64ce2fa9ba21408 initial_model:12ff96b7155f7f8c final_model:9c388304957673bf trace:699d0861f262a99d \
          contributions:bf746f77fa2033bb; do
  [ "$(dig "$t/hon/flce" "${kv%%:*}")" = "${kv#*:}" ] || fail "honest FLCE run: ${kv%%:*} $(dig "$t/hon/flce" "${kv%%:*}"), before --attack ${kv#*:}"
done
[ "$(dig "$t/hon/fedavg" final_model)" = 0be01ae70b9bb967 ] && [ "$(dig "$t/hon/fedavg" contributions)" = cfe12da479816fe9 ] ||
  fail "honest FedAvg run: $(cat "$t/hon/fedavg/digests.txt")"
[ "$(head -1 "$t/hon/flce/clients.csv")" = "client,samples,classes_held,noisy" ] || fail "an honest run's clients.csv gained a column"
grep -q '"attacks"' "$t/hon/flce/config.json" && fail "an honest run's config.json names attacks"

# a strength that changes nothing: the honest bytes, digest by digest
for a in replicate:0:1 random-data:1:0 shuffle-labels:2:0 flip-labels:3:0 inflate-count:0:1 forge-prototypes:2:1; do
  "$flce" run --algo flce,fedavg $B --attack "$a" --quiet --out "$t/id" --force > /dev/null 2> "$t/id.err" || fail "--attack $a: $(cat "$t/id.err")"
  for m in flce fedavg; do cmp -s "$t/hon/$m/digests.txt" "$t/id/$m/digests.txt" || fail "--attack $a changes nothing, yet $m's digests differ"; done
  json_has "$t/id/flce/config.json" "\"attacks\":[\"$a\"]" || fail "--attack $a: config.json does not record it"
  rm -rf "$t/id"
done

# replicate: client 0 holds its samples three times; inflate-count: it holds its own, and FedAvg
# (which weighs counts) changes
s0=$(awk -F, '$1 == 0 { print $2 }' "$t/hon/fedavg/clients.csv")
"$flce" run --algo fedavg $B --attack replicate:0:3 --quiet --out "$t/rep" > /dev/null 2>&1 || fail "replicate"
[ "$(awk -F, '$1 == 0 { print $2 "," $5 }' "$t/rep/clients.csv")" = "$((3 * s0)),replicate:0:3" ] ||
  fail "replicate:0:3: clients.csv says $(awk -F, '$1 == 0' "$t/rep/clients.csv"), 3 x $s0 expected"
"$flce" run --algo fedavg $B --attack inflate-count:0:3 --quiet --out "$t/inf" > /dev/null 2>&1 || fail "inflate-count"
[ "$(awk -F, '$1 == 0 { print $2 }' "$t/inf/clients.csv")" = "$s0" ] || fail "inflate-count: clients.csv's samples are not the samples held"
[ "$(dig "$t/inf" partition)" = "$(dig "$t/hon/fedavg" partition)" ] || fail "inflate-count changed the partition"
[ "$(dig "$t/inf" final_model)" != "$(dig "$t/hon/fedavg" final_model)" ] || fail "inflate-count:0:3: FedAvg's model is the honest one"

# the label attacks change the partition's labels, not who holds what: the classes held by a
# flip (a bijection of the labels) and a shuffle stay; random data changes pixels only
for a in flip-labels:1:1 shuffle-labels:1:1 random-data:1:1; do
  "$flce" run --algo fedavg $B --attack "$a" --quiet --out "$t/lab" --force > /dev/null 2>&1 || fail "$a"
  h=$(awk -F, '$1 == 1 { print $2 "," $3 }' "$t/hon/fedavg/clients.csv"); g=$(awk -F, '$1 == 1 { print $2 "," $3 }' "$t/lab/clients.csv")
  case "$a" in
    random-data*) [ "$(dig "$t/lab" partition)" = "$(dig "$t/hon/fedavg" partition)" ] || fail "$a changed the partition";;
    *) [ "$g" = "$h" ] || fail "$a: client 1 holds $g (samples, classes), honest $h"
       [ "$(dig "$t/lab" partition)" != "$(dig "$t/hon/fedavg" partition)" ] || fail "$a left the partition's labels as they were";;
  esac
  [ "$(dig "$t/lab" final_model)" != "$(dig "$t/hon/fedavg" final_model)" ] || fail "$a: the model is the honest one (client 1 trains in round 1)"
done

# forge-prototypes: client 2 (selected in round 1) uploads twice each prototype; the trace holds
# what it uploaded, read here from prototypes.npy (float32 [T][n][C][d]; NaN where absent)
# (prototypes from all samples: every class a client holds has one, so that the two clients of
# a round compete for each class's momentum; with the text's reading one of them has none here)
"$flce" run --algo flce $B --proto-samples all --quiet --out "$t/honall" > /dev/null 2>&1 || fail "flce, all samples"
"$flce" run --algo flce $B --proto-samples all --attack forge-prototypes:2:2 --quiet --out "$t/forge" > /dev/null 2>&1 || fail "forge-prototypes"
python3 - "$t/honall/trace/prototypes.npy" "$t/forge/trace/prototypes.npy" <<'PY' || fail "forge-prototypes: the trace's prototypes are not twice the honest ones"
import ast, math, struct, sys
def load(p):
    b = open(p, "rb").read()
    hl = struct.unpack("<H", b[8:10])[0]
    h = ast.literal_eval(b[10:10 + hl].decode())
    assert h["descr"] == "<f4" and not h["fortran_order"], h
    n = 1
    for s in h["shape"]:
        n *= s
    return h["shape"], struct.unpack("<%df" % n, b[10 + hl:10 + hl + 4 * n])
sh, a = load(sys.argv[1])
_, b = load(sys.argv[2])
T, n, C, d = sh
per = C * d
seen = 0
for i in range(per):  # round 1, client 2: twice; round 1, client 1: as honest
    x, y = a[2 * per + i], b[2 * per + i]
    assert (math.isnan(x) and math.isnan(y)) or y == 2 * x, (i, x, y)
    seen += not math.isnan(x)
    x, y = a[1 * per + i], b[1 * per + i]
    assert (math.isnan(x) and math.isnan(y)) or x == y, ("client 1", i, x, y)
assert seen > 0, "client 2 uploaded no prototype in round 1"
PY
[ "$(dig "$t/forge" contributions)" != "$(dig "$t/honall" contributions)" ] || fail "forge-prototypes:2:2: FLCE's contributions are the honest ones"
# and client 2's share of round 1 (its sum over classes of Q over C, round_contributions.csv) grows
r1() { awk -F, '$1 == 1 && $2 == 2 { print $3 }' "$1/round_contributions.csv"; }
awk -v h="$(r1 "$t/honall")" -v f="$(r1 "$t/forge")" 'BEGIN { exit !(h != "" && f + 0 > h + 0) }' ||
  fail "forge-prototypes:2:2: client 2's round-1 share $(r1 "$t/forge"), honest $(r1 "$t/honall"): not above"

# the guard (--prototype-clip, not the paper's): far above every length it changes nothing (the
# honest bytes); at 1 it shortens client 2's forged prototypes to the lower median length of each
# class's round, recomputed here from the trace with the paper's round-1 equations (no global
# prototype yet: V uniform, so Q = M, the mass from the clipped prototypes)
"$flce" run --algo flce $B --prototype-clip 1000 --quiet --out "$t/g1000" > /dev/null 2>&1 || fail "--prototype-clip 1000"
cmp -s "$t/hon/flce/digests.txt" "$t/g1000/digests.txt" || fail "--prototype-clip 1000 on an honest run: its digests are not the honest ones"
json_has "$t/g1000/config.json" '"prototype_clip":1000' || fail "--prototype-clip 1000: config.json does not record it"
grep -q prototype_clip "$t/hon/flce/config.json" && fail "an unguarded run's config.json names prototype_clip"
"$flce" run --algo flce $B --proto-samples all --attack forge-prototypes:2:2 --prototype-clip 1 --quiet --out "$t/guard" > /dev/null 2>&1 ||
  fail "forge-prototypes with --prototype-clip 1"
python3 - "$t/guard/trace/prototypes.npy" "$t/guard/round_contributions.csv" <<'PY' || fail "the guard: round 1's momentum is not the paper's on the clipped prototypes"
import ast, math, struct, sys
b = open(sys.argv[1], "rb").read()
hl = struct.unpack("<H", b[8:10])[0]
h = ast.literal_eval(b[10:10 + hl].decode())
T, n, C, d = h["shape"]
a = struct.unpack("<%df" % (T * n * C * d), b[10 + hl:10 + hl + 4 * T * n * C * d])
def norm(v): return math.sqrt(math.fsum(x * x for x in v))
def cos(u, v): return math.fsum(x * y for x, y in zip(u, v)) / (norm(u) * norm(v)) if norm(u) and norm(v) else 0.0
def normalise(x):
    s = math.fsum(x)
    return [v / s for v in x] if s > 0 else [1 / len(x)] * len(x)
share = [0.0] * n
clipped = 0
for c in range(C):
    ks = [k for k in range(n) if not math.isnan(a[((0 * n + k) * C + c) * d])]
    if not ks: continue
    p = {k: [float(x) for x in a[((0 * n + k) * C + c) * d:((0 * n + k) * C + c + 1) * d]] for k in ks}
    lens = sorted(norm(p[k]) for k in ks)
    cap = lens[(len(ks) - 1) // 2]  # kappa 1 times the lower median length
    for k in ks:
        if norm(p[k]) > cap:
            f = cap / norm(p[k]); p[k] = [x * f for x in p[k]]; clipped += k == 2
    pbar = [math.fsum(p[k][j] for k in ks) / len(ks) for j in range(d)]
    s = normalise([max(0.0, cos(p[k], pbar)) for k in ks])
    phat = [math.fsum(s[i] * p[k][j] for i, k in enumerate(ks)) for j in range(d)]
    M = normalise([max(0.0, cos(p[k], phat)) for k in ks])
    for i, k in enumerate(ks): share[k] += M[i] / C
got = {int(r.split(",")[1]): float(r.split(",")[2]) for r in open(sys.argv[2]).read().split("\n")[1:] if r and r.split(",")[0] == "1"}
assert clipped > 0, "no prototype of client 2 was above the median: the check checks nothing"
for k, v in got.items():
    assert abs(v - share[k]) < 1e-6, (k, v, share[k])
PY
expect 2 "0 (off) or at least 1" run --algo flce $B --prototype-clip 0.5 --out "$t/bad"
expect 2 "a space before it" run --algo flce $B --prototype-clip " 2" --out "$t/bad" # strtod skips the space; "2 " was refused
expect 2 "not an integer" run --algo flce --rounds " 2" --out "$t/bad"
expect 2 "not an integer" run --algo flce --rounds "+2" --out "$t/bad"
expect 2 "not a non-negative integer" run --algo flce --seed "+3" --out "$t/bad"
expect 2 "--ablate Q leaves it out" run --algo flce $B --prototype-clip 2 --ablate Q --out "$t/bad"
expect 2 "a setting of flce" run --algo fedavg $B --prototype-clip 2 --out "$t/bad"
"$flce" eval "$t/guard/trace" --out "$t/guard-ev" > "$t/gev.out" 2>&1 || fail "flce eval of a guarded run: $(cat "$t/gev.out")"
grep -q "^guard (not the paper's): each class's prototypes shortened to at most 1 x" "$t/gev.out" || fail "flce eval does not say the run was guarded"
cmp -s "$t/guard/contributions.csv" "$t/guard-ev/contributions.csv" || fail "flce eval of a guarded trace: other contributions than the run's"
"$flce" report "$t/guard" "$t/forge" --out "$t/grp" --quiet > /dev/null 2> "$t/grp.err" || fail "flce report of a guarded run: $(cat "$t/grp.err")"
grep -q "attacked: forge-prototypes:2:2; guard K = 1;" "$t/grp/report.md" || fail "the report's label does not name the guard"

# flce eval and flce report of an attacked run say so
"$flce" eval "$t/forge/trace" --out "$t/forge-ev" > "$t/ev.out" 2>&1 || fail "flce eval of an attacked run: $(cat "$t/ev.out")"
grep -q "^an attacked run (docs/attacks.md): forge-prototypes:2:2;" "$t/ev.out" || fail "flce eval does not say the run was attacked: $(head -2 "$t/ev.out")"
"$flce" report "$t/forge" "$t/rep" --out "$t/rp" --quiet > /dev/null 2> "$t/rp.err" || fail "flce report of attacked runs: $(cat "$t/rp.err")"
grep -q "attacked: forge-prototypes:2:2" "$t/rp/report.md" && grep -q "attacked: replicate:0:3" "$t/rp/report.md" ||
  fail "the report does not name the attacks"
sed 's/,replicate:0:3$/,replicate:0:3;rm -rf x/' "$t/rep/clients.csv" > "$t/cl" && cp "$t/cl" "$t/rep/clients.csv"
expect 1 "clients.csv: row 2: not four numbers and an attack" report "$t/rep" --out "$t/rp2"
# clients.csv's attack column and config.json's "attacks" must agree (an edited one is refused)
cp -r "$t/forge" "$t/fe1" && sed 's/,forge-prototypes:2:2$/,forge-prototypes:2:9/' "$t/forge/clients.csv" > "$t/fe1/clients.csv"
expect 1 "not the one config.json" report "$t/fe1" --out "$t/rp3"
cp -r "$t/forge" "$t/fe2" && sed 's/"attacks":/"attacks_gone":/' "$t/forge/config.json" > "$t/fe2/config.json"
expect 1 "not the one config.json" report "$t/fe2" --out "$t/rp4"
cp -r "$t/forge" "$t/fe3" && sed 's/^\(3,[0-9]*,[0-9]*,[0-9]*,\)$/\1flip-labels:3:1/' "$t/forge/clients.csv" > "$t/fe3/clients.csv"
expect 1 "not the one config.json" report "$t/fe3" --out "$t/rp5"
[ -e "$t/rp3" ] || [ -e "$t/rp4" ] || [ -e "$t/rp5" ] && fail "a refused report wrote its folder"

# a free-rider alone in its coalition: the global model never moves (no noise), or moves (noise)
"$flce" run --algo fedavg $B --members 0 --attack free-rider:0 --quiet --out "$t/fr" > /dev/null 2>&1 || fail "free-rider"
[ "$(dig "$t/fr" final_model)" = "$(dig "$t/fr" initial_model)" ] || fail "a free-rider alone moved the model"
"$flce" run --algo fedavg $B --members 0 --attack free-rider:0:0.5 --quiet --out "$t/frn" > /dev/null 2>&1 || fail "free-rider with noise"
[ "$(dig "$t/frn" final_model)" != "$(dig "$t/frn" initial_model)" ] || fail "a disguised free-rider's noise left the model as it was"

# flce truth takes the same attacks (each coalition trained as flce run --members would)
"$flce" truth --clients 3 --per-round 2 --rounds 1 --train-subset 120 --test-subset 20 --val-size 10 --batch 16 --seed 4 --backend cpu \
  --attack flip-labels:1 --quiet --out "$t/tr" > /dev/null 2> "$t/tr.err" || fail "truth with --attack: $(cat "$t/tr.err")"
"$flce" run --algo fedavg --clients 3 --per-round 2 --rounds 1 --train-subset 120 --test-subset 20 --val-size 10 --batch 16 --seed 4 \
  --backend cpu --attack flip-labels:1 --members 0,1 --quiet --out "$t/trm" > /dev/null 2>&1 || fail "run --members with --attack"
grep -q ",$(dig "$t/trm" final_model)\$\|,$(dig "$t/trm" final_model)," "$t/tr/utilities.csv" ||
  fail "the truth's row of {0,1} is not flce run --members 0,1's model ($(dig "$t/trm" final_model)): $(cat "$t/tr/utilities.csv")"

# bad input: one line, status 2, nothing written
for bad in "nosuch:0|not a kind of attack" "replicate|KIND:CLIENT" "replicate:+1|not a plain decimal index" "replicate: 1|not a plain decimal" \
           "replicate:01|not a plain decimal" "replicate:4|no client 4 of 0..3" "replicate:0:1.5|a whole number from 1 to 100" \
           "random-data:0:2|0 to 1" "free-rider:0:-1|0 to 10" "forge-prototypes:0:0|above 0" "inflate-count:0:0.5|1 to 1000" \
           "flip-labels:0:0x1|0 to 1" "flip-labels:0:nan|0 to 1" "shuffle-labels:0:|0 to 1"; do
  expect 2 "${bad#*|}" run --algo flce,fedavg $B --attack "${bad%%|*}" --out "$t/bad"
  [ -e "$t/bad" ] && fail "--attack ${bad%%|*}: refused, yet $t/bad was made"
done
# a value that holds a newline is echoed on the one line (flce_one_line), in a usage error and in
# a failure of the work alike
expect 2 "--attack 'flip-labels:0?:1'" run --algo flce $B --attack "$(printf 'flip-labels:0\n:1')" --out "$t/bad"
expect 2 "$t/no?such: no such trace directory" eval "$(printf '%s/no\nsuch' "$t")"
expect 2 "client 1 named twice" run --algo fedavg $B --attack flip-labels:1 --attack replicate:1 --out "$t/bad"
expect 2 "also named by --duplicate 0:1" run --algo fedavg $(echo "$B" | sed "s/--dirichlet 0.5/--iid/") --duplicate 0:1 --attack flip-labels:1 --out "$t/bad"
expect 2 "no method of the run feels it" run --algo fedavg,cgsv $B --attack forge-prototypes:0 --out "$t/bad"
expect 2 "no method of the run feels it" run --algo flce,fedfa $B --attack inflate-count:0 --out "$t/bad"
expect 2 "no method of the run feels it" truth --clients 3 --per-round 2 --rounds 1 --seed 4 --attack forge-prototypes:0 --out "$t/bad"
set -- ; for i in 0 1 2 3 4 5 6 7 8; do set -- "$@" --attack "flip-labels:$i"; done
expect 2 "--attack: 9 given, at most 8" run --algo fedavg $(echo "$B" | sed "s/--clients 4/--clients 10/") "$@" --out "$t/bad"
# the record names the strength the run used (every digit that makes its double), and the
# attacks in client order (the same run given in another order is the same record)
"$flce" run --algo flce $B --attack forge-prototypes:2:0.1234567890123456789 --quiet --out "$t/long" > /dev/null 2>&1 || fail "a long strength"
json_has "$t/long/config.json" '"attacks":["forge-prototypes:2:0.12345678901234568"]' ||
  fail "a strength of 17 digits is not recorded whole: $(grep -o 'forge[^"]*' "$t/long/config.json")"
expect 2 "differ" run --algo flce $B --attack forge-prototypes:2:0.123457 --out "$t/long" --resume
"$flce" run --algo flce $B --attack flip-labels:3 --attack replicate:1:2 --quiet --out "$t/ord" > "$t/ord.out" 2>&1 || fail "two attacks"
grep -qx '(an attacked run, docs/attacks.md: replicate:1:2 flip-labels:3:1)' "$t/ord.out" ||
  fail "the run's table does not say it is attacked: $(cat "$t/ord.out")"
json_has "$t/ord/config.json" '"attacks":["replicate:1:2","flip-labels:3:1"]' || fail "the attacks are not recorded in client order"
# FLCE without a momentum (--ablate Q, or M and V) feels no forged length, and has nothing to guard
expect 2 "no method of the run feels it" run --algo flce $B --ablate Q --attack forge-prototypes:0:5 --out "$t/bad"
expect 2 "no method of the run feels it" run --algo flce $B --ablate M --ablate V --attack forge-prototypes:0:5 --out "$t/bad"
expect 2 "--ablate M and V leaves it out" run --algo flce $B --ablate M --ablate V --prototype-clip 1 --out "$t/bad"
[ -e "$t/bad" ] && fail "a refused --attack made $t/bad"
# flce report TRUTH RUN: a run is of a truth's federation only where its attacks are the truth's
# (free-rider keeps the partition digest): an attacked truth (its strength typed 1.0, the runs
# record 1) scores the attacked runs and not the honest ones, an honest truth the reverse
T3="--clients 3 --per-round 2 --rounds 1 --train-subset 120 --test-subset 20 --val-size 10 --batch 16 --seed 4 --backend cpu"
"$flce" truth $T3 --attack free-rider:0:1.0 --quiet --out "$t/tfr" > /dev/null 2>&1 || fail "an attacked truth"
"$flce" truth $T3 --quiet --out "$t/thn" > /dev/null 2>&1 || fail "an honest truth"
"$flce" run --algo flce,fedavg $T3 --quiet --out "$t/r3h" > /dev/null 2>&1 || fail "honest runs of the truths' federation"
"$flce" run --algo flce,fedavg $T3 --attack free-rider:0:1 --quiet --out "$t/r3a" > /dev/null 2>&1 || fail "attacked runs of the truths' federation"
[ "$(cat "$t/r3h/flce/digests.txt" | grep '^partition ')" = "$(cat "$t/r3a/flce/digests.txt" | grep '^partition ')" ] ||
  fail "free-rider changed the partition digest: the checks below would test nothing"
expect 2 "other attacks" report "$t/r3h" "$t/tfr" --out "$t/trp0"
[ -e "$t/trp0" ] && fail "a refused report wrote its folder"
for tr in tfr:r3a:r3h thn:r3h:r3a; do
  tt=${tr%%:*}; ok=${tr#*:}; ok=${ok%%:*}; no=${tr##*:}
  "$flce" report "$t/r3h" "$t/r3a" "$t/$tt" --quiet --out "$t/trp-$tt" > /dev/null 2> "$t/trp.err" || fail "report with truth $tt: $(cat "$t/trp.err")"
  grep -q "2 runs of its partition but other attacks" "$t/trp.err" || fail "truth $tt: the runs left out are not said: $(cat "$t/trp.err")"
  [ "$(awk -F, -v d="$t/$ok/" 'index($4, d) == 1' "$t/trp-$tt/truth_scores.csv" | wc -l)" = 2 ] &&
    [ "$(awk -F, -v d="$t/$no/" 'index($4, d) == 1' "$t/trp-$tt/truth_scores.csv" | wc -l)" = 0 ] ||
    fail "truth $tt: $ok's two runs scored, $no's none expected: $(cut -d, -f3,4 "$t/trp-$tt/truth_scores.csv")"
done
# the attack column blanked for the attacker, or removed while config.json names the attack: refused too
cp -r "$t/forge" "$t/fe4" && sed 's/,forge-prototypes:2:2$/,/' "$t/forge/clients.csv" > "$t/fe4/clients.csv"
expect 1 "not the one config.json" report "$t/fe4" --out "$t/rp6"
cp -r "$t/forge" "$t/fe5" && sed 's/,[^,]*$//' "$t/forge/clients.csv" > "$t/fe5/clients.csv"
expect 1 "no attack column, where config.json names attacks" report "$t/fe5" --out "$t/rp7"
[ -e "$t/rp6" ] || [ -e "$t/rp7" ] && fail "a refused report wrote its folder"
# an attacked run whose config.json lost its "attacks", resumed without --attack: the state names
# the attacks as what differs (it named "its model size, clients or rounds")
cp -r "$t/rep" "$t/rep2" && grep -v '^[[:space:]]*"attacks":' "$t/rep/config.json" > "$t/rep2/config.json"
grep -q '"attacks"' "$t/rep2/config.json" && fail "the sed above left config.json's attacks"
expect 2 'its attacks is ["replicate:0:3"], this run'"'"'s absent' run --algo fedavg $B --out "$t/rep2" --resume
# tools/attacks_table.py (the strategic clients' tables) reads a run only where its
# contributions.csv is the one its digests.txt names: the xxh3-64 recomputed in Python
# (tools/flce_digest.py) is the harness's (the honest run's, written down above); an attacked run
# and its honest twin laid out as the study's folders give FLCE's row; a contribution edited to
# another finite number is refused (one line, status 1, nothing written)
tools=$(dirname "$0")/../tools
[ "$(python3 "$tools/flce_digest.py" --contributions "$t/hon/flce")" = "bf746f77fa2033bb $t/hon/flce" ] ||
  fail "tools/flce_digest.py: $(python3 "$tools/flce_digest.py" --contributions "$t/hon/flce" 2>&1), digests.txt bf746f77fa2033bb"
at=$t/tab; mkdir -p "$at/study/fmnist-attack-forge-2-s3" "$at/truth/fmnist-truth-label-k-runs-s3" "$at/guard"
cp -r "$t/forge" "$at/study/fmnist-attack-forge-2-s3/flce" && cp -r "$t/honall" "$at/truth/fmnist-truth-label-k-runs-s3/flce" ||
  fail "copying the runs"
TAB="attacks --study $at/study --truth $at/truth --guard $at/guard"
python3 "$tools/attacks_table.py" $TAB --out "$at/ok" > "$at/ok.out" 2>&1 || fail "tools/attacks_table.py: $(cat "$at/ok.out")"
[ "$(awk -F, '$3 == "flce" && $4 == 1' "$at/ok/attacks.csv" | wc -l)" = 1 ] || fail "tools/attacks_table.py: no row of FLCE: $(cat "$at/ok/attacks.csv")"
# its matrix (attacks.md) shows that row's difference to three places, with n
python3 "$tools/attacks_table.py" matrix --out "$at/ok" > /dev/null 2>&1 || fail "tools/attacks_table.py matrix failed"
want=$(awk -F, '$3 == "flce" { printf "| forge-prototypes:2 | %+.3f u", $7 }' "$at/ok/attacks.csv")
grep -qF -- "$want" "$at/ok/attacks.md" && grep -qF -- "(1) |" "$at/ok/attacks.md" ||
  fail "tools/attacks_table.py matrix: no cell '$want... (1)': $(cat "$at/ok/attacks.md")"
c=$at/study/fmnist-attack-forge-2-s3/flce/contributions.csv
awk -F, -v OFS=, 'NR == 2 { $2 = ($2 == "0.125" ? "0.25" : "0.125") } 1' "$t/forge/contributions.csv" > "$c"
cmp -s "$c" "$t/forge/contributions.csv" && fail "the awk above edited no contribution"
PROG=python3
expect 1 "$c: not the contributions its digests.txt names" "$tools/attacks_table.py" $TAB --out "$at/bad"
PROG=$flce
[ -e "$at/bad" ] && fail "tools/attacks_table.py refused a run, yet wrote $at/bad"
# tools/attacks_recheck.py, code of its own, recomputes every field of that table (the edit
# undone); and a run whose digests.txt has no contributions line (read as before the line
# existed) is a control only where its contributions are the honest run's, value for value (the
# table once compared the two absent lines and called any such pair the honest bytes)
cmp -s "$t/forge/contributions.csv" "$t/honall/contributions.csv" && fail "the forged run has the honest contributions"
cp "$t/forge/contributions.csv" "$c"
python3 "$tools/attacks_recheck.py" --table "$at/ok/attacks.csv" --study "$at/study" --truth "$at/truth" --guard "$at/guard" \
  > "$at/re.out" 2>&1 || fail "tools/attacks_recheck.py: $(cat "$at/re.out")"
for r in "$at/study/fmnist-attack-forge-2-s3/flce" "$at/truth/fmnist-truth-label-k-runs-s3/flce"; do
  grep -v '^contributions ' "$r/digests.txt" > "$at/d.txt" && mv "$at/d.txt" "$r/digests.txt"
done
python3 "$tools/attacks_table.py" $TAB --out "$at/nod" > "$at/nod.out" 2>&1 || fail "tools/attacks_table.py: $(cat "$at/nod.out")"
awk -F, '$3 == "flce" && ($12 ~ /control/ || $19 != 0) { bad = 1 } END { exit !bad }' "$at/nod/attacks.csv" &&
  fail "tools/attacks_table.py: a forged run without a contributions digest called the honest bytes: $(cat "$at/nod/attacks.csv")"
# flce report's section "Strategic clients" (apps/report/report_attacks.c) against
# tools/attacks_table.py, code of its own, on the same folders: three seeds of FedAvg (which
# weighs the inflated count) and FedFa (which cannot feel it: a control) honest and attacked;
# every field of each row the same; the threshold 1/(2n) for 4 clients is 0.125
B2="--clients 4 --per-round 2 --rounds 2 --train-subset 200 --test-subset 40 --val-size 16 --batch 16 --dirichlet 0.5 --backend cpu --quiet"
a2=$t/tab2
for s in 3 4 5; do
  "$flce" run --algo fedavg,fedfa $B2 --seed $s --out "$a2/truth/fmnist-truth-label-k-runs-s$s" > /dev/null 2>&1 || fail "honest run, seed $s"
  "$flce" run --algo fedavg,fedfa $B2 --seed $s --attack inflate-count:0:5 --out "$a2/study/fmnist-attack-inflate-5-s$s" > /dev/null 2>&1 ||
    fail "inflate-count run, seed $s"
done
"$flce" report "$a2"/study/* "$a2"/truth/* --out "$a2/rep" --quiet > /dev/null 2> "$a2/rep.err" || fail "flce report of attacks: $(cat "$a2/rep.err")"
python3 "$tools/attacks_table.py" attacks --study "$a2/study" --truth "$a2/truth" --out "$a2/py" > "$a2/py.out" 2>&1 ||
  fail "tools/attacks_table.py: $(cat "$a2/py.out")"
python3 - "$a2/rep/attacks.csv" "$a2/py/attacks.csv" <<'PY' || fail "flce report's attacks.csv is not tools/attacks_table.py's"
import csv, sys
mine = {r['method']: r for r in csv.DictReader(open(sys.argv[1]))}
ref = {r['method']: r for r in csv.DictReader(open(sys.argv[2]))}
assert sorted(mine) == sorted(ref) == ['fedavg', 'fedfa'], (sorted(mine), sorted(ref))
for m, r in mine.items():
    q = ref[m]
    for c in ['n', 'honest_share', 'attacked_share', 'difference', 'half_width', 'seeds_to_decide', 'verdict',
              'accuracy_difference', 'accuracy_half_width', 'runs_identical_to_honest', 'seeds']:
        assert r[c] == q[c], (m, c, r[c], q[c])
    for c in ['sd', 'detectable_difference']:
        assert (r[c] == q[c] == '') or abs(float(r[c]) - float(q[c])) < 5e-7, (m, c, r[c], q[c])
    assert r['attacks'] == 'inflate-count:0:5' and r['attackers'] == '0' and r['threshold'] == '0.125000' and r['n'] == '3', r
assert mine['fedfa']['verdict'] == 'control: the honest bytes' and mine['fedavg']['verdict'] != mine['fedfa']['verdict'], mine
PY
grep -q '^## Strategic clients' "$a2/rep/report.md" && grep -q '<h2[^>]*>Strategic clients</h2>' "$a2/rep/report.html" ||
  fail "report.md or report.html has no section 'Strategic clients'"
# its figure: one panel (attacks_00.csv), a row a method, each row's interval the table's d +- h
grep -q "src='attacks.svg'" "$a2/rep/report.html" && [ -s "$a2/rep/attacks.png" ] && [ ! -e "$a2/rep/attacks_01.csv" ] ||
  fail "no figure of strategic clients, or more than one panel"
python3 - "$a2/rep/attacks.csv" "$a2/rep/attacks_00.csv" <<'PY' || fail "the figure's data are not the table's"
import csv, sys
t = {r['method']: r for r in csv.DictReader(open(sys.argv[1]))}
f = {r['method']: r for r in csv.DictReader(open(sys.argv[2]))}
assert sorted(t) == sorted(f), (sorted(t), sorted(f))
colour = {'manipulable': 0xd55e00, 'resists': 0x009e73, 'undecided': 0x7f7f7f, 'control: the honest bytes': 0xc8c8c8}
for m, r in t.items():
    d, h = float(r['difference']), float(r['half_width'])
    for c, x in [('difference', d), ('low', d - h), ('high', d + h)]:
        assert abs(float(f[m][c]) - x) < 1e-5, (m, c, f[m][c], x)
    assert f[m]['verdict'] == r['verdict'] and int(f[m]['color']) == colour[r['verdict']], (m, f[m], r['verdict'])
assert sorted(int(r['y']) for r in f.values()) == list(range(len(f))), f  # a row each, none drawn over another
PY
# an attack whose strength is no number (config.json and clients.csv agreeing): status 1, the file
# named, nothing written (it was once said as "out of memory", status 2)
cp -r "$a2/study/fmnist-attack-inflate-5-s3/fedavg" "$a2/bad" && sed -i 's/inflate-count:0:5/inflate-count:0:abc/' "$a2/bad/config.json" "$a2/bad/clients.csv"
expect 1 "$a2/bad/config.json: \"attacks\": inflate-count's strength 'abc'" report "$a2/bad" "$a2/truth/fmnist-truth-label-k-runs-s3/fedavg" --out "$a2/rbad"
[ -e "$a2/rbad" ] && fail "a refused report wrote its folder"
# attacked runs without their honest twins: no section, no attacks.csv
"$flce" report "$a2"/study/* --out "$a2/rep1" --quiet > /dev/null 2> "$a2/rep1.err" || fail "flce report of attacked runs alone: $(cat "$a2/rep1.err")"
[ -e "$a2/rep1/attacks.csv" ] || grep -q 'Strategic clients' "$a2/rep1/report.md" && fail "a section of strategic clients without honest runs"
echo "cli_attack: ok"
