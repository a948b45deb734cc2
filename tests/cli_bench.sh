#!/bin/sh
# cli_bench.sh FLCE_BENCH: flce-bench runs a tiny training benchmark and writes its CSV
# columns; bad arguments are one line and status 2.
set -u
bench=$1
PROG=$bench
. "$(dirname "$0")/lib.sh"
t=$(mktemp -d /tmp/flce-bench-XXXXXX); trap 'rm -rf "$t"' EXIT
"$bench" train --input 1x12x12 --batch 4 --steps 1 --repeats 1 --peak 100 --csv "$t/train.csv" > "$t/log" || fail "train: $(cat "$t/log")"
head -1 "$t/train.csv" | grep -q '^backend,device,input,batch,steps,images_per_second,gflops,peak_gflops,fraction_of_peak' || fail "CSV header"
[ "$(wc -l < "$t/train.csv")" = 3 ] || fail "one CSV row per backend (cpu, reference) expected"
cut -d, -f1 "$t/train.csv" | tr "\n" " " | grep -q "backend cpu reference" || fail "backends missing from the CSV"
# --read-loss: the last column says it (0 above, 1 here); rows under other columns: status 2, file untouched
"$bench" train --backend cpu --input 1x12x12 --batch 4 --steps 1 --repeats 1 --peak 100 --read-loss --csv "$t/train.csv" > "$t/log" ||
  fail "train --read-loss: $(cat "$t/log")"
[ "$(awk -F, 'NR > 1 { print $(NF - 2) }' "$t/train.csv" | tr '\n' ' ')" = "0 0 1 " ] || fail "read_loss column: $(cat "$t/train.csv")"
# --eval: the forward pass alone, said in the last column; its FLOP count per image, read back as
# GFLOP/s over images/s (the device column holds commas: fields counted from the end), is
# ResNet20's forward at 1x12x12 worked out by hand: conv1 2*16*144*9 = 41,472; stage 1, six
# 16->16 convolutions at 12x12, 663,552 each; stage 2, 16->32 stride 2 (331,776), its 1x1
# shortcut (36,864) and five 32->32 at 6x6 (663,552 each); stage 3 the same at 3x3 with 64; the
# linear layer 2*64*10 = 1,280: 11,396,864. A training step counts 2x conv1 and 3x the rest:
# 34,149,120.
"$bench" train --backend cpu --input 1x12x12 --batch 4 --steps 1 --repeats 1 --peak 100 --eval --csv "$t/train.csv" > "$t/log" ||
  fail "train --eval: $(cat "$t/log")"
[ "$(awk -F, 'NR > 1 { print $(NF - 1) }' "$t/train.csv" | tr '\n' ' ')" = "0 0 0 1 " ] || fail "eval column: $(cat "$t/train.csv")"
awk -F, 'NR > 1 && $1 == "cpu" { f = $(NF - 6) * 1e9 / $(NF - 7); want = $(NF - 1) ? 11396864 : 34149120
  if (f < 0.97 * want || f > 1.03 * want) { print "row " NR ": " f " FLOP per image, expected " want; bad = 1 } }
  END { exit bad }' "$t/train.csv" > "$t/flops" || fail "FLOP per image: $(cat "$t/flops")"
# --optimizer both: plain SGD and the released step (clipping, momentum, weight decay) alternate, compared in one line
"$bench" train --backend cpu --input 1x12x12 --batch 4 --steps 1 --repeats 2 --peak 100 --optimizer both --csv "$t/train.csv" > "$t/log" ||
  fail "train --optimizer both: $(cat "$t/log")"
grep -q "the released step over plain SGD (cpu): 1 pair of timings, time ratio median" "$t/log" || fail "no comparison line: $(cat "$t/log")"
[ "$(tail -1 "$t/train.csv" | awk -F, '{ print $NF }')" = both ] || fail "optimizer column: $(tail -1 "$t/train.csv")"
printf 'backend,device,input\n' > "$t/old.csv"
expect 2 "its columns are not this version's" train --backend cpu --input 1x12x12 --batch 4 --steps 1 --repeats 1 --peak 100 --csv "$t/old.csv"
[ "$(cat "$t/old.csv")" = "backend,device,input" ] || fail "a CSV of other columns was changed"
# without --peak the peak is measured right before each timing: with one timing the fraction is
# that timing's GFLOP/s over that peak, and the peak lies in the range the last line names
"$bench" train --backend cpu --input 1x12x12 --batch 4 --steps 1 --repeats 1 --csv "$t/own.csv" > "$t/log" || fail "train, measured peak: $(cat "$t/log")"
range=$(sed -n 's/.*measured right before it: \([0-9.]*\)-\([0-9.]*\) GFLOP\/s)$/\1 \2/p' "$t/log")
[ -n "$range" ] || fail "the measured peaks' range is not named: $(tail -1 "$t/log")"
sed -n 2p "$t/own.csv" | sed 's/"[^"]*"//' | awk -F, -v r="$range" '{ split(r, b, " "); g = $7; p = $8; f = $9
  exit !(p > 0 && p + 0.051 >= b[1] && p - 0.051 <= b[2] && (f - g / p) * (f - g / p) < 1e-6) }' ||
  fail "one timing: fraction_of_peak is not gflops / peak_gflops, or the peak is outside $range: $(sed -n 2p "$t/own.csv")"
"$bench" train --backend cpu --input 1x12x12 --batch 4 --steps 1 --repeats 3 > "$t/log3" || fail "train, 3 timings: $(cat "$t/log3")"
sed -n 's/.*measured right before it: \([0-9.]*\)-\([0-9.]*\) GFLOP\/s)$/\1 \2/p' "$t/log3" | awk '{ exit !($1 > 0 && $1 <= $2) }' ||
  fail "three timings: no range of peaks: $(tail -1 "$t/log3")"
# FLCE_BENCH_AB: the timings alternate the switch (none here: the same code twice) and a line
# compares the neighbouring pairs: 4 timings, 2 pairs
FLCE_BENCH_AB=1 "$bench" train --backend cpu --input 1x12x12 --batch 4 --steps 1 --repeats 4 --peak 100 > "$t/ab" 2>&1 || fail "FLCE_BENCH_AB: $(cat "$t/ab")"
grep -q "^FLCE_BENCH_AB: 2 pairs of timings, B's time over A's: median [0-9.]*, mean [0-9.]*, B faster in [0-2] of 2$" "$t/ab" ||
  fail "FLCE_BENCH_AB: no comparison line: $(cat "$t/ab")"
# FLCE_CPU_PROFILE: the convolutions' table. At 1x12x12 the model has 23 convolution passes of
# distinct shape (conv1's forward and weight gradient, and the forward, input and weight gradients
# of seven more shapes); against --peak 100 a row's fraction is its GFLOP/s in percent; the rows'
# shares of the step add up to the "all convolutions" row's, which with "the rest" makes 100%; and
# that row's GFLOP/s times its
# share over images/s is the convolutions' FLOP per image worked out by hand above: 34,149,120
# less the linear layer's 3 x 1,280 = 34,145,280 (within the printed digits' rounding).
FLCE_CPU_PROFILE=1 "$bench" train --backend cpu --input 1x12x12 --batch 4 --steps 3 --repeats 1 --peak 100 > "$t/prof" 2> "$t/prof.err" ||
  fail "FLCE_CPU_PROFILE: $(cat "$t/prof" "$t/prof.err")"
grep -q "^the convolutions in the timed steps (FLCE_CPU_PROFILE): medians over the 1 timing of each one's GFLOP/s and its fraction of --peak$" "$t/prof" ||
  fail "FLCE_CPU_PROFILE: no table of the convolutions: $(cat "$t/prof")"
awk '/^cpu / { ips = $4 } /^conv_/ { n++; s += $NF; if (($(NF - 2) - $(NF - 1)) ^ 2 > 0.0121) bad = bad " " $1 "(" $(NF - 2) " " $(NF - 1) ")" }
  /^all convolutions / { g = $(NF - 2); sh = $NF + 0 } /^the rest / { rest = $NF + 0; had = 1 }
  END { f = g * 1e9 * sh / 100 / ips; tol = 0.051 / g + 0.051 / sh + 0.051 / ips + 0.002
    if (n != 23) print "rows: " n ", expected 23"; else if (bad != "") print "fraction is not GFLOP/s / 100:" bad
    else if ((s - sh) ^ 2 > (23 * 0.05 + 0.05) ^ 2) print "shares sum to " s "%, all convolutions " sh "%"
    else if (!had || (rest + sh - 100) ^ 2 > 0.0121) print "the rest " rest "% and the convolutions " sh "% are not the whole step"
    else if (f < 34145280 * (1 - tol) || f > 34145280 * (1 + tol)) print f " convolution FLOP per image, expected 34145280"
    else ok = 1
    exit !ok }' "$t/prof" > "$t/prof.why" || fail "FLCE_CPU_PROFILE: $(cat "$t/prof.why"): $(cat "$t/prof")"
# the profile on stderr: the last stage's forward, 2 x 4 samples x 64 x 64 x 9 taps x 9 positions
# = 2,654,208 FLOP a call, at GFLOP/s = 2,654,208 calls / ms x 1e-6 (to the printed digits);
# BatchNorm counts none
awk '$1 == "conv_fwd" && $2 == "c64" && $3 == "3x3" { ms = $(NF - 3); calls = $(NF - 2); g = $NF
    ok = ms > 0 && g > 0 && (g - 2654208 * calls / ms * 1e-6) ^ 2 <= (0.051 + 2654208 * calls / ms * 1e-6 * 0.051 / ms) ^ 2 }
  $1 ~ /^bn_/ && $NF != "-" { bn = 1 } END { exit !(ok && !bn) }' "$t/prof.err" ||
  fail "FLCE_CPU_PROFILE: the profile's GFLOP/s column: $(cat "$t/prof.err")"
"$bench" peak --threads 1 --csv "$t/peak.csv" > "$t/log" || fail "peak: $(cat "$t/log")"
head -1 "$t/peak.csv" | grep -qx 'threads,kind,peak_gflops' || fail "peak CSV header"
grep -q '^1,muladd_avx2,[0-9]' "$t/peak.csv" || fail "peak CSV: no muladd_avx2 row"
grep -q '^1,fma_avx2,[0-9]' "$t/peak.csv" || fail "peak CSV: no fma_avx2 row"
grep -q 'CPU backend.s vectors' "$t/log" || fail "peak: the backend's vectors not marked"
expect 2 "--threads 0" peak --threads 0
expect 2 "Vulkan" train --backend cpu --device 0 --input 1x12x12 --steps 1 --repeats 1 --peak 100 # timed the cpu, --device ignored
expect 2 "--peak 0: must be > 0" train --backend cpu --input 1x12x12 --steps 1 --repeats 1 --peak 0 # measured the peak instead, silently
expect 2 "--lambda -1: must be >= 0" train --backend cpu --input 1x12x12 --steps 1 --repeats 1 --peak 100 --lambda -1
# settings that did nothing (2026-11-29): the evaluation pass has no loss to weigh or read; the
# threads where no cpu row runs and the peak is given; a given peak was called "measured"
expect 2 "--lambda: weighs a training loss, and --eval" train --backend cpu --input 1x12x12 --steps 1 --repeats 1 --peak 100 --eval --lambda 1
expect 2 "--read-loss: reads a training step's losses, and --eval" train --backend cpu --input 1x12x12 --steps 1 --repeats 1 --peak 100 --eval --read-loss
expect 2 "--threads 2: sets the cpu backend's threads and the peak's measurement, and neither runs" train --backend reference --input 1x12x12 --batch 2 --steps 1 --repeats 1 --peak 100 --threads 2
expect 2 "sides 4 to 512" train --input 1x2x2
"$PROG" train --backend cpu --input 1x12x12 --batch 4 --steps 1 --repeats 1 --peak 100 > "$t/given.out" 2>&1 || fail "train --peak 100: $(cat "$t/given.out")"
grep -q "against the peak given by --peak, 100.0 GFLOP/s, not measured here" "$t/given.out" || fail "a given peak is not named as given: $(tail -1 "$t/given.out")"
"$bench" server --help > /dev/null || fail "server --help"
# the server benchmark at its smallest (it died with a segmentation fault when it built its
# engine field by field): every table there, numbers that are numbers, plausible ratios
"$bench" server --tiny --csv "$t/server.csv" > "$t/srv" 2> "$t/srv.err" || fail "server --tiny: $(cat "$t/srv.err")"
awk '$1 == "flce" && $3 == 272474 && $4 == 10 { r = $6 } END { exit !(r > 0.1 && r < 10) }' "$t/srv" ||
  fail "server --tiny: FLCE's round not within 0.1-10x FedAvg's: $(grep '^flce ' "$t/srv")"
awk '$1 == "fedsv-exact" && $2 == 10 { r = $6 } END { exit !(r > 100) }' "$t/srv" || fail "server --tiny: FedSV not far above FedAvg"
# FedSV exact run for real at K = 4 against its estimate (16 evaluations): within a factor 3
awk '$1 == "fedsv-exact" && $2 == 4 { s = $5; sub(/.*= /, ""); sub(/ s$/, ""); e = $0 } END { exit !(s > e / 3 && s < e * 3) }' "$t/srv" ||
  fail "server --tiny: FedSV at K = 4 run for real far from its estimate: $(grep '^fedsv-exact *4' "$t/srv")"
grep -q '^study *30 *20 *5 *10 auto(rank,mu)' "$t/srv" || fail "server --tiny: no completion row (study scale, auto)"
# today's completion against the code before 2026-11-27: seconds both, and the same bits
awk '$1 == "study" { if (!($7 + 0 > 0 && $8 > 0 && $NF == "yes")) exit 1; n++ } END { exit n != 2 }' "$t/srv" ||
  fail "server --tiny: completion rows: $(grep '^study' "$t/srv")"
# (ratios of times only checked positive: under ctest -j2 FedAvg's measured time was inflated
# once to give FLCE 0.37x, a timing, not a defect)
awk '$1 == 30 && $2 == 10 { n++; if (!($(NF - 1) > 0 && $NF > 0)) exit 1 } END { exit n != 2 }' "$t/srv" ||
  fail "server --tiny: the whole run's totals: $(grep '^ *30 *10' "$t/srv")"
grep -q '^flce-completion-before,5,' "$t/server.csv" && grep -q '^flce-completion-today,5,.*same bits$' "$t/server.csv" &&
  grep -q '^flce-total-auto,10,' "$t/server.csv" || fail "server --tiny: CSV rows missing"
expect 2 "pick one" server --quick --tiny
expect 2 "--threads 99" server --tiny --threads 99
expect 2 "--input 'big'" train --input big
expect 2 "--backend 'gpu'" train --backend gpu
expect 2 "--batch 1" train --batch 1
# cluster's figure with the CSV elsewhere: gnuplot failed (it read the CSV's name relative to the
# figure's folder), status 1 and a 0-byte mpi_cluster.png left behind; its data now lies beside it
mkdir "$t/csvs"
"$bench" cluster --train-rate 1000 --eval-rate 1000 --csv "$t/csvs/c.csv" --plot "$t/fig" > "$t/log" 2>&1 || fail "cluster --plot: $(cat "$t/log")"
[ -s "$t/fig/mpi_cluster.png" ] && [ -s "$t/fig/mpi_cluster.svg" ] || fail "cluster --plot: no figure"
cmp -s "$t/csvs/c.csv" "$t/fig/mpi_cluster.csv" || fail "cluster --plot: the figure's data differ from --csv's"
[ "$(grep -c . "$t/fig/mpi_cluster.csv")" = 14 ] || fail "cluster --plot: $(grep -c . "$t/fig/mpi_cluster.csv") lines, expected 14 (header and 13 process counts)"
touch "$t/afile"
# a --plot folder that cannot be made is said before the measurement (it was status 1 after it:
# minutes later for server), and so is --tiny's plot, which always failed (gnuplot: no valid points)
expect 2 "--plot $t/afile/fig: cannot write figures: " cluster --train-rate 1000 --eval-rate 1000 --plot "$t/afile/fig"
expect 2 "--plot $t/afile: cannot write figures: $t/afile is a file, not a folder" server --quick --plot "$t/afile"
expect 2 "--plot: --tiny measures too little for the figures" server --tiny --plot "$t/fig2"
[ ! -e "$t/fig2" ] || fail "a refused --plot made its folder"
# a --csv that cannot be written is said before the measurement (it was said after it, minutes
# later without --tiny): no folder, a folder as the file
expect 2 "--csv $t/none/s.csv: cannot write: its folder $t/none does not exist" server --tiny --csv "$t/none/s.csv"
expect 2 "--csv $t: cannot write: a folder, not a file" server --tiny --csv "$t"
expect 2 "--csv $t/none/t.csv: cannot open for appending: " train --backend cpu --input 1x12x12 --batch 4 --steps 1 --repeats 1 --peak 100 --csv "$t/none/t.csv"
expect 2 "--csv $t/none/c.csv: cannot write: its folder $t/none does not exist" cluster --train-rate 1 --eval-rate 1 --csv "$t/none/c.csv"
expect 2 "--repeats 0" server --repeats 0
expect 2 "unknown command" frobnicate
# a rate of 0 or less was taken as "not given" and measured instead, without a word; a client
# count above the 50,000 images gave clients of fractions of an image
expect 2 "--train-rate 0: must be > 0" cluster --train-rate 0 --eval-rate 1000
expect 2 "--eval-rate -1: must be > 0" cluster --train-rate 1000 --eval-rate -1
expect 2 "--clients 60000: at most 50000" cluster --train-rate 1000 --eval-rate 1000 --clients 60000
# the cluster model against numbers worked out by hand: rates 1000 samples/s, 10 clients of 1,000
# samples per round, the test set in 40 batches of 256: P = 1: FedAvg 10 + 10.24 s, FLCE + 10 s
# of prototypes, FedSV + 1,024 evaluations of 1,000 samples; P = 10: one client (1 s), 4 of the
# 40 test batches (1.024 s), 10 broadcasts over 4 hops of 50 us + 1.1 MB / 1.25 GB/s (0.0372 s)
# and the test counts' 4 hops (0.0002 s)
"$bench" cluster --train-rate 1000 --eval-rate 1000 > "$t/cl" || fail "flce-bench cluster"
grep -q '^ *1 *20\.24 *30\.24 *1044\.2 ' "$t/cl" || fail "cluster model, P = 1: $(grep '^ *1 ' "$t/cl")"
grep -q '^ *10 *2\.06 *3\.06 ' "$t/cl" || fail "cluster model, P = 10: $(grep '^ *10 ' "$t/cl")"
expect 2 "--measure 99" cluster --train-rate 1 --eval-rate 1 --measure 99
# the truth model by hand (K = 4, T = 20, 1,000 samples, 300 and 2,000 samples/s): 10 clients on one
# process: sum_k C(10,k) min(4,k) = 3852 client trainings of 1000/300 s x 20, plus 1023 coalitions x
# 20 test passes of 10000/2000 s: 359,100 s = 99.75 h; on 1,024 processes the largest coalition alone,
# 20 (4000/300 + 5) s = 0.10 h
"$bench" cluster --truth --per-round 4 --train-rate 300 --eval-rate 2000 > "$t/ct" || fail "flce-bench cluster --truth"
[ "$(awk '$1 == 10 { print $2 " " $7 }' "$t/ct")" = "99.75 0.10" ] || fail "truth model, 10 clients: $(grep '^ *10 ' "$t/ct")"
expect 2 "--truth-rounds" cluster --train-rate 1 --eval-rate 1 --truth-rounds 5
echo "cli_bench: all checks passed"
