#!/bin/bash
# make gpu-kit: build/gpu-kit/lib, the Debian libraries that campaign's
# binaries load (CUDA's and the C library's aside), for a machine that has
# no Debian packages: the GPU machine lent to some development sessions
# (issue 27). Carry `bin` and `build/gpu-kit` there and run
# tests/gpu/on_device.sh, which links from the kit only the libraries that
# machine lacks. Needs bin/campaign-trainer-gpu (CUDA found at build time).
# SPDX-License-Identifier: MIT
set -eu
cd "$(dirname "$0")/../.."
bins="bin/campaign bin/campaign-analyze bin/campaign-monitor bin/campaign-trainer-gpu"
for b in $bins; do
	[ -x "$b" ] || { echo "gpu-kit: $b is missing (CUDA and NCCL under /usr/local/cuda build it)" >&2; exit 1; }
done
kit=build/gpu-kit
rm -rf "$kit.tmp"
mkdir -p "$kit.tmp/lib"
# every library the binaries load by path, but the C library's own and CUDA's
# (the GPU machine has newer ones of its own)
ldd $bins | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
	grep -Ev '^/usr/local/cuda/|/(libc|libm|libpthread|libdl|librt|libresolv|libutil)\.so|/ld-linux' |
	while read -r lib; do cp -L "$lib" "$kit.tmp/lib/"; done
if ldd $bins | grep -q 'not found'; then
	echo "gpu-kit: a library of the binaries is not found here:" >&2
	ldd $bins | grep 'not found' >&2
	exit 1
fi
rm -rf "$kit"
mv "$kit.tmp" "$kit"
echo "gpu-kit: $(ls "$kit/lib" | wc -l) libraries, $(du -sh "$kit" | cut -f1), in $kit; carry bin and $kit"
