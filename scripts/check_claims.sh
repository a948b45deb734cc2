#!/bin/sh
# check_claims.sh CLAIMS_CSV: checks that every verdict of a report's claims table follows from its
# numbers by the rule written under the table (flce report writes claims.csv beside report.md):
#   a comparison with an interval (n >= 2) holds when direction x difference - half_width > 0,
#   fails when direction x difference + half_width < 0, and is inconclusive otherwise;
#   a claim holds when all its comparisons hold, does not hold when one fails, and is
#   inconclusive otherwise (the server-cost claim may be inconclusive where a run did not record
#   its completion's time); every line of a claim gives the same claim verdict. A ratio against a
#   threshold (no direction) is checked against the threshold in its name.
# Prints each line that breaks the rule; exit 0 when none does, 1 when one does, 2 on bad usage.
set -u
[ $# = 1 ] || { echo "usage: scripts/check_claims.sh CLAIMS_CSV" >&2; exit 2; }
[ -r "$1" ] || { echo "check_claims.sh: cannot read $1" >&2; exit 2; }
# (reports since 2026-12-06 add the power columns sd,detectable_difference,seeds_to_decide after
# claim_verdict; tests/tquant.py checks those)
head -1 "$1" | grep -qxE 'claim,configuration,comparison,difference,direction,half_width,n,comparison_verdict,claim_verdict(,sd,detectable_difference,seeds_to_decide)?' ||
  { echo "check_claims.sh: $1: not a claims.csv (header: $(head -1 "$1" | cut -c 1-120))" >&2; exit 2; }
# quoted fields hold no '"': split at it; $2 claim, $4 configuration, $6 comparison, $7 the numbers
awk -F'"' 'NR > 1 {
    split($7, f, ","); d = f[2]; dir = f[3]; half = f[4]; n = f[5]; cv = f[6]; k = $2 SUBSEP $4; comps++
    if (dir != "" && half != "" && n >= 2) {
      x = dir * d; want = x - half > 0 ? "holds" : x + half < 0 ? "fails" : "inconclusive"
    } else if (dir != "") want = "inconclusive"
    else if ($6 ~ /at most/) { split($6, w, "at most "); want = d <= w[2] + 0 ? "holds" : "fails" }
    else if ($6 ~ /at least/) { split($6, w, "at least "); want = d >= w[2] + 0 ? "holds" : "fails" }
    else want = cv
    if (want != cv) { print "line " NR ": " $6 " (" $2 ", " $4 "): " cv ", its numbers give " want; bad++ }
    if ((k in claim) && claim[k] != f[7]) { print "line " NR ": " $2 " (" $4 "): claim verdict " f[7] ", an earlier line of the claim says " claim[k]; bad++ }
    claim[k] = f[7]; nf[k] += cv == "fails"; ni[k] += cv == "inconclusive"; name[k] = $2 " (" $4 ")" }
  END {
    for (k in claim) {
      nc++; want = nf[k] ? "does not hold" : ni[k] ? "inconclusive" : "holds"
      if (claim[k] != want && !(claim[k] == "inconclusive" && name[k] ~ /server cost/)) {
        print "claim " name[k] ": " claim[k] ", its comparisons give " want; bad++ }
    }
    if (bad) exit 1
    printf "claims.csv: %d comparisons of %d claims; every verdict follows from its numbers by the rule\n", comps, nc
  }' "$1"
