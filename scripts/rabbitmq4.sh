#!/usr/bin/env bash
# RabbitMQ 4.0.5 beside the machine's own RabbitMQ, on loopback only.
#
# Debian 13 ("trixie") packages RabbitMQ 4.0.5 with Erlang 27. This script builds a minimal Debian 13 root with
# debootstrap once (about 70 s, 370 MB), keeps it outside the repository, and runs the node inside it with chroot
# on 127.0.0.1:$RABBITMQ4_PORT. The node shares the machine's epmd with any other local node, so its node name
# differs from theirs.
#
#   scripts/rabbitmq4.sh start    build the root if it is missing or broken, start the node unless it is already
#                                 up, wait until it accepts AMQP connections (prints the log tail on failure)
#   scripts/rabbitmq4.sh stop     stop the node if this script started it, then release the root's mounts
#   scripts/rabbitmq4.sh status   say whether the node runs and who started it
#   scripts/rabbitmq4.sh ctl ARGS run rabbitmqctl ARGS inside the root against the node (e.g. list_queues)
#   scripts/rabbitmq4.sh uri      print the AMQP URI of the node
#
# A throwaway cluster of N nodes (rabbit4-c1@localhost ... on ports RABBITMQ4_CLUSTER_PORT, +1, ...), beside the
# single node, in the same root; each start wipes the nodes' data, so every cluster starts empty:
#   scripts/rabbitmq4.sh cluster-start [N]   start N nodes (default 3), join them to the first, wait for them
#   scripts/rabbitmq4.sh cluster-stop        stop every cluster node and delete its data
#   scripts/rabbitmq4.sh cluster-kill I      kill node I (1-based) with SIGKILL, as a crash would
#   scripts/rabbitmq4.sh cluster-revive I    start a killed node I again; it rejoins the cluster
#   scripts/rabbitmq4.sh cluster-ctl I ARGS  run rabbitmqctl ARGS against node I
#   scripts/rabbitmq4.sh cluster-uris        print the nodes' AMQP URIs, comma-separated
#
# Settings (environment):
#   RABBITMQ4_ROOT       where the root lives           (default /var/lib/harbinger/rabbitmq-4.0-root)
#   RABBITMQ4_PORT       AMQP port on 127.0.0.1          (default 5674)
#   RABBITMQ4_DIST_PORT  Erlang distribution port        (default 20000 + RABBITMQ4_PORT)
#   RABBITMQ4_NODENAME   node name                       (default rabbit4@localhost)
#   RABBITMQ4_MIRROR     Debian mirror for debootstrap   (default the mirror apt uses, else deb.debian.org)
#   RABBITMQ4_CLUSTER_PORT  AMQP port of cluster node 1  (default 5691; node I listens on 5690 + I, its Erlang
#                           distribution on 20000 + that port: 25691 ...; clear of compose-smoke's 5682 and 25682)
#
# The node refuses RabbitMQ 4's deprecated features (transient non-exclusive queues, global QoS, classic queue
# mirroring, RAM nodes) instead of warning about them, so anything that still uses one fails visibly.
#
# Needs root (debootstrap, mount, chroot) and the Debian package debootstrap (installed on demand with apt-get).
set -euo pipefail

ROOT="${RABBITMQ4_ROOT:-/var/lib/harbinger/rabbitmq-4.0-root}"
PORT="${RABBITMQ4_PORT:-5674}"
DIST_PORT="${RABBITMQ4_DIST_PORT:-$((20000 + PORT))}"
NODENAME="${RABBITMQ4_NODENAME:-rabbit4@localhost}"
STAMP="$ROOT/.harbinger-root-complete"
STARTED_BY_US="$ROOT/.harbinger-started-node"
LOG_DIR="/var/log/rabbitmq"
EXPECTED_VERSION_PREFIX="4.0."
CLUSTER_PORT="${RABBITMQ4_CLUSTER_PORT:-5691}"
CLUSTER_NODES="$ROOT/.harbinger-cluster-nodes"
CONFIG_FILE=""

log() { printf '[rabbitmq4] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

check_port() {
  [[ "$PORT" =~ ^[0-9]+$ ]] && ((PORT >= 1 && PORT <= 65535)) \
    || die "RABBITMQ4_PORT must be a TCP port in [1, 65535]: '$PORT'"
  [[ "$DIST_PORT" =~ ^[0-9]+$ ]] && ((DIST_PORT >= 1 && DIST_PORT <= 65535)) \
    || die "RABBITMQ4_DIST_PORT must be a TCP port in [1, 65535]: '$DIST_PORT' (set it when RABBITMQ4_PORT is above 45535)"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# shellcheck source=lib/debian-mirror.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/debian-mirror.sh"

root_intact() {
  [[ -f "$STAMP" && -x "$ROOT/usr/sbin/rabbitmq-server" && -x "$ROOT/usr/sbin/rabbitmqctl" ]]
}

build_root() {
  if root_intact; then
    return
  fi
  [[ $(id -u) -eq 0 ]] || die "building the root needs root (debootstrap, chroot); run as root or set RABBITMQ4_ROOT to a built root"
  if ! command -v debootstrap >/dev/null; then
    log "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null
  fi
  release_mounts
  local tmp="$ROOT.partial"
  rm -rf "$tmp"
  mkdir -p "$(dirname "$ROOT")"
  local m
  m=$(debian_mirror "${RABBITMQ4_MIRROR:-}")
  log "building a Debian 13 root with rabbitmq-server in $ROOT from $m (about 70 s, once)"
  if ! debootstrap --variant=minbase --include=rabbitmq-server trixie "$tmp" "$m" >"$tmp.log" 2>&1; then
    tail -n 30 "$tmp.log" >&2
    die "debootstrap failed (full log: $tmp.log)"
  fi
  rm -f "$tmp.log"
  rm -rf "$ROOT"
  mv "$tmp" "$ROOT"
  touch "$STAMP"
}

# The root's rabbitmq user gets a user and group id that no account of the machine has, so the node (which the
# package's scripts run as that user) cannot touch another account's processes or files.
OWN_ID=64674
own_ids() {
  local uid gid
  uid=$(chroot "$ROOT" id -u rabbitmq)
  gid=$(chroot "$ROOT" id -g rabbitmq)
  [[ "$uid" == "$OWN_ID" && "$gid" == "$OWN_ID" ]] && return
  if pgrep -u "$uid" beam.smp >/dev/null; then
    log "a node still runs as the root's rabbitmq user ($uid): its id is changed at a later start"
    return
  fi
  if getent passwd "$OWN_ID" >/dev/null || getent group "$OWN_ID" >/dev/null; then
    die "id $OWN_ID is taken on this machine; edit OWN_ID in $0"
  fi
  log "giving the root's rabbitmq user its own id $OWN_ID (was $uid:$gid)"
  chroot "$ROOT" groupmod -g "$OWN_ID" rabbitmq
  chroot "$ROOT" usermod -u "$OWN_ID" -g "$OWN_ID" rabbitmq
  chroot "$ROOT" find / -xdev \( -uid "$uid" -o -gid "$gid" \) -exec chown -h "$OWN_ID:$OWN_ID" {} +
}

# The node refuses the features RabbitMQ 4 deprecates instead of logging a warning, so that a test or benchmark
# that still uses one fails on this node rather than passing with a warning nobody reads.
write_config() {
  mkdir -p "$ROOT/etc/rabbitmq"
  cat >"$ROOT/etc/rabbitmq/rabbitmq.conf" <<'CONF'
# Written by scripts/rabbitmq4.sh: deprecated features are refused, not merely warned about.
deprecated_features.permit.transient_nonexcl_queues = false
deprecated_features.permit.global_qos = false
deprecated_features.permit.classic_queue_mirroring = false
deprecated_features.permit.ram_node_type = false
CONF
  # Cluster nodes keep RabbitMQ's defaults (deprecated features warn): on 4.0.5 a node that denies them fails its
  # start checks while it joins a cluster.
  cat >"$ROOT/etc/rabbitmq/cluster.conf" <<'CONF'
# Written by scripts/rabbitmq4.sh for the throwaway cluster's nodes.
CONF
}

mount_root() {
  mountpoint -q "$ROOT/proc" || mount -t proc proc "$ROOT/proc"
  mountpoint -q "$ROOT/dev" || mount --bind /dev "$ROOT/dev"
  cp /etc/hosts "$ROOT/etc/hosts"
}

release_mounts() {
  local m
  for m in "$ROOT/dev" "$ROOT/proc"; do
    if mountpoint -q "$m" 2>/dev/null; then
      umount "$m" 2>/dev/null || umount -l "$m"
    fi
  done
}

in_root() {
  chroot "$ROOT" /usr/bin/env -i \
    PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/var/lib/rabbitmq \
    LANG=C.UTF-8 \
    RABBITMQ_NODENAME="$NODENAME" \
    RABBITMQ_NODE_PORT="$PORT" \
    RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 \
    RABBITMQ_DIST_PORT="$DIST_PORT" \
    ERL_EPMD_ADDRESS=127.0.0.1 \
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}" \
    ${CONFIG_FILE:+RABBITMQ_CONFIG_FILE="$CONFIG_FILE"} \
    "$@"
}

node_running() {
  mountpoint -q "$ROOT/proc" 2>/dev/null || return 1
  in_root rabbitmqctl -q -n "$NODENAME" ping >/dev/null 2>&1
}

log_tail() {
  local f="$ROOT$LOG_DIR/$NODENAME.log"
  [[ -f "$f" ]] || return 0
  log "--- last lines of $f"
  tail -n 40 "$f" >&2
}

cmd_start() {
  check_port
  if port_open "$PORT" && ! { root_intact && node_running; }; then
    die "127.0.0.1:$PORT is taken by something other than $NODENAME; free it or set RABBITMQ4_PORT"
  fi
  build_root
  write_config
  mount_root
  if node_running; then
    log "$NODENAME is already running on 127.0.0.1:$PORT (left as it is)"
  else
    own_ids
    log "starting $NODENAME on 127.0.0.1:$PORT"
    in_root rabbitmq-server -detached
    touch "$STARTED_BY_US"
  fi
  # rabbitmq-server -detached returns before the node registers with epmd, and await_startup gives up at once on a
  # node it cannot reach: wait for the node to answer first.
  local deadline=$((SECONDS + 120))
  until node_running; do
    if ((SECONDS >= deadline)); then
      log_tail
      die "$NODENAME did not come up within 120 s"
    fi
    sleep 1
  done
  if ! in_root timeout $((deadline - SECONDS + 5)) rabbitmqctl -q -n "$NODENAME" await_startup >/dev/null 2>&1; then
    log_tail
    die "$NODENAME did not finish starting within 120 s"
  fi
  local i
  for i in $(seq 1 60); do
    if port_open "$PORT"; then
      local version
      version=$(in_root rabbitmqctl -q -n "$NODENAME" version 2>/dev/null || echo unknown)
      [[ "$version" == "$EXPECTED_VERSION_PREFIX"* ]] \
        || log "warning: $NODENAME reports version $version, expected $EXPECTED_VERSION_PREFIX*"
      log "RabbitMQ $version is up on 127.0.0.1:$PORT ($NODENAME)"
      return
    fi
    sleep 1
  done
  log_tail
  die "$NODENAME runs but 127.0.0.1:$PORT does not accept connections"
}

cmd_stop() {
  if ! root_intact; then
    log "no root at $ROOT: nothing to stop"
    return
  fi
  if [[ ! -f "$STARTED_BY_US" ]]; then
    log "$NODENAME was not started by this script: left running"
    return
  fi
  if node_running; then
    log "stopping $NODENAME"
    in_root rabbitmqctl -q -n "$NODENAME" stop >/dev/null 2>&1 || log "rabbitmqctl stop failed"
  fi
  rm -f "$STARTED_BY_US"
  release_mounts_if_idle
  log "stopped"
}

# The root's /proc and /dev stay mounted while any node, the single one or a cluster node, runs in it.
release_mounts_if_idle() {
  if [[ -s "$CLUSTER_NODES" ]]; then
    log "cluster nodes still run in the root: mounts kept"
    return
  fi
  if node_running; then
    log "$NODENAME still runs in the root: mounts kept"
    return
  fi
  release_mounts
  log "mounts released"
}

cmd_status() {
  if ! root_intact; then
    echo "no root at $ROOT"
    return 1
  fi
  if node_running; then
    local who="started elsewhere"
    [[ -f "$STARTED_BY_US" ]] && who="started by this script"
    echo "$NODENAME running on 127.0.0.1:$PORT ($who)"
  else
    echo "$NODENAME not running"
    return 1
  fi
}

cmd_ctl() {
  root_intact || die "no root at $ROOT: run '$0 start' first"
  mountpoint -q "$ROOT/proc" || die "$NODENAME is not running: run '$0 start' first"
  in_root rabbitmqctl -n "$NODENAME" "$@"
}

# Makes node I of the cluster the one in_root and node_running talk to.
select_cluster_node() {
  local i="$1"
  [[ "$i" =~ ^[1-9][0-9]?$ ]] || die "a cluster node number must be in [1, 99]: '$i'"
  NODENAME="rabbit4-c$i@localhost"
  CONFIG_FILE=/etc/rabbitmq/cluster.conf
  PORT=$((CLUSTER_PORT + i - 1))
  DIST_PORT=$((20000 + PORT))
  check_port
}

wait_node() {
  local deadline=$((SECONDS + 120))
  until node_running; do
    if ((SECONDS >= deadline)); then
      log_tail
      die "$NODENAME did not come up within 120 s"
    fi
    sleep 1
  done
  in_root timeout 120 rabbitmqctl -q -n "$NODENAME" await_startup >/dev/null 2>&1 \
    || { log_tail; die "$NODENAME did not finish starting"; }
}

# RabbitMQ 4 names its node at run time, so the node's VM is found by the RABBITMQ_NODENAME it was started with.
node_pid() {
  local pid
  for pid in $(pgrep beam.smp); do
    if tr '\0' '\n' 2>/dev/null <"/proc/$pid/environ" | grep -qx "RABBITMQ_NODENAME=$NODENAME"; then
      echo "$pid"
      return
    fi
  done
}

cmd_cluster_start() {
  local n="${1:-3}"
  [[ "$n" =~ ^[1-9]$ ]] || die "a cluster has 1 to 9 nodes: '$n'"
  if [[ -s "$CLUSTER_NODES" ]]; then
    local i alive=()
    for i in $(sort -u "$CLUSTER_NODES"); do
      select_cluster_node "$i"
      [[ -n "$(node_pid)" ]] && alive+=("$i")
    done
    if ((${#alive[@]} > 0)); then
      die "a cluster is already running (nodes ${alive[*]}); run '$0 cluster-stop' first"
    fi
    log "clearing the record of a cluster whose nodes no longer run (an interrupted run)"
    cmd_cluster_stop
  fi
  build_root
  write_config
  mount_root
  own_ids
  local i
  for i in $(seq 1 "$n"); do
    select_cluster_node "$i"
    if port_open "$PORT"; then
      die "127.0.0.1:$PORT is taken; set RABBITMQ4_CLUSTER_PORT to a free range"
    fi
    rm -rf "$ROOT/var/lib/rabbitmq/mnesia/$NODENAME" "$ROOT/var/lib/rabbitmq/mnesia/$NODENAME-"*
    echo "$i" >>"$CLUSTER_NODES"
    log "starting cluster node $NODENAME on 127.0.0.1:$PORT"
    in_root rabbitmq-server -detached
  done
  for i in $(seq 1 "$n"); do
    select_cluster_node "$i"
    wait_node
  done
  local first="rabbit4-c1@localhost"
  for i in $(seq 2 "$n"); do
    select_cluster_node "$i"
    in_root rabbitmqctl -q -n "$NODENAME" stop_app >/dev/null
    in_root rabbitmqctl -q -n "$NODENAME" join_cluster "$first" >/dev/null \
      || { log_tail; die "$NODENAME could not join $first"; }
    # A node that joins while the cluster is still settling can fail its start checks once; try again.
    in_root rabbitmqctl -q -n "$NODENAME" start_app >/dev/null 2>&1 \
      || { sleep 3; in_root rabbitmqctl -q -n "$NODENAME" start_app >/dev/null; } \
      || { log_tail; die "$NODENAME did not start after joining $first"; }
    in_root timeout 120 rabbitmqctl -q -n "$NODENAME" await_startup >/dev/null
  done
  select_cluster_node 1
  local running
  running=$(in_root rabbitmqctl -q -n "$NODENAME" eval 'length(rabbit_nodes:list_running()).' 2>/dev/null || echo 0)
  [[ "$running" == "$n" ]] || die "the cluster runs $running of $n nodes"
  log "a cluster of $n RabbitMQ 4.0 nodes runs: $(cmd_cluster_uris)"
}

cmd_cluster_stop() {
  if [[ ! -s "$CLUSTER_NODES" ]]; then
    log "no cluster runs"
    return
  fi
  local i pid
  for i in $(sort -u "$CLUSTER_NODES"); do
    select_cluster_node "$i"
    if node_running; then
      in_root rabbitmqctl -q -n "$NODENAME" stop >/dev/null 2>&1 || true
    fi
    pid=$(node_pid)
    [[ -n "$pid" ]] && kill -9 "$pid" 2>/dev/null || true
    rm -rf "$ROOT/var/lib/rabbitmq/mnesia/$NODENAME" "$ROOT/var/lib/rabbitmq/mnesia/$NODENAME-"*
    log "stopped $NODENAME and deleted its data"
  done
  rm -f "$CLUSTER_NODES"
  CONFIG_FILE=""
  NODENAME="${RABBITMQ4_NODENAME:-rabbit4@localhost}"
  PORT="${RABBITMQ4_PORT:-5674}"
  DIST_PORT="${RABBITMQ4_DIST_PORT:-$((20000 + PORT))}"
  release_mounts_if_idle
}

cmd_cluster_kill() {
  select_cluster_node "${1:-}"
  local pid
  pid=$(node_pid)
  [[ -n "$pid" ]] || die "$NODENAME is not running"
  kill -9 "$pid"
  log "killed $NODENAME (pid $pid) with SIGKILL"
}

cmd_cluster_revive() {
  select_cluster_node "${1:-}"
  grep -qx "${1}" "$CLUSTER_NODES" 2>/dev/null || die "$NODENAME is not a node of the running cluster"
  node_running && die "$NODENAME is running"
  log "starting $NODENAME again"
  in_root rabbitmq-server -detached
  wait_node
}

cmd_cluster_uris() {
  local i uris=()
  for i in $(sort -u "$CLUSTER_NODES" 2>/dev/null); do
    uris+=("amqp://guest:guest@127.0.0.1:$((CLUSTER_PORT + i - 1))/%2F")
  done
  (IFS=,; echo "${uris[*]}")
}

case "${1:-}" in
  cluster-start) shift; cmd_cluster_start "$@" ;;
  cluster-stop) cmd_cluster_stop ;;
  cluster-kill) shift; cmd_cluster_kill "$@" ;;
  cluster-revive) shift; cmd_cluster_revive "$@" ;;
  cluster-ctl) shift; select_cluster_node "${1:-}"; shift; cmd_ctl "$@" ;;
  cluster-uris) cmd_cluster_uris ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  ctl) shift; cmd_ctl "$@" ;;
  uri) check_port; echo "amqp://guest:guest@127.0.0.1:$PORT/%2F" ;;
  *)
    sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
