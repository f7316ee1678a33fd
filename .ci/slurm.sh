#!/usr/bin/env bash
# A one-node SLURM cluster on this machine, for the SLURM tests (tests/workflow/test_slurm.py)
# and for trying profiles/slurm by hand. Debian's SLURM 22.05 (munge, slurmctld, slurmd,
# slurm-client), no systemd needed; idempotent (a running cluster is left as it is).
#
#   .ci/slurm.sh               install and start the cluster without accounting (squeue only)
#   .ci/slurm.sh --accounting  also MariaDB + slurmdbd, so that `sacct` works
#   .ci/slurm.sh --stop        stop slurmd, slurmctld and slurmdbd (munged and MariaDB keep running)
#
# Where it cannot run (not root, no apt-get, the install fails, a daemon does not come up) it
# prints "skipping: <reason>" and exits 0: the SLURM tests then skip with that reason.
# docs/cluster.md explains the configuration.
set -uo pipefail

ACCOUNTING=0
ACTION=start
for arg in "$@"; do
    case "$arg" in
        --accounting) ACCOUNTING=1 ;;
        --stop) ACTION=stop ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) echo "unknown argument: $arg (use --accounting, --stop or --help)" >&2; exit 2 ;;
    esac
done

CONF=/etc/slurm/slurm.conf
LOGDIR=/var/log/slurm
PARTITION=main
skip() { echo "skipping: $*"; exit 0; }
log() { echo "[slurm.sh] $*"; }

stop_daemon() {  # stop_daemon NAME PIDFILE: only the daemon whose pid file this script's config names
    local name=$1 pidfile=$2 pid
    pid=$(cat "$pidfile" 2>/dev/null)
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        log "stopping $name (pid $pid)"
        kill "$pid"
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    fi
    rm -f "$pidfile"
}

if [ "$ACTION" = stop ]; then
    [ "$(id -u)" = 0 ] || skip "not root (stopping the daemons needs root)"
    stop_daemon slurmd /run/slurmd.pid
    stop_daemon slurmctld /run/slurmctld.pid
    stop_daemon slurmdbd /run/slurmdbd.pid
    exit 0
fi

cluster_up() {  # the controller answers and the node takes jobs
    command -v sinfo >/dev/null 2>&1 || return 1
    scontrol ping 2>/dev/null | grep -q "is UP" || return 1
    sinfo -h -N -o "%t" 2>/dev/null | grep -Eq "^(idle|mix|alloc)"
}

accounting_up() {
    sacct -n -X -S now-1minutes >/dev/null 2>&1
}

how_to_check() {
    cat <<EOF
SLURM is up: one node ($(hostname -s), $(sinfo -h -N -o "%c CPUs, %m MB")), partition '$PARTITION', \
accounting $( [ "$(scontrol show config | awk '/^AccountingStorageType/ {print $3}')" = accounting_storage/slurmdbd ] && echo "on (sacct works)" || echo "off (use squeue)").
Check it with:
  sinfo                       # the node, state idle
  srun -n1 hostname           # runs a job step
  sbatch --wrap 'sleep 1'; squeue --states=all   # a batch job, visible for MinJobAge=300 s after it ends
  scontrol show config | grep -E 'MinJobAge|AccountingStorageType'
Logs: $LOGDIR/slurmctld.log, $LOGDIR/slurmd.log. Stop: .ci/slurm.sh --stop
EOF
}

HOST=$(hostname -s)
CPUS=$(nproc)
MEM_MB=$(( $(awk '/^MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024 ))
if [ "$ACCOUNTING" = 1 ]; then
    ACCOUNTING_LINES="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
JobAcctGatherType=jobacct_gather/linux"
else
    ACCOUNTING_LINES="AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none"
fi
NEW_CONF=$(cat <<EOF
# written by xaipipe's .ci/slurm.sh: one node, no cgroups, no systemd
ClusterName=xaipipe
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=$LOGDIR/slurmctld.log
SlurmdLogFile=$LOGDIR/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
# finished jobs stay visible to squeue for 5 min: longer than the executor plugin waits
# between two status checks (at most 180 s), see docs/cluster.md
MinJobAge=300
# the node's declared CPUs/memory are taken as given (no drain on a mismatch)
SlurmdParameters=config_overrides
$ACCOUNTING_LINES
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=$PARTITION Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
)

if cluster_up && [ "$(cat "$CONF" 2>/dev/null)" = "$NEW_CONF" ] && { [ "$ACCOUNTING" = 0 ] || accounting_up; }; then
    log "already running"
    how_to_check
    exit 0
fi

[ "$(id -u)" = 0 ] || skip "not root (installing and starting SLURM needs root)"
command -v apt-get >/dev/null 2>&1 || skip "no apt-get (SLURM is installed from Debian's packages)"

PACKAGES=(munge slurmctld slurmd slurm-client)
[ "$ACCOUNTING" = 1 ] && PACKAGES+=(mariadb-server slurmdbd)
missing=()
for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/slurm-apt.log 2>&1; then
        apt-get update -q >>/tmp/slurm-apt.log 2>&1
        apt-get install -y -q --no-install-recommends "${missing[@]}" >>/tmp/slurm-apt.log 2>&1 \
            || skip "apt-get install ${missing[*]} failed (log: /tmp/slurm-apt.log)"
    fi
fi

# munge: Debian's package creates /etc/munge/munge.key; munged runs as user munge.
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    [ -s /etc/munge/munge.key ] || { /usr/sbin/mungekey --create 2>/dev/null || skip "no munge key"; }
    chown munge:munge /etc/munge/munge.key && chmod 600 /etc/munge/munge.key
    install -d -o munge -g munge -m 0755 /run/munge
    install -d -o munge -g munge -m 0700 /var/lib/munge /var/log/munge
    runuser -u munge -- /usr/sbin/munged --force || skip "munged did not start"
    for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.2; done
    munge -n | unmunge >/dev/null 2>&1 || skip "munge does not answer"
fi

install -d -o slurm -g slurm /var/lib/slurm/slurmctld /var/lib/slurm/slurmd "$LOGDIR"

if [ "$ACCOUNTING" = 1 ]; then
    # MariaDB for slurmdbd (socket authentication for root; slurmdbd connects as user slurm)
    if ! mysqladmin ping >/dev/null 2>&1; then
        install -d -o mysql -g mysql /run/mysqld
        [ -d /var/lib/mysql/mysql ] || mariadb-install-db --user=mysql >/dev/null 2>&1
        (cd / && runuser -u mysql -- /usr/sbin/mariadbd --user=mysql >/var/log/mariadb-slurm.log 2>&1 &)
        for _ in $(seq 100); do mysqladmin ping >/dev/null 2>&1 && break; sleep 0.2; done
        mysqladmin ping >/dev/null 2>&1 || skip "MariaDB did not start (log: /var/log/mariadb-slurm.log)"
    fi
    mysql -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db;
              CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'slurmdbd';
              GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost'; FLUSH PRIVILEGES;" \
        || skip "could not create the accounting database"
    cat >/etc/slurm/slurmdbd.conf <<EOF
# written by xaipipe's .ci/slurm.sh
AuthType=auth/munge
DbdHost=localhost
SlurmUser=slurm
PidFile=/run/slurmdbd.pid
LogFile=$LOGDIR/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=slurm
StoragePass=slurmdbd
StorageLoc=slurm_acct_db
EOF
    chown slurm:slurm /etc/slurm/slurmdbd.conf && chmod 600 /etc/slurm/slurmdbd.conf
fi

if [ "$(cat "$CONF" 2>/dev/null)" != "$NEW_CONF" ]; then
    log "writing $CONF"
    printf '%s\n' "$NEW_CONF" >"$CONF"
    stop_daemon slurmd /run/slurmd.pid
    stop_daemon slurmctld /run/slurmctld.pid
fi

if [ "$ACCOUNTING" = 1 ] && ! { [ -s /run/slurmdbd.pid ] && kill -0 "$(cat /run/slurmdbd.pid)" 2>/dev/null; }; then
    log "starting slurmdbd"
    /usr/sbin/slurmdbd || skip "slurmdbd did not start (log: $LOGDIR/slurmdbd.log)"
    for _ in $(seq 100); do sacctmgr -n list cluster >/dev/null 2>&1 && break; sleep 0.2; done
    sacctmgr -i add cluster xaipipe >/dev/null 2>&1 || true
fi
if ! { [ -s /run/slurmctld.pid ] && kill -0 "$(cat /run/slurmctld.pid)" 2>/dev/null; }; then
    log "starting slurmctld"
    /usr/sbin/slurmctld || skip "slurmctld did not start (log: $LOGDIR/slurmctld.log)"
fi
if ! { [ -s /run/slurmd.pid ] && kill -0 "$(cat /run/slurmd.pid)" 2>/dev/null; }; then
    log "starting slurmd"
    /usr/sbin/slurmd || skip "slurmd did not start (log: $LOGDIR/slurmd.log)"
fi
for _ in $(seq 150); do cluster_up && break; sleep 0.2; done
cluster_up || skip "the node did not come up: $(sinfo -h -N -o '%t %E' 2>&1) (logs in $LOGDIR)"
scontrol update nodename="$HOST" state=resume >/dev/null 2>&1 || true
if [ "$ACCOUNTING" = 1 ]; then
    for _ in $(seq 50); do accounting_up && break; sleep 0.2; done
    accounting_up || skip "sacct does not answer (log: $LOGDIR/slurmdbd.log)"
fi
how_to_check
