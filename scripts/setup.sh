#!/bin/sh
# setup.sh: everything a fresh Debian 12 machine needs, then the build and the main job.
#   1. installs the Debian packages that are missing (seconds when all are present),
#   2. configures and builds into build/ (build/flce, build/flce-bench),
#   3. runs the project's main job on the default data (Fashion-MNIST).
set -eu
cd "$(dirname "$0")/.."

PKGS="cmake make gcc pkg-config glslang-tools libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers
libcriterion-dev libxxhash-dev zlib1g-dev libjpeg-dev gnuplot-nox dataset-fashion-mnist"
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

echo "setup: main job: partition Fashion-MNIST among 50 clients (Dirichlet 0.5, seed 1)"
./build/flce data --dataset fmnist --clients 50 --dirichlet 0.5 --seed 1
