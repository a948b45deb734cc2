#!/bin/sh
# study_pack.sh pack|unpack [STUDY_DIR] [ARCHIVE]: carry the finished runs of a long study from one
# machine (or session) to the next through git. The study (scripts/presets/run.sh all small
# runs/study) takes hours; what a finished run leaves that the report and flce eval read is
# small. pack: every finished run folder of STUDY_DIR (default runs/study) into
# docs/results/fmnist-small/runs.tar.xz, without checkpoints and resume state
# (model.safetensors, state.bin), and of a folder of several methods not finished yet, the
# methods that are (with state.bin, so that the preset's --resume takes them as done; not where
# state.bin is over 4 MB); FLCE's trace (prototypes.npy, selected.npy) kept only for the
# normal experiment's runs, which the completion sensitivity section evaluates again, and for the
# strategic-clients studies (ARCHIVE under docs/results/fmnist-attacks: what the attackers uploaded).
# unpack: the archive back into STUDY_DIR; the presets then skip what is there ("done
# already") and run the rest. A method run already in STUDY_DIR is replaced only by one further
# on (finished, or more rounds): unpacking into a folder whose runs went on never sets them back.
set -eu
[ $# -le 3 ] || { echo "usage: scripts/study_pack.sh pack|unpack [STUDY_DIR] [ARCHIVE] (got $# arguments)" >&2; exit 2; }
cd "$(dirname "$0")/.."
what=${1:-}; study=${2:-runs/study}
arch=${3:-docs/results/fmnist-small/runs.tar.xz}
# the readings experiment and the horizon (ARCHIVE under docs/results/fmnist-readings): no
# prototypes of finished runs are carried (scripts/readings_eval.sh has evaluated every reading
# of them into RUN/readings/ first; rerunning a run makes them again, bit for bit); a method run
# cut short is carried whole, with its state.bin and trace, so that the preset's --resume
# continues it from its last round instead of round 0 (the horizon's runs of 200 rounds are
# longer than a session): not where its files exceed 40 MB
case "$arch" in *fmnist-readings*) readings=1;; *) readings=0;; esac
# the study under the released code (ARCHIVE under docs/results/fmnist-released): the same, its
# evaluation-side departures evaluated first (scripts/released_eval.sh into RUN/released/)
case "$arch" in *fmnist-released*) released=1;; *) released=0;; esac
case "$what" in
  pack)
    [ -d "$study" ] || { echo "study_pack.sh: $study: no such folder" >&2; exit 2; }
    if [ $readings = 1 ]; then ./scripts/readings_eval.sh "$study"/*/; fi # before the prototypes are left out
    if [ $released = 1 ]; then ./scripts/released_eval.sh "$study"/*/; fi
    list=$(mktemp); trap 'rm -f "$list"' EXIT
    cut_short=0
    for d in "$study"/*/; do
      d=${d%/}; name=$(basename "$d")
      case "$name" in fmnist-noniid-s*|fmnist-iid-s*) keep_trace=1;; *) keep_trace=0;; esac
      [ $readings = 1 ] || [ $released = 1 ] && keep_trace=0
      case "$arch" in *fmnist-attacks*) keep_trace=1;; esac # the strategic clients' studies: FLCE's uploads (the run's reading only), to recompute from
      forge_only=0 # the strategic clients' forge arms past the pilot: FLCE alone, finished (PLAN.md's amendment)
      case "$arch:$name" in *fmnist-attacks*:fmnist-attack-forge-*-s40[4-9]|*fmnist-attacks*:fmnist-attack-forge-*-s410)
        [ -f "$d/flce/digests.txt" ] && forge_only=1;; esac
      if [ $forge_only = 1 ]; then parts=$d/flce; keep_state=0
      elif [ -f "$d/summary.csv" ] || [ -f "$d/digests.txt" ]; then parts=$d; keep_state=0
      else # a folder of several methods, unfinished: its finished methods, with the state.bin
           # that lets --resume take them as done (a run cut short is not carried)
        # (not those whose state.bin is large, Ditto's and MOON's with a model per client: they
        # are run again rather than carried through git)
        parts=$(for m in "$d"/*/; do [ -f "$m/digests.txt" ] && [ "$(wc -c < "$m/state.bin" 2>/dev/null || echo 0)" -le 4000000 ] &&
          echo "${m%/}"; done; true); keep_state=1
        keep_trace=1 # --resume of the folder checks a finished method's trace against its state.bin
        if [ $readings = 1 ] || [ $released = 1 ]; then # and the method cut short (a folder of one method: the folder itself)
          for m in "$d" "$d"/*/; do
            m=${m%/}
            [ -f "$m/state.bin" ] && [ -f "$m/config.json" ] && [ ! -f "$m/digests.txt" ] || continue
            [ "$(du -sk "$m" | cut -f1)" -le 40960 ] || { echo "study_pack.sh: $m: cut short, over 40 MB: not carried (run again)" >&2; continue; }
            parts="$parts $m"; cut_short=$((cut_short + 1))
          done
        fi
      fi
      for p in $parts; do
        find "$p" -type f ! -name model.safetensors ! -name '*.tmp' | while read -r f; do
          case "$f" in */state.bin) [ $keep_state = 1 ] || continue;; esac
          case "$arch:$f" in *fmnist-attacks*:*/trace/prototypes_alt.npy|*fmnist-attacks*:*/trace/prototypes_first.npy) continue;; esac
          case "$f" in */trace/prototypes.npy|*/trace/prototypes_alt.npy|*/trace/prototypes_first.npy|*/trace/selected.npy) [ $keep_trace = 1 ] || continue;; esac
          case "${f#"$study"/}" in */readings/*/Q.npy|*/readings/*/X_completed.npy|*/released/*/Q.npy|*/released/*/X_completed.npy|*.tmp) continue;; esac # (the run's own: kept)
          echo "${f#"$study"/}"
        done >> "$list"
      done
    done
    [ -s "$list" ] || { echo "study_pack.sh: no finished run in $study" >&2; exit 1; }
    mkdir -p "$(dirname "$arch")"
    tar -C "$study" -cf - -T "$list" | xz -9e > "$arch.tmp" && mv "$arch.tmp" "$arch"
    echo "packed $(cut -d/ -f1 "$list" | sort -u | wc -l) run folders ($(wc -l < "$list") files; $cut_short method runs cut short, with their state) into $arch: $(du -h "$arch" | cut -f1)";;
  unpack)
    [ -f "$arch" ] || { echo "study_pack.sh: no $arch" >&2; exit 1; }
    mkdir -p "$study"
    # into a folder of its own first; then each method run (a folder with config.json: a
    # top-level folder, or one method of a folder of several) replaces the one here only where
    # the archive's is further on (finished, or more rounds in metrics.csv). A run here that is
    # as far or further (the streams went on after the archive was packed) is kept whole: the
    # archive's older state.bin and metrics.csv once overwrote a finished run's, beside its own
    # digests.txt.
    tmp=$(mktemp -d "${study%/}/.unpack.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    xz -dc "$arch" | tar -C "$tmp" -xf -
    progress() { # finished: 1e9; else the rounds metrics.csv holds
      if [ -f "$1/digests.txt" ]; then echo 1000000000
      elif [ -f "$1/metrics.csv" ]; then echo $(($(wc -l < "$1/metrics.csv") - 1))
      else echo 0; fi
    }
    taken=0 kept=0
    take() { # take ARCHIVE_RUN HERE_RUN
      if [ -e "$2" ] && [ "$(progress "$1")" -le "$(progress "$2")" ]; then
        kept=$((kept + 1)); echo "kept $2: as far as the archive's or further"
      else rm -rf "$2" && mkdir -p "$(dirname "$2")" && mv "$1" "$2" && taken=$((taken + 1)); fi
    }
    for top in "$tmp"/*/; do
      top=${top%/}; name=${top##*/}
      if [ -f "$top/config.json" ]; then take "$top" "$study/$name"; continue; fi
      for m in "$top"/*/; do [ -d "$m" ] && take "${m%/}" "$study/$name/$(basename "$m")"; done
      for f in "$top"/*; do # summary.csv: every method of the folder is finished where it comes from
        [ -f "$f" ] && [ ! -e "$study/$name/${f##*/}" ] && mv "$f" "$study/$name/"
      done
    done
    echo "unpacked into $study: $taken method runs taken from the archive, $kept kept as they were here";;
  *) echo "usage: scripts/study_pack.sh pack|unpack [STUDY_DIR] [ARCHIVE]" >&2; exit 2;;
esac
