#!/bin/sh
# fmnist_raw.sh DEST: Fashion-MNIST's four IDX files decompressed into DEST, where they are missing
# or older than Debian's (a test fixture, tests/CMakeLists.txt). Every test then reads them there
# (FLCE_FMNIST_DIR=DEST): the same bytes as the .gz files (cli_data checks it) without inflating 30 MB
# in each of the suites' thousand processes.
set -eu
src=/usr/share/datasets/fashion-mnist
dest=$1
[ -d "$src" ] || { echo "FAIL: no Fashion-MNIST in $src (the package dataset-fashion-mnist; scripts/setup.sh installs it)"; exit 1; }
mkdir -p "$dest"
for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
  if [ -f "$dest/$f" ] && ! [ "$src/$f.gz" -nt "$dest/$f" ]; then continue; fi
  tmp="$dest/.$f.$$"
  gzip -dc "$src/$f.gz" > "$tmp" || { rm -f "$tmp"; echo "FAIL: $src/$f.gz: cannot decompress into $dest"; exit 1; }
  mv "$tmp" "$dest/$f"
done
echo "fmnist_raw: $dest"
