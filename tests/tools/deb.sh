#!/bin/bash
# deb.sh [OUT]: `make deb`. Builds campaign's Debian packages with Debian's own tooling
# (dpkg-buildpackage, debhelper: debian/) in a copy of the tree under OUT (default
# build/deb), so that the tree stays as it is, and leaves campaign_<version>_<arch>.deb
# (and campaign-dbgsym, and campaign-gpu where built) in OUT. The version is the one
# `bin/campaign --version` prints, which debian/changelog must carry too. With
# HAVE_CUDA=yes (the Makefile's: nvcc and nccl.h under CUDA_HOME) the build profile
# pkg.campaign.cuda builds campaign-gpu as well; DEB_JOBS (default: every CPU) is make's -j.
# Only the tree's tracked files go in (with their contents as they are now): an untracked
# file (a campaign of one's own, notes, a key) never reaches the package; they are named.
# deb.sh --list prints the files it would take, one per line, and builds nothing.
# SPDX-License-Identifier: MIT
set -eu
cd "$(dirname "$0")/../.."
tree_files() { # NUL-separated: tracked files that exist (a deleted one is left out)
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -z | while IFS= read -r -d '' f; do
			[ -e "$f" ] && printf '%s\0' "$f"
		done
	else
		find . -path ./build -prune -o -path ./bin -prune -o -path ./results -prune -o \
			-path ./.git -prune -o -type f -printf '%P\0'
	fi
}
if [ "${1:-}" = --list ]; then
	tree_files | tr '\0' '\n'
	exit 0
fi
out=${1:-build/deb}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(bin/campaign --version | awk '{ print $2 }')
logged=$(dpkg-parsechangelog -l debian/changelog -S Version)
if [ "$version" != "$logged" ]; then
	echo "make deb: campaign --version says $version but debian/changelog $logged:" \
		"add an entry for $version (dch -v $version)" >&2
	exit 1
fi
src=$out/campaign-$version
rm -rf "$src"
rm -f "$out"/campaign*_"$version"_*.deb "$out"/campaign_"$version"_*.buildinfo \
	"$out"/campaign_"$version"_*.changes
mkdir -p "$src"
# the tracked files as they are now (never build/, bin/, results/, nor an untracked file)
tree_files | tar -c --null -T - -f - | tar -x -C "$src" -f -
untracked=$(git ls-files -o --exclude-standard 2>/dev/null | wc -l)
[ "$untracked" -eq 0 ] ||
	echo "make deb: $untracked untracked file(s) left out of the package (git add them to package them)" >&2
profiles=()
[ "${HAVE_CUDA:-}" = yes ] && profiles=(-Ppkg.campaign.cuda)
echo "make deb: building campaign $version${profiles:+ with campaign-gpu} in $src (log: $out/build.log)"
if ! (cd "$src" && dpkg-buildpackage -b -us -uc -j"${DEB_JOBS:-$(nproc)}" "${profiles[@]}") \
	>"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	echo "make deb: dpkg-buildpackage failed (the whole log: $out/build.log)" >&2
	exit 1
fi
rm -rf "$src"
ls "$out"/*_"$version"_*.deb
