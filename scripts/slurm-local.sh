#!/usr/bin/env bash
# A real one-node Slurm cluster on this machine, for tests of the Slurm launcher.
#
#   scripts/slurm-local.sh start          # install (root) if needed, start, wait for the node
#   scripts/slurm-local.sh status
#   scripts/slurm-local.sh stop [--clean] # --clean also removes the whole directory
#
# Everything (slurm.conf, munge key and socket, state, spool, logs, pid files) lives under
# one directory, ${SLURM_LOCAL_DIR:-/tmp/rafle-slurm}, so the system's /etc/slurm and munge
# setup are never read or changed; clients find the cluster through SLURM_CONF only.
# There is no systemd on our machines, so the daemons run in the foreground (-D / -F) as
# background processes of their own session, and we keep their process ids ourselves:
# `stop` signals exactly those, never processes found by name.
#
# Environment:
#   SLURM_LOCAL_DIR           the directory (default /tmp/rafle-slurm)
#   SLURM_LOCAL_CTLD_PORT     slurmctld port (default: first free from 6817)
#   SLURM_LOCAL_SLURMD_PORT   slurmd port    (default: first free from 6818)
#   SLURM_LOCAL_TIMEOUT       seconds to wait for the node to become idle (default 60)
#   SLURM_LOCAL_CPUS          CPUs the node offers (default: the machine's); more than the
#                             machine has runs more jobs side by side than it has cores, as a
#                             test of jobs running beside each other may want
set -euo pipefail

DIR=${SLURM_LOCAL_DIR:-/tmp/rafle-slurm}
CONF=$DIR/slurm.conf
RUN=$DIR/run            # our pid files: the only processes `stop` will ever signal
LOG=$DIR/log
MUNGE_DIR=$DIR/munge
MUNGE_SOCKET=$MUNGE_DIR/munge.socket
MUNGE_KEY=$MUNGE_DIR/munge.key
TIMEOUT=${SLURM_LOCAL_TIMEOUT:-60}
DAEMONS=(munged slurmctld slurmd)
# Daemons live in /usr/sbin, which a non-root PATH may lack.
export PATH=$PATH:/usr/sbin:/sbin

say() { echo "slurm-local: $*"; }
die() { echo "slurm-local: error: $*" >&2; exit 1; }

usage() {
    echo "usage: $0 start|stop [--clean]|status" >&2
    exit 2
}

ensure_installed() {
    local missing=()
    local cmd
    for cmd in munged slurmctld slurmd sinfo squeue sbatch scontrol; do
        command -v "$cmd" >/dev/null 2>&1 || missing+=("$cmd")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" != 0 ]; then
        die "missing ${missing[*]}; install them as root:
  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y slurm-wlm munge"
    fi
    say "installing slurm-wlm and munge (missing: ${missing[*]})"
    apt-get update -qq || die "apt-get update failed"
    # The packages' maintainer scripts try to start services; with no init system that
    # only prints warnings, and our daemons do not use the system's configuration anyway.
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null \
        || die "apt-get install slurm-wlm munge failed"
    for cmd in "${missing[@]}"; do
        command -v "$cmd" >/dev/null 2>&1 || die "$cmd still missing after installing slurm-wlm and munge"
    done
}

# --- process bookkeeping ---------------------------------------------------------------

# The pid recorded for daemon $1 if that process still runs that program. Checking the
# program name guards against a recycled pid after a reboot or a crash of the daemon.
live_pid() {
    local name=$1 file=$RUN/$1.pid pid exe
    [ -s "$file" ] || return 1
    pid=$(<"$file")
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    [ -d "/proc/$pid" ] || return 1
    exe=$(tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | head -n1) || return 1
    [ "$(basename -- "$exe")" = "$name" ] || return 1
    echo "$pid"
}

running_count() {
    local n=0 d
    for d in "${DAEMONS[@]}"; do
        live_pid "$d" >/dev/null && n=$((n + 1))
    done
    echo "$n"
}

# Start "$@" as daemon $name: a session of its own so a Ctrl-C or the end of the caller's
# shell does not reach it, every descriptor redirected so it holds no caller's pipe open.
# setsid does not fork here (a background job of a script is no process-group leader),
# so $! is the daemon itself.
spawn() {
    local name=$1
    shift
    local pid i
    setsid "$@" </dev/null >>"$LOG/$name.out" 2>&1 &
    pid=$!
    echo "$pid" >"$RUN/$name.pid"
    # Until setsid has exec'd, the pid still runs "setsid" and live_pid would call the
    # daemon dead.
    for ((i = 0; i < 50; i++)); do
        live_pid "$name" >/dev/null && return 0
        [ -d "/proc/$pid" ] || return 0
        sleep 0.1
    done
}

stop_daemon() {
    local name=$1 pid i
    if ! pid=$(live_pid "$name"); then
        rm -f "$RUN/$name.pid"
        return 0
    fi
    if ! kill -TERM "$pid" 2>/dev/null && [ -d "/proc/$pid" ]; then
        die "cannot signal $name (pid $pid): run stop as root, who started it"
    fi
    for ((i = 0; i < 100; i++)); do
        [ -d "/proc/$pid" ] || break
        sleep 0.1
    done
    if [ -d "/proc/$pid" ]; then
        say "$name (pid $pid) ignored SIGTERM for 10 s; sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        for ((i = 0; i < 50; i++)); do
            [ -d "/proc/$pid" ] || break
            sleep 0.1
        done
    fi
    [ -d "/proc/$pid" ] && die "$name (pid $pid) is still alive after SIGKILL"
    rm -f "$RUN/$name.pid"
    say "stopped $name (pid $pid)"
}

# --- configuration ---------------------------------------------------------------------

port_in_use() {
    # /proc/net/tcp* needs no extra tool; state 0A is LISTEN, the port is hex after ':'.
    local hex
    hex=$(printf '%04X' "$1")
    cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
        awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 } END { exit !f }'
}

pick_port() {
    local want=$1 default=$2 avoid=$3 p
    if [ -n "$want" ]; then
        [[ $want =~ ^[0-9]+$ ]] || die "port '$want' is not a number"
        port_in_use "$want" && die "port $want is already in use"
        echo "$want"
        return
    fi
    for ((p = default; p < default + 100; p++)); do
        [ "$p" = "$avoid" ] && continue
        port_in_use "$p" || { echo "$p"; return; }
    done
    die "no free port in $default..$((default + 99))"
}

write_config() {
    local host cpus mem_kb mem_mb ctld_port slurmd_port overrides=""
    host=$(hostname -s)
    cpus=${SLURM_LOCAL_CPUS:-$(nproc)}
    [[ $cpus =~ ^[1-9][0-9]*$ ]] || die "SLURM_LOCAL_CPUS '$cpus' is not a positive number"
    # slurmd drains a node that declares more CPUs than it finds, unless told to trust the
    # configuration.
    [ "$cpus" -le "$(nproc)" ] || overrides="SlurmdParameters=config_overrides"
    mem_kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
    # slurmd drains a node whose measured memory is below RealMemory; leave a margin
    # (5 %, at least 512 MiB) so rounding and kernel reservations never trigger that.
    mem_mb=$((mem_kb / 1024))
    mem_mb=$((mem_mb - (mem_mb / 20 > 512 ? mem_mb / 20 : 512)))
    [ "$mem_mb" -gt 0 ] || die "cannot derive RealMemory from /proc/meminfo"
    ctld_port=$(pick_port "${SLURM_LOCAL_CTLD_PORT:-}" 6817 "")
    slurmd_port=$(pick_port "${SLURM_LOCAL_SLURMD_PORT:-}" 6818 "$ctld_port")
    [ "$ctld_port" != "$slurmd_port" ] || die "slurmctld and slurmd ports must differ"

    # Addresses are pinned to 127.0.0.1 so the cluster works whatever the host name
    # resolves to; the names stay the short host name because slurmd finds its NodeName
    # by it.
    cat >"$CONF" <<EOF
# Generated by scripts/slurm-local.sh; rewritten on every start.
ClusterName=rafle-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/slurmd
SlurmctldPidFile=$DIR/run/slurmctld.daemon.pid
SlurmdPidFile=$DIR/run/slurmd.daemon.pid
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdLogFile=$LOG/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MailProg=/bin/true
$overrides
NodeName=$host NodeAddr=127.0.0.1 NodeHostname=$host CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

make_munge_key() {
    [ -s "$MUNGE_KEY" ] && return 0
    if command -v mungekey >/dev/null 2>&1; then
        mungekey --create --keyfile="$MUNGE_KEY" || die "mungekey could not create $MUNGE_KEY"
    else
        dd if=/dev/urandom of="$MUNGE_KEY" bs=1024 count=1 status=none
    fi
    # munged refuses a key that others can read.
    chmod 0400 "$MUNGE_KEY"
}

# --- commands --------------------------------------------------------------------------

# The slurm daemons write their log file and, in the foreground, the same lines to
# stderr (NAME.out), which alone holds what went wrong before the log file was opened.
show_log_tails() {
    local d f
    for d in "${DAEMONS[@]}"; do
        f=$LOG/$d.log
        [ -s "$f" ] || f=$LOG/$d.out
        [ -s "$f" ] || continue
        echo "----- tail of $f" >&2
        tail -n 15 "$f" >&2
    done
    echo "----- all logs are in $LOG" >&2
}

fail_start() {
    echo "slurm-local: error: $*" >&2
    show_log_tails
    echo "slurm-local: stopping what was started" >&2
    do_stop >&2 || true
    exit 1
}

# Waits for daemon $1 to be alive $2 tenths of a second later; fails with the logs if not.
expect_alive() {
    local name=$1 i
    for ((i = 0; i < $2; i++)); do
        sleep 0.1
    done
    live_pid "$name" >/dev/null || fail_start "$name exited right after starting"
}

do_start() {
    local n t0 state i d
    n=$(running_count)
    if [ "$n" = "${#DAEMONS[@]}" ]; then
        say "already running (all daemons alive)"
        echo "export SLURM_CONF=$CONF"
        return 0
    fi
    ensure_installed
    [ "$(id -u)" = 0 ] || die "start must run as root (slurmd runs jobs as their users)"
    if [ "$n" != 0 ]; then
        say "only $n of ${#DAEMONS[@]} daemons alive; restarting all of them"
        do_stop
    fi
    t0=$SECONDS

    mkdir -p "$DIR" "$RUN" "$LOG" "$MUNGE_DIR" "$DIR/state" "$DIR/spool/slurmd"
    # munged rejects key, socket and log directories that group or others can write.
    chmod 0755 "$DIR"
    # The munge socket directory must also be traversable by every client, and pid files
    # and logs readable so that `status` and failing tests of any user can show them.
    chmod 0755 "$RUN" "$LOG" "$MUNGE_DIR"
    chmod 0700 "$DIR/state"
    # The munge socket path must fit in sun_path (108 bytes).
    [ ${#MUNGE_SOCKET} -lt 100 ] || die "SLURM_LOCAL_DIR is too long for a unix socket path"
    make_munge_key
    write_config
    export SLURM_CONF=$CONF

    # A socket left by an earlier munged would make the wait below pass too early.
    rm -f "$MUNGE_SOCKET"
    # In the foreground munged logs to stderr, so to munged.out, not to a --log-file; its
    # default seed file is under /var/lib/munge, hence --seed-file.
    spawn munged munged --foreground --socket="$MUNGE_SOCKET" --key-file="$MUNGE_KEY" \
        --pid-file="$MUNGE_DIR/munged.pid" --seed-file="$MUNGE_DIR/munged.seed"
    for ((i = 0; i < 50; i++)); do
        [ -S "$MUNGE_SOCKET" ] && break
        live_pid munged >/dev/null || fail_start "munged exited right after starting"
        sleep 0.1
    done
    [ -S "$MUNGE_SOCKET" ] || fail_start "munged did not create $MUNGE_SOCKET within 5 s"
    munge --socket="$MUNGE_SOCKET" -n </dev/null | unmunge --socket="$MUNGE_SOCKET" >/dev/null 2>&1 \
        || fail_start "munge credentials do not round-trip through $MUNGE_SOCKET"

    # -i: a state from an earlier run that cannot be read must not keep slurmctld down.
    spawn slurmctld slurmctld -D -i
    expect_alive slurmctld 10
    spawn slurmd slurmd -D
    expect_alive slurmd 10

    while :; do
        for d in "${DAEMONS[@]}"; do
            live_pid "$d" >/dev/null || fail_start "$d died while waiting for the node"
        done
        state=$(sinfo -h -N -o '%T' 2>/dev/null | head -n1 || true)
        case $state in
        idle | mixed | allocated) break ;;
        esac
        [ $((SECONDS - t0)) -lt "$TIMEOUT" ] ||
            fail_start "node not idle after ${TIMEOUT} s (sinfo state: '${state:-no answer}')"
        sleep 0.5
    done
    say "started in $((SECONDS - t0)) s; node $(hostname -s) is $state"
    say "pids: munged $(live_pid munged), slurmctld $(live_pid slurmctld), slurmd $(live_pid slurmd)"
    say "to use it:"
    echo "export SLURM_CONF=$CONF"
}

do_stop() {
    local clean=${1:-} i
    [ "$(running_count)" != 0 ] || say "no daemon of $DIR running"
    if live_pid slurmctld >/dev/null && live_pid slurmd >/dev/null; then
        # Jobs run under slurmstepd processes that slurmd does not take down with it;
        # cancelling them through our own controller ends only this cluster's jobs.
        if SLURM_CONF=$CONF squeue -h -o %i 2>/dev/null | grep -q .; then
            say "cancelling this cluster's jobs"
            SLURM_CONF=$CONF scancel --quiet --partition=debug 2>/dev/null || true
            for ((i = 0; i < 100; i++)); do
                SLURM_CONF=$CONF squeue -h -o %i 2>/dev/null | grep -q . || break
                sleep 0.1
            done
        fi
    fi
    # Reverse order of start: slurmd reports to slurmctld, both need munged.
    stop_daemon slurmd
    stop_daemon slurmctld
    stop_daemon munged
    if [ "$clean" = --clean ]; then
        # Guard against a mistaken SLURM_LOCAL_DIR before removing a tree.
        [ -f "$CONF" ] || [ -d "$RUN" ] || [ ! -e "$DIR" ] ||
            die "$DIR has neither slurm.conf nor run/; not removing it"
        rm -rf -- "$DIR"
        say "removed $DIR"
    fi
}

do_status() {
    local d pid n
    n=$(running_count)
    for d in "${DAEMONS[@]}"; do
        if pid=$(live_pid "$d"); then
            say "$d running (pid $pid)"
        else
            say "$d not running"
        fi
    done
    if [ "$n" = 0 ]; then
        say "not running"
        return 1
    fi
    if [ "$n" != "${#DAEMONS[@]}" ]; then
        say "partly running; run '$0 stop' then '$0 start'"
    fi
    export SLURM_CONF=$CONF
    echo "export SLURM_CONF=$CONF"
    sinfo || true
    squeue || true
    [ "$n" = "${#DAEMONS[@]}" ]
}

case ${1:-} in
start)
    [ $# -eq 1 ] || usage
    do_start
    ;;
stop)
    case ${2:-} in '' | --clean) ;; *) usage ;; esac
    [ $# -le 2 ] || usage
    do_stop "${2:-}"
    ;;
status)
    [ $# -eq 1 ] || usage
    do_status
    ;;
*) usage ;;
esac
