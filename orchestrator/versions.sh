#!/bin/sh
# Writes the versions of the libraries this build was made against as a C
# header (recorded in every run's provenance). Usage: versions.sh CUDA_HOME
# SPDX-License-Identifier: MIT
cuda=${1:-/usr/local/cuda}
v() { printf '#define %s "%s"\n' "$1" "$(printf '%s' "$2" | tr -d '"\\\n')"; }
v BUILD_CC "$(${CC:-cc} --version 2>/dev/null | head -n 1)"
v BUILD_OPENBLAS "$(pkg-config --modversion openblas 2>/dev/null)"
v BUILD_GLOO "$(dpkg-query -W -f='${Version}' libgloo-dev 2>/dev/null)"
v BUILD_CUDA "$("$cuda/bin/nvcc" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
v BUILD_NCCL "$(sed -n 's/^#define NCCL_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\).*/\2/p' "$cuda/include/nccl.h" 2>/dev/null | paste -sd. -)"
