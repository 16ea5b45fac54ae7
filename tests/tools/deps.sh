#!/bin/bash
# deps.sh WHO PACKAGE...: installs with apt-get (--no-install-recommends) those of
# the Debian packages that are not installed, in one call; prints
# "WHO: installing P..." or "WHO: all Debian packages present". One caller at a
# time on this machine (flock on $CAMPAIGN_DEPS_LOCK, default
# /tmp/campaign-deps.lock), and the package query repeated under the lock, so
# that callers started side by side (the test lanes' clusters) install once and
# never lose dpkg's lock to each other; apt-get itself waits up to 5 minutes for
# a lock held by anyone else (DPkg::Lock::Timeout). Exits 1 naming what could
# not be installed. DPKG_QUERY and APT_GET name the commands (tests stub them);
# as non-root, apt-get runs under sudo.
# SPDX-License-Identifier: MIT
set -u
who=$1
shift
DPKG_QUERY=${DPKG_QUERY:-dpkg-query}
APT_GET=${APT_GET:-apt-get}
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
# missing PACKAGE...: those not installed, from one query (dpkg-query reads its whole database
# each time it starts: a query a package cost seconds)
missing() {
	local p out="" installed
	installed=$'\n'$("$DPKG_QUERY" -W -f='${Package} ${Status}\n' "$@" 2>/dev/null |
		sed -n 's/ [a-z]* ok installed$//p')$'\n'
	for p in "$@"; do
		[[ $installed == *$'\n'"$p"$'\n'* ]] || out="$out $p"
	done
	echo "$out"
}
need=$(missing "$@")
if [ -z "$need" ]; then
	echo "$who: all Debian packages present"
	exit 0
fi
exec 9>"${CAMPAIGN_DEPS_LOCK:-/tmp/campaign-deps.lock}"
flock 9
need=$(missing "$@") # another caller may have installed them while this one waited
if [ -z "$need" ]; then
	echo "$who: all Debian packages present"
	exit 0
fi
echo "$who: installing$need"
# shellcheck disable=SC2086
if ! { $sudo "$APT_GET" -o DPkg::Lock::Timeout=300 update -qq &&
	$sudo env DEBIAN_FRONTEND=noninteractive "$APT_GET" -o DPkg::Lock::Timeout=300 install -y \
		-qq --no-install-recommends $need >/dev/null; }; then
	echo "$who: cannot install$need (apt-get failed; see its messages above)" >&2
	exit 1
fi
