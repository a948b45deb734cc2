#!/bin/sh
# truth_pack.sh pack|unpack [STUDY_DIR] [ARCHIVE]: carry the ground-truth study (issue 63:
# scripts/presets/run.sh truth small STUDY_DIR) from one session to the next through git.
# pack: of every truth folder in STUDY_DIR (default runs/truth) its truth.json, utilities.csv and
# values.csv (the rows of the coalitions finished: `flce truth --resume` trains the rest; a
# coalition under way is not carried and trains again from its start), and of every method run
# that finished (digests.txt) its files without the checkpoint and resume state
# (model.safetensors, state.bin, trace/), into ARCHIVE (default
# docs/results/fmnist-truth/runs.tar.xz). unpack: the archive back into STUDY_DIR, never over a
# truth whose utilities.csv there holds more rows, nor over a finished run.
set -eu
[ $# -ge 1 ] && [ $# -le 3 ] || { echo "usage: scripts/truth_pack.sh pack|unpack [STUDY_DIR] [ARCHIVE] (got $# arguments)" >&2; exit 2; }
cd "$(dirname "$0")/.."
what=$1; study=${2:-runs/truth}; arch=${3:-docs/results/fmnist-truth/runs.tar.xz}
case "$what" in
  pack)
    [ -d "$study" ] || { echo "truth_pack.sh: $study: no such folder" >&2; exit 2; }
    list=$(mktemp); trap 'rm -f "$list"' EXIT
    (cd "$study" && for d in */; do
      d=${d%/}
      if [ -f "$d/truth.json" ]; then
        for f in truth.json utilities.csv values.csv; do [ -f "$d/$f" ] && echo "$d/$f"; done
      elif [ -f "$d/summary.csv" ]; then # a finished run of several methods
        echo "$d/summary.csv"
        for m in "$d"/*/; do
          [ -f "$m/digests.txt" ] || continue
          find "$m" -maxdepth 1 -type f ! -name model.safetensors ! -name state.bin
        done
      fi
    done) | sed 's|//|/|g' | sort > "$list"
    n=$(wc -l < "$list")
    [ "$n" -gt 0 ] || { echo "truth_pack.sh: nothing finished in $study yet" >&2; exit 1; }
    mkdir -p "$(dirname "$arch")"
    tar -C "$study" -cJf "$arch.tmp" -T "$list"
    mv "$arch.tmp" "$arch"
    echo "truth_pack.sh: $n files of $study into $arch ($(du -h "$arch" | cut -f1))" ;;
  unpack)
    [ -f "$arch" ] || { echo "truth_pack.sh: $arch: no such archive" >&2; exit 2; }
    mkdir -p "$study"
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    tar -C "$tmp" -xJf "$arch"
    for d in "$tmp"/*/; do
      name=$(basename "$d")
      if [ -f "$d/truth.json" ]; then
        have=0; [ -f "$study/$name/utilities.csv" ] && have=$(wc -l < "$study/$name/utilities.csv")
        got=0; [ -f "$d/utilities.csv" ] && got=$(wc -l < "$d/utilities.csv")
        if [ "$got" -gt "$have" ]; then mkdir -p "$study/$name" && cp "$d"/* "$study/$name/"; echo "$name: $got lines"; fi
      elif [ ! -f "$study/$name/summary.csv" ]; then
        mkdir -p "$study/$name" && cp -R "$d"/. "$study/$name/"; echo "$name: finished runs"
      fi
    done ;;
  *) echo "usage: scripts/truth_pack.sh pack|unpack [STUDY_DIR] [ARCHIVE]" >&2; exit 2 ;;
esac
