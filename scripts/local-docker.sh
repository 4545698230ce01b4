#!/usr/bin/env bash
# A Docker engine, local base images and Docker Compose for machines that reach no image registry and may route
# traffic only to loopback (the project's own machines and its CI).
#
#   scripts/local-docker.sh start      start dockerd (Debian's docker.io, installed on demand) unless a daemon
#                                      already answers: no bridge, no iptables, so containers use host networking
#   scripts/local-docker.sh stop       stop dockerd if this script started it
#   scripts/local-docker.sh status     say whether a daemon answers and who started it
#   scripts/local-docker.sh images     build the local base images unless they are there and current, print them
#   scripts/local-docker.sh compose .. run Docker Compose v2 with these arguments
#
# The local base images stand in for the official ones that compose.yaml and the image build name by default:
#   harbinger-local/debian:13      a Debian 13 minbase root made with debootstrap and `docker import`
#   harbinger-local/jre:21         Debian 13's OpenJDK 21 runtime      (for eclipse-temurin:21.0.8_9-jre-noble)
#   harbinger-local/rabbitmq:4.0   Debian 13's RabbitMQ 4.0.5          (for rabbitmq:4.0.5-management)
#   harbinger-local/redis:8.0      Debian 13's Redis 8.0.2             (for redis:8.0.2)
# Each is built from deploy/local/<name>.Dockerfile and labelled with a hash of its recipe; a changed recipe or base
# rebuilds it, otherwise `images` takes about a second. Building all of them the first time takes a few minutes and
# downloads Debian packages (about 250 MB).
#
# Compose: `docker compose` when the plugin is installed, else Debian 13's docker-compose 2.26.1 (a Go binary that
# runs on Debian 12's glibc), fetched once with apt-get inside harbinger-local/debian:13 into $LOCAL_DOCKER_DIR/tools.
# Debian 12's own docker-compose is 1.29, the end-of-life Python implementation, which lacks the `!reset` tag that
# deploy/compose.loopback.yaml uses.
#
# Settings (environment):
#   LOCAL_DOCKER_DIR     dockerd's data root, the tools and build logs   (default /var/lib/harbinger/docker)
#   LOCAL_DOCKER_MIRROR  Debian mirror for debootstrap and apt           (default the mirror apt uses)
#
# Needs root (dockerd, debootstrap). Everything it starts it can stop: `stop` ends the daemon and its containerd.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
# shellcheck source=lib/debian-mirror.sh
source "$here/lib/debian-mirror.sh"

DIR="${LOCAL_DOCKER_DIR:-/var/lib/harbinger/docker}"
DATA_ROOT="$DIR/data"
TOOLS="$DIR/tools"
PIDFILE=/var/run/harbinger-dockerd.pid
LOG="$DIR/dockerd.log"
COMPOSE_MIN=2.24

log() { printf '[local-docker] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

daemon_answers() { docker info >/dev/null 2>&1; }

started_by_us() {
  [[ -f "$PIDFILE" ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null
}

install_engine() {
  command -v dockerd >/dev/null && command -v docker >/dev/null && return
  [[ $(id -u) -eq 0 ]] || die "dockerd is not installed; as root, run: apt-get install docker.io"
  log "installing Debian's docker.io"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends docker.io >"$DIR/apt.log" 2>&1 \
    || { apt-get update -q >>"$DIR/apt.log" 2>&1 \
      && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends docker.io >>"$DIR/apt.log" 2>&1; } \
    || { tail -n 20 "$DIR/apt.log" >&2; die "installing docker.io failed (log: $DIR/apt.log)"; }
}

cmd_start() {
  mkdir -p "$DIR"
  if daemon_answers; then
    log "a Docker daemon already answers ($(docker version -f '{{.Server.Version}}' 2>/dev/null)): left as it is"
    return
  fi
  install_engine
  [[ $(id -u) -eq 0 ]] || die "starting dockerd needs root"
  log "starting dockerd (no bridge, no iptables: host networking only), data in $DATA_ROOT"
  mkdir -p "$DATA_ROOT"
  # setsid: the daemon outlives this shell and is not hit by the terminal's signals; stop ends it by its pid.
  setsid dockerd --bridge=none --iptables=false --ip6tables=false \
    --data-root "$DATA_ROOT" --pidfile "$PIDFILE" >"$LOG" 2>&1 </dev/null &
  local deadline=$((SECONDS + 60))
  until daemon_answers; do
    if ((SECONDS >= deadline)); then
      tail -n 30 "$LOG" >&2
      die "dockerd did not answer within 60 s (log: $LOG)"
    fi
    sleep 0.5
  done
  log "dockerd $(docker version -f '{{.Server.Version}}') is up (pid $(cat "$PIDFILE"))"
}

cmd_stop() {
  if ! started_by_us; then
    log "dockerd was not started by this script: left running"
    return
  fi
  local pid
  pid=$(cat "$PIDFILE")
  log "stopping dockerd (pid $pid)"
  kill -TERM "$pid"
  local deadline=$((SECONDS + 60))
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      log "dockerd did not stop within 60 s: killing it"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.5
  done
  rm -f "$PIDFILE"
  log "stopped"
}

cmd_status() {
  if ! daemon_answers; then
    echo "no Docker daemon answers"
    return 1
  fi
  local who="started elsewhere"
  started_by_us && who="started by this script, pid $(cat "$PIDFILE")"
  echo "dockerd $(docker version -f '{{.Server.Version}}') answers ($who)"
}

# The hash of a recipe and what it builds on, stored as a label so that a changed recipe rebuilds the image.
recipe_of() {
  local file="$1" base_id="$2"
  { cat "$file"; echo "$base_id"; } | sha256sum | cut -c1-16
}

image_label() {
  docker image inspect -f '{{index .Config.Labels "io.harbinger.recipe"}}' "$1" 2>/dev/null || true
}

build_debian_base() {
  local image=harbinger-local/debian:13
  local recipe
  recipe=$( { echo "debootstrap --variant=minbase trixie"; sed -n '/^build_debian_base/,/^}/p' "$0"; } \
    | sha256sum | cut -c1-16)
  if [[ "$(image_label "$image")" == "$recipe" ]]; then
    return
  fi
  [[ $(id -u) -eq 0 ]] || die "building $image needs root (debootstrap)"
  command -v debootstrap >/dev/null \
    || DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null
  local root="$DIR/debian-13-root" mirror
  mirror=$(debian_mirror "${LOCAL_DOCKER_MIRROR:-}")
  rm -rf "$root"
  log "building $image with debootstrap from $mirror (about a minute, once)"
  if ! debootstrap --variant=minbase trixie "$root" "$mirror" >"$DIR/debootstrap.log" 2>&1; then
    tail -n 30 "$DIR/debootstrap.log" >&2
    rm -rf "$root"
    die "debootstrap failed (log: $DIR/debootstrap.log)"
  fi
  # The package cache and lists are refetched by every image that installs packages.
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar --numeric-owner -C "$root" -c . \
    | docker import --change 'CMD ["bash"]' --change "LABEL io.harbinger.recipe=$recipe" - "$image" >/dev/null
  rm -rf "$root"
}

build_local_image() {
  local name="$1" tag="$2"
  local image="harbinger-local/$name:$tag" file="$repo/deploy/local/$name.Dockerfile"
  local base_id recipe
  base_id=$(docker image inspect -f '{{.Id}}' harbinger-local/debian:13)
  recipe=$(recipe_of "$file" "$base_id")
  if [[ "$(image_label "$image")" == "$recipe" ]]; then
    return
  fi
  log "building $image from deploy/local/$name.Dockerfile"
  # The classic builder: BuildKit is not needed, and --network host is how its RUN steps reach the Debian mirror.
  if ! DOCKER_BUILDKIT=0 docker build --network host --label "io.harbinger.recipe=$recipe" \
      -t "$image" -f "$file" "$repo/deploy/local" >"$DIR/build-$name.log" 2>&1; then
    tail -n 30 "$DIR/build-$name.log" >&2
    die "building $image failed (log: $DIR/build-$name.log)"
  fi
}

cmd_images() {
  daemon_answers || die "no Docker daemon answers: run '$0 start' first"
  mkdir -p "$DIR"
  build_debian_base
  build_local_image jre 21
  build_local_image rabbitmq 4.0
  build_local_image redis 8.0
  local java_version
  java_version=$(docker run --rm --network none harbinger-local/jre:21 java -version 2>&1)
  echo "harbinger-local/jre:21        ${java_version%%$'\n'*}"
  echo "harbinger-local/rabbitmq:4.0  RabbitMQ $(docker run --rm --network none --entrypoint dpkg-query harbinger-local/rabbitmq:4.0 -W -f '${Version}' rabbitmq-server)"
  echo "harbinger-local/redis:8.0     Redis $(docker run --rm --network none harbinger-local/redis:8.0 redis-server --version | grep -o 'v=[0-9.]*' | cut -c3-)"
}

version_at_least() {
  [[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" == "$2" ]]
}

compose_command() {
  local v
  if v=$(docker compose version --short 2>/dev/null) && version_at_least "${v#v}" "$COMPOSE_MIN"; then
    echo "docker compose"
    return
  fi
  local bin="$TOOLS/compose/usr/libexec/docker/cli-plugins/docker-compose"
  if [[ ! -x "$bin" ]]; then
    daemon_answers || die "no Docker daemon answers: run '$0 start' first"
    build_debian_base
    log "fetching Debian 13's docker-compose into $TOOLS/compose (once)"
    mkdir -p "$TOOLS"
    rm -rf "$TOOLS/compose"
    docker run --rm --network host -v "$TOOLS:/out" harbinger-local/debian:13 bash -c \
      'apt-get update -q >/dev/null && cd /tmp && apt-get download -q docker-compose >/dev/null \
       && dpkg-deb -x docker-compose_*.deb /out/compose' >&2 \
      || die "fetching docker-compose failed"
  fi
  v=$("$bin" version --short)
  version_at_least "${v#v}" "$COMPOSE_MIN" || die "$bin is Compose $v; $COMPOSE_MIN or newer is needed"
  echo "$bin"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  images) cmd_images ;;
  compose)
    shift
    # shellcheck disable=SC2046
    exec $(compose_command) "$@"
    ;;
  *)
    sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
