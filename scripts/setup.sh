#!/bin/sh
# setup.sh: everything a fresh Debian 12 machine needs, then the build and the main job.
#   1. installs the Debian packages that are missing (seconds when all are present),
#   2. configures and builds into build/ (build/flce, build/flce-bench),
#   3. runs the project's main job on the default data (Fashion-MNIST): results in runs/main.
set -eu
[ $# -eq 0 ] || { echo "setup.sh: takes no arguments (the build folder is build/; see the README) (got $# arguments)" >&2; exit 2; }
cd "$(dirname "$0")/.."

PKGS="cmake make gcc pkg-config glslang-tools libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers
libcriterion-dev libxxhash-dev libcjson-dev zlib1g-dev libjpeg-dev gnuplot-nox dataset-fashion-mnist libopenmpi-dev openmpi-bin"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup: installing$missing"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
  echo "setup: all packages present"
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"

# The main job (scripts/main_job.sh): FLCE, FedAvg and FedSV on Fashion-MNIST, IID, 15 rounds,
# a few minutes on a 2-core machine; results and report in runs/main (a rerun replaces them).
./scripts/main_job.sh runs/main
