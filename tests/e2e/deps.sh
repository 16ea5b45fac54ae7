# A fresh machine's suite (issue 34, point 5): `make check` installs the SLURM packages
# itself, once, before any lane starts; test clusters started side by side on a machine
# without them install once between them instead of racing for dpkg's lock; as root, a
# test cluster that cannot start is a failure with its reason, not a skip. A machine without
# the packages is simulated with stubs of dpkg-query and apt-get (tests/tools/deps.sh takes
# them from DPKG_QUERY and APT_GET): the stub apt-get records its calls and "installs" into
# a list the stub dpkg-query reads.
# SPDX-License-Identifier: MIT
source "$(dirname "$0")/../lib.sh"
cd "$SCRATCH"
if [ "$(id -u)" != 0 ]; then
	skip deps_slurm_installed "make check installs SLURM's daemons only as root (the test cluster needs root)"
	exit 0
fi
SLURM="slurmctld slurmd slurm-client munge"
mkdir stub
cat >stub/dpkg-query <<'S'
#!/bin/bash
# -W -f='${Package} ${Status}\n' PACKAGE...: a line for each installed one
printf '%s\n' "$@" | grep -v '^-' | grep -Fx -f "$STUB_STATE/installed" | sed 's/$/ install ok installed/'
exit 0
S
cat >stub/apt-get <<'S'
#!/bin/bash
echo "$*" >>"$STUB_STATE/calls"
case " $* " in
*" install "*)
	[ -n "${STUB_FAIL:-}" ] && { echo "E: stub apt-get fails" >&2; exit 100; }
	sleep "${STUB_SLOW:-0}"
	for a in "$@"; do case "$a" in -* | install | DPkg*) ;; *) echo "$a" >>"$STUB_STATE/installed" ;; esac; done
	;;
esac
S
chmod +x stub/*
export DPKG_QUERY=$SCRATCH/stub/dpkg-query APT_GET=$SCRATCH/stub/apt-get CAMPAIGN_DEPS_LOCK=$SCRATCH/deps.lock
# state NAME: a machine with every package make deps lists (and the packaging test's
# tools), none of SLURM's daemons
make -s -C "$ROOT" -pn deps 2>/dev/null | sed -n 's/^\(DEB_PACKAGES\|PACKAGING_TEST_PACKAGES\) := //p' |
	tr ' ' '\n' | grep . >listed
echo libslurm-dev >>listed
state() {
	export STUB_STATE=$SCRATCH/$1
	mkdir -p "$STUB_STATE"
	cp listed "$STUB_STATE/installed"
	: >"$STUB_STATE/calls"
}

state fresh
make -s -C "$ROOT" check-deps >cd.out 2>&1; rc=$?
check deps_check_installs_slurm [ "$rc" -eq 0 ]
check deps_check_says_what [ "$(cat cd.out)" = "make deps: installing $SLURM" ]
check deps_check_one_install_call [ "$(grep -c ' install ' fresh/calls)" = 1 ]
check deps_check_install_line grep -q -- "--no-install-recommends $SLURM\$" fresh/calls
make -s -C "$ROOT" check-deps >cd2.out 2>&1
check deps_check_then_present [ "$(cat cd2.out)" = "make deps: all Debian packages present" ]
check deps_check_no_second_call [ "$(grep -c ' install ' fresh/calls)" = 1 ]
state tools # without the packaging test's tools (issue 37): make check installs them too
grep -vxE "debhelper|dpkg-dev|lintian|lmod" tools/installed >tools/i && mv tools/i tools/installed
make -s -C "$ROOT" check-deps >ct.out 2>&1
check deps_check_installs_packaging_tools [ "$(cat ct.out)" = "make deps: installing debhelper dpkg-dev lintian lmod $SLURM" ]
state demo # make deps (make demo's) does not ask for SLURM's daemons
make -s -C "$ROOT" deps >d.out 2>&1
check deps_demo_no_slurm_daemons [ "$(cat d.out)" = "make deps: all Debian packages present" ]
check deps_demo_no_apt_call [ ! -s demo/calls ]

# three lanes' clusters starting side by side on a machine without the packages: one install
state lanes
for i in 1 2 3; do
	STUB_SLOW=1 "$ROOT/tests/tools/deps.sh" start-cluster $SLURM libslurm-dev >lane$i.out 2>&1 &
	eval "p$i=\$!"
done
rcs=""
for p in "$p1" "$p2" "$p3"; do wait "$p"; rcs="$rcs$?"; done
check deps_lanes_all_succeed [ "$rcs" = 000 ]
check deps_lanes_install_once [ "$(grep -c ' install ' lanes/calls)" = 1 ]
check deps_lanes_others_waited [ "$(cat lane*.out | grep -c 'all Debian packages present')" = 2 ]

# as root, a cluster that cannot start (here: its packages cannot be installed) fails the script
state broken
STUB_FAIL=1 bash -c 'source "$1/tests/lib.sh"; slurm_cluster deps_probe /tmp/campaign-slurm-deps 17027 18200' _ "$ROOT" >sc.out 2>&1; rc=$?
check deps_cluster_failure_exit1 [ "$rc" -eq 1 ]
check deps_cluster_failure_is_fail grep -q "^FAIL deps_probe_cluster: cannot start the test cluster: .*cannot install the SLURM packages" sc.out
check deps_cluster_failure_not_skip bash -c '! grep -q "^SKIP" sc.out'
check deps_cluster_failure_no_daemon [ ! -e /tmp/campaign-slurm-deps-17027/pids ]
