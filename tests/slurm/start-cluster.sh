#!/bin/bash
# Starts a real SLURM test cluster on this host: a private munged, slurmctld,
# and 4 slurmd (n1..n4, each in its own UTS namespace so that jobs see
# distinct host names). Installs the Debian packages if missing. Records the
# PIDs it starts (stop-cluster.sh stops only those). Its last line is
#   export SLURM_CONF=PATH
# so that  eval "$(tests/slurm/start-cluster.sh | tail -n 1)"  works.
#
# Environment: CAMPAIGN_SLURM_DIR (default /tmp/campaign-slurm), MIN_JOB_AGE
# (seconds a finished job stays visible, default 300), SLURM_CTLD_PORT (16817),
# SLURM_NODE_PORT0 (17000: nodes use +1..+4).
# SPDX-License-Identifier: MIT
set -euo pipefail
D=${CAMPAIGN_SLURM_DIR:-/tmp/campaign-slurm}
MIN_JOB_AGE=${MIN_JOB_AGE:-300}
CTLD_PORT=${SLURM_CTLD_PORT:-16817}
PORT0=${SLURM_NODE_PORT0:-17000}
AUTH_EXTRA=${SLURM_CRED_EXPIRE:+,cred_expire=$SLURM_CRED_EXPIRE}
SCHED_EXTRA=${SLURM_SCHED_INTERVAL:+,sched_interval=$SLURM_SCHED_INTERVAL}
NODES=4
here=$(cd "$(dirname "$0")" && pwd)

say() { echo "start-cluster: $*" >&2; }
die() { say "$*"; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (slurmd runs jobs as their users; munged as munge)"
# Missing packages: installed once, one caller at a time (make check installs them before its
# lanes start; clusters started side by side wait for each other instead of racing for dpkg).
"$here/../tools/deps.sh" start-cluster slurmctld slurmd slurm-client munge libslurm-dev >&2 ||
	die "cannot install the SLURM packages (apt-get failed; see above)"
for c in munged slurmctld slurmd sinfo unshare setpriv; do
	command -v "$c" >/dev/null || die "$c not found"
done

# A cluster of ours still running: stop it first.
[ -f "$D/pids" ] && "$here/stop-cluster.sh" >/dev/null 2>&1 || true
rm -rf "$D"
mkdir -p "$D"/{etc,state,log,run,jobcomp} "$D"/munge/{run,lib,log}
for n in $(seq 1 $NODES); do mkdir -p "$D/spool/n$n" "$D/tmp/n$n"; done
: >"$D/pids"

# munge: a key and socket of our own.
dd if=/dev/urandom of="$D/munge/munge.key" bs=1024 count=1 status=none
chown -R munge:munge "$D/munge"
chmod 700 "$D/munge/lib" "$D/munge/log"
chmod 400 "$D/munge/munge.key"
chmod 711 "$D/munge" "$D/munge/run"
SOCK=$D/munge/run/munge.socket.2
setpriv --reuid=munge --regid=munge --init-groups munged -F -f --socket="$SOCK" \
	--key-file="$D/munge/munge.key" --pid-file="$D/munge/run/munged.pid" \
	--log-file="$D/munge/log/munged.log" --seed-file="$D/munge/lib/munged.seed" \
	>"$D/log/munged.out" 2>&1 &
echo "munged $!" >>"$D/pids"
for i in $(seq 1 50); do [ -S "$SOCK" ] && break; sleep 0.1; done
[ -S "$SOCK" ] || die "munged did not start: $(tail -n 3 "$D/log/munged.out" "$D/munge/log/munged.log" 2>/dev/null)"

# slurm.conf: the CPU layout of this host for every node.
layout=$(slurmd -C | head -n 1 | tr ' ' '\n' | grep -E '^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=' | tr '\n' ' ')
CONF=$D/etc/slurm.conf
# Job ids of their own per cluster (its controller port's last three digits x 10): the test
# clusters run side by side on this one machine, and a job's rendezvous port derives from its
# id (campaign launch's job_port), so equal ids in two clusters would meet on one port.
FIRST_JOB_ID=$(((CTLD_PORT % 1000) * 10 + 1))
cat >"$CONF" <<CONF
ClusterName=campaigntest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$SOCK$AUTH_EXTRA
CryptoType=crypto/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd-%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$D/jobcomp/jobcomp.txt
SchedulerParameters=batch_sched_delay=0$SCHED_EXTRA
SlurmdTimeout=${SLURMD_TIMEOUT:-300}
MinJobAge=$MIN_JOB_AGE
FirstJobId=$FIRST_JOB_ID
KillWait=5
TmpFS=$D/tmp/%n
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
NodeName=n[1-$NODES] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[$((PORT0 + 1))-$((PORT0 + NODES))] $layout State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
PartitionName=other Nodes=ALL MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$CONF

slurmctld -D -f "$CONF" >"$D/log/slurmctld.out" 2>&1 &
echo "slurmctld $!" >>"$D/pids"
for n in $(seq 1 $NODES); do
	unshare --uts sh -c "hostname n$n && exec slurmd -D -f '$CONF' -N n$n" >"$D/log/slurmd-n$n.out" 2>&1 &
	echo "slurmd-n$n $!" >>"$D/pids"
done

# Wait until every node is idle.
for i in $(seq 1 300); do
	states=$(sinfo -h -N -p debug -o %t 2>/dev/null | sort | uniq -c | tr -s ' ')
	[ "$states" = " $NODES idle" ] && break
	sleep 0.1
done
[ "$states" = " $NODES idle" ] || die "nodes not idle after 30 s (sinfo: ${states:-no answer}); logs in $D/log"
say "$NODES nodes idle; logs in $D/log; stop with tests/slurm/stop-cluster.sh"
echo "export SLURM_CONF=$CONF"
