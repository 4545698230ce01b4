#!/usr/bin/env bash
# The compose comparison, end to end, on a machine whose containers may use only the host's loopback.
#
#   scripts/compose-smoke.sh                  build, bring the stack up, run the bench's smoke profile through the
#                                             containers, check its results, bring everything down; then the
#                                             bad-input checks and the Testcontainers test
#   scripts/compose-smoke.sh --stack-only     the stack and the bench only (what the bad-input checks run)
#
# Steps: start dockerd unless a daemon answers (scripts/local-docker.sh; stopped again at the end if this script
# started it); build or reuse the local base images; build the Harbinger images with Jib on harbinger-local/jre:21;
# check that every image is there and every port free; `docker compose up` with compose.yaml and
# deploy/compose.loopback.yaml (host networking, 127.0.0.1, non-default ports); run the bench (smoke profile, arms
# rabbitmq-fifo, rabbitmq-sidecar on the sidecar container, redis-fifo, broker-predictive on the broker container)
# as `docker compose up --exit-code-from bench bench`; copy its results out and check them (every arm ran and
# completed every message, nothing lost, the rabbitmq-sidecar arm watched the sidecar container and learned levels,
# the broker arm ran on the broker container); `docker compose down -v`, and check that no container, volume or
# network of the project is left.
#
# Bad input, checked after a good run (each must fail naming the service and the fix, and leave nothing running):
# a wrong password (HARBINGER_RABBITMQ_PASSWORD differs from RABBITMQ_PASSWORD), a port already taken, an image
# that is missing. Last, TestcontainersBrokerLocatorIT (test-support) runs on this daemon: the test extension
# starting RabbitMQ 4 with Testcontainers when nothing answers at RABBITMQ4_URI.
#
# Settings (environment), with the defaults of deploy/compose.loopback.yaml:
#   RABBITMQ_PORT 5682, RABBITMQ_DIST_PORT 25682, RABBITMQ_EPMD_PORT 4382, REDIS_PORT 6382,
#   SIDECAR_GRPC_PORT 50151, SIDECAR_METRICS_PORT 9564, BROKER_PORT 50161   the loopback ports of the services
#   RABBITMQ_PASSWORD            the password RabbitMQ is given (default smoke@pass/with%chars: @, / and %)
#   HARBINGER_RABBITMQ_PASSWORD  the one the sidecar and the bench use (default RABBITMQ_PASSWORD)
#   HARBINGER_TAG                the tag of the Harbinger images (default dev)
#   SMOKE_BUILD                  yes (default) builds the Harbinger images, no uses them as they are
#   SMOKE_RESULTS                where the bench's results are copied (default a temporary directory, deleted)
#   SMOKE_PROJECT                the compose project name (default harbinger-smoke)
#
# Needs root (dockerd) and python3 (reading the results).
set -euo pipefail
cd "$(dirname "$0")/.."

export RABBITMQ_PORT="${RABBITMQ_PORT:-5682}" RABBITMQ_DIST_PORT="${RABBITMQ_DIST_PORT:-25682}"
export RABBITMQ_EPMD_PORT="${RABBITMQ_EPMD_PORT:-4382}" REDIS_PORT="${REDIS_PORT:-6382}"
export SIDECAR_GRPC_PORT="${SIDECAR_GRPC_PORT:-50151}" SIDECAR_METRICS_PORT="${SIDECAR_METRICS_PORT:-9564}"
export BROKER_PORT="${BROKER_PORT:-50161}" HARBINGER_TAG="${HARBINGER_TAG:-dev}"
export BENCH_PROFILE=smoke BENCH_ARMS=rabbitmq-fifo,rabbitmq-sidecar,redis-fifo,broker-predictive
# A password with the characters that break an AMQP URI, so that the run shows they need no encoding.
export RABBITMQ_PASSWORD="${RABBITMQ_PASSWORD:-smoke@pass/with%chars}"
PROJECT="${SMOKE_PROJECT:-harbinger-smoke}"
SERVICES=(rabbitmq redis sidecar broker)
STACK_ONLY=false
[[ "${1:-}" == "--stack-only" ]] && STACK_ONLY=true

log() { printf '[compose-smoke] %s\n' "$*"; }
fail() { printf '[compose-smoke] FAILED: %s\n' "$*" >&2; exit 1; }

compose() {
  bash scripts/local-docker.sh compose -p "$PROJECT" -f compose.yaml -f deploy/compose.loopback.yaml "$@"
}

started=$SECONDS
passed=0
cleanup() {
  local rc=$?
  if [[ "${STACK_UP:-}" == yes ]]; then
    compose --profile bench down -v --remove-orphans --timeout 10 >/dev/null 2>&1 || true
  fi
  [[ -n "${RESULTS_TMP:-}" ]] && rm -rf "$RESULTS_TMP"
  [[ -n "${STARTED_DAEMON:-}" ]] && bash scripts/local-docker.sh stop
  exit "$rc"
}
trap cleanup EXIT

# ---- the daemon and the images
if ! docker info >/dev/null 2>&1; then
  bash scripts/local-docker.sh start
  STARTED_DAEMON=yes
fi
if [[ "$STACK_ONLY" == false ]]; then
  bash scripts/local-docker.sh images | sed 's/^/[compose-smoke] base image /'
fi
if [[ "${SMOKE_BUILD:-yes}" == yes ]]; then
  log "building the sidecar, broker and bench images with Jib on harbinger-local/jre:21"
  t=$SECONDS
  ./mvnw -B -q -Pimages -DskipTests -Dspotless.check.skip=true -Dimage.base=docker://harbinger-local/jre:21 \
    -Dimage.tag="$HARBINGER_TAG" package -pl images/sidecar-image,images/broker-image,images/bench-image -am \
    >/tmp/compose-smoke-build.log 2>&1 || { tail -n 40 /tmp/compose-smoke-build.log >&2; fail "the image build failed"; }
  log "images built in $((SECONDS - t)) s"
fi

# ---- before starting anything: every image present, every port free
image_of() { compose --profile bench config --format json | python3 -c \
  "import json,sys; print(json.load(sys.stdin)['services']['$1']['image'])"; }
for service in "${SERVICES[@]}" bench; do
  image=$(image_of "$service")
  if ! docker image inspect "$image" >/dev/null 2>&1; then
    case "$service" in
      rabbitmq | redis) hint="build it with scripts/local-docker.sh images, or set ${service^^}_IMAGE" ;;
      *) hint="build it with ./mvnw -Pimages -DskipTests package -Dimage.base=docker://harbinger-local/jre:21 -Dimage.tag=$HARBINGER_TAG, or set HARBINGER_TAG to a tag that exists" ;;
    esac
    fail "service $service: image $image is missing: $hint"
  fi
done
declare -A PORT_OF=([RABBITMQ_PORT]=rabbitmq [RABBITMQ_DIST_PORT]=rabbitmq [RABBITMQ_EPMD_PORT]=rabbitmq
  [REDIS_PORT]=redis [SIDECAR_GRPC_PORT]=sidecar [SIDECAR_METRICS_PORT]=sidecar [BROKER_PORT]=broker)
for var in "${!PORT_OF[@]}"; do
  port=${!var}
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    who=$(ss -ltnpH "sport = :$port" 2>/dev/null | grep -o 'users:(("[^"]*",pid=[0-9]*' | head -n 1 \
      | sed 's/users:(("\([^"]*\)",pid=\([0-9]*\)/\1, pid \2/')
    fail "service ${PORT_OF[$var]}: 127.0.0.1:$port is already in use${who:+ (by $who)}: stop that, or set $var to a free port"
  fi
done

# ---- up, and wait until every service is healthy
state_of() {
  local id
  id=$(compose ps -a -q "$1")
  [[ -n "$id" ]] || { echo "missing 0 0"; return; }
  docker inspect -f '{{.State.Status}}/{{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}} {{.RestartCount}} {{.State.ExitCode}}' "$id"
}
diagnose() {
  local service="$1" what="$2" line hint
  line=$(compose logs --no-color --no-log-prefix --tail 40 "$service" 2>&1 | sed 's/\x1b\[[0-9;]*[A-Za-z]//g' \
    | grep -E 'could not start|refused|cannot|not reachable|ERROR|error' | tail -n 1 || true)
  [[ -n "$line" ]] || line=$(compose logs --no-color --no-log-prefix --tail 1 "$service" 2>&1 \
    | sed 's/\x1b\[[0-9;]*[A-Za-z]//g' || true)
  case "$line" in
    *"refused the login"* | *ACCESS_REFUSED*)
      hint="RabbitMQ refused the password of user ${RABBITMQ_USER:-harbinger}: make HARBINGER_RABBITMQ_PASSWORD equal RABBITMQ_PASSWORD, or unset it" ;;
    *"cannot be bound"* | *"in use"* | *eaddrinuse*)
      hint="a port of $service is taken: free it, or move the service with the port variables of deploy/compose.loopback.yaml" ;;
    *) hint="see: docker compose -p $PROJECT logs $service" ;;
  esac
  fail "service $service $what: ${line:-no log}"$'\n'"[compose-smoke] fix: $hint"
}

log "starting ${SERVICES[*]} (project $PROJECT, host network, 127.0.0.1)"
t=$SECONDS
STACK_UP=yes
compose up -d --quiet-pull "${SERVICES[@]}" >/tmp/compose-smoke-up.log 2>&1 \
  || { cat /tmp/compose-smoke-up.log >&2; fail "docker compose up failed"; }
deadline=$((SECONDS + 180))
while true; do
  pending=()
  for service in "${SERVICES[@]}"; do
    read -r status restarts code < <(state_of "$service")
    case "$status" in
      running/healthy) ;;
      running/unhealthy) diagnose "$service" "is unhealthy" ;;
      exited/* | dead/*) diagnose "$service" "exited with code $code" ;;
      missing/*) pending+=("$service (not created yet)") ;;
      *) if ((restarts > 0)); then diagnose "$service" "keeps restarting ($restarts restarts so far)"; fi
         pending+=("$service ($status)") ;;
    esac
  done
  ((${#pending[@]} == 0)) && break
  if ((SECONDS >= deadline)); then
    first=${pending[0]%% *}
    diagnose "$first" "did not become healthy within 180 s (${pending[*]})"
  fi
  sleep 1
done
log "every service healthy after $((SECONDS - t)) s"
passed=$((passed + 1))

# ---- the bench through the containers
log "running the bench: --profile $BENCH_PROFILE --arms $BENCH_ARMS"
t=$SECONDS
set +e
compose up --attach bench --exit-code-from bench bench >/tmp/compose-smoke-bench.log 2>&1
bench_rc=$?
set -e
tr '\r' '\n' </tmp/compose-smoke-bench.log | sed 's/\x1b\[[0-9;]*[A-Za-z]//g' \
  | grep -E 'bench-1  \| (wrote|.* vs |project targets|bench:)' | sed 's/^.*bench-1  | /[compose-smoke] bench: /' || true
if ((bench_rc != 0)); then
  tr '\r' '\n' </tmp/compose-smoke-bench.log | tail -n 15 >&2
  fail "service bench exited with code $bench_rc"
fi
log "bench finished in $((SECONDS - t)) s"
passed=$((passed + 1))

RESULTS="${SMOKE_RESULTS:-}"
if [[ -z "$RESULTS" ]]; then
  RESULTS_TMP=$(mktemp -d)
  RESULTS="$RESULTS_TMP/smoke"
fi
rm -rf "$RESULTS"
compose cp bench:/results/smoke "$RESULTS" >/dev/null 2>&1 || fail "copying the results out of service bench failed"
python3 - "$RESULTS" "$BENCH_ARMS" <<'PY'
import csv, json, os, sys
out, arms = sys.argv[1], sys.argv[2].split(",")
problems = []
seen = set()
runs_dir = os.path.join(out, "runs")
for name in sorted(os.listdir(runs_dir)):
    with open(os.path.join(runs_dir, name, "run.json")) as f:
        run = json.load(f)
    arm, attrs = run["arm"], run["attributes"]
    seen.add(arm)
    with open(os.path.join(runs_dir, name, "messages.tsv")) as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    outcomes = {}
    for r in rows:
        outcomes[r["outcome"]] = outcomes.get(r["outcome"], 0) + 1
    done = outcomes.get("completed", 0)
    print(f"[compose-smoke] check {name}: {done} of {len(rows)} completed, submit errors {run['submit_errors']}")
    if not rows or done != len(rows) or run["submit_errors"] != 0:
        problems.append(f"{name}: {outcomes}, submit errors {run['submit_errors']}")
    if arm == "rabbitmq-sidecar":
        if not attrs.get("sidecar", "").startswith("running at 127.0.0.1:"):
            problems.append(f"{name} did not watch the sidecar container: sidecar = {attrs.get('sidecar')}")
        levels = attrs.get("levels_at_end", "")
        predicted = {kv.split("=")[1] for kv in levels.split(", ") if "(" not in kv}
        print(f"[compose-smoke] check {name}: levels learned from the sidecar container: {levels}")
        if len(predicted) < 2:
            problems.append(f"{name} learned fewer than two levels: {levels}")
        if int(attrs.get("sidecar_table_version", "0")) <= 0:
            problems.append(f"{name}: no route table from the sidecar")
    if arm.startswith("broker-") and not attrs.get("broker", "").startswith("harbinger-broker running at 127.0.0.1:"):
        problems.append(f"{name} did not run on the broker container: broker = {attrs.get('broker')}")
missing = set(arms) - seen
if missing:
    problems.append(f"arms without a run: {sorted(missing)}")
if problems:
    print("[compose-smoke] FAILED: " + "; ".join(problems), file=sys.stderr)
    sys.exit(1)
PY
passed=$((passed + 1))

# ---- down, and nothing left
compose --profile bench down -v --remove-orphans --timeout 10 >/dev/null 2>&1
STACK_UP=
left=$(docker ps -aq --filter "label=com.docker.compose.project=$PROJECT")
volumes=$(docker volume ls -q --filter "label=com.docker.compose.project=$PROJECT")
networks=$(docker network ls -q --filter "label=com.docker.compose.project=$PROJECT")
[[ -z "$left$volumes$networks" ]] || fail "left behind: containers [$left] volumes [$volumes] networks [$networks]"
log "stack down: no container, volume or network of $PROJECT left"
passed=$((passed + 1))
[[ "$STACK_ONLY" == true ]] && exit 0

# ---- bad input: each run must fail, name the service and the fix, and leave nothing behind
expect_failure() {
  local what="$1" service="$2" fix="$3"
  shift 3
  local out rc
  set +e
  out=$(env "$@" SMOKE_BUILD=no bash "$0" --stack-only 2>&1)
  rc=$?
  set -e
  local message
  message=$(grep -A1 'FAILED' <<<"$out" | tr '\n' ' ')
  if ((rc == 0)) || ! grep -q "service $service" <<<"$message" || ! grep -q -- "$fix" <<<"$message"; then
    printf '%s\n' "$out" >&2
    fail "$what: expected a failure naming service $service and '$fix' (exit code $rc)"
  fi
  local left
  left=$(docker ps -aq --filter "label=com.docker.compose.project=$PROJECT")
  [[ -z "$left" ]] || fail "$what left containers behind: $left"
  log "bad input, $what: exit code $rc, ${message% }"
  passed=$((passed + 1))
}
t=$SECONDS
expect_failure "wrong password" sidecar "HARBINGER_RABBITMQ_PASSWORD" HARBINGER_RABBITMQ_PASSWORD=not-the-password
python3 -c 'import socket,sys,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); time.sleep(120)' "$BROKER_PORT" &
holder=$!
sleep 0.5
expect_failure "port taken" broker "set BROKER_PORT" BROKER_PORT="$BROKER_PORT"
kill "$holder" 2>/dev/null || true
wait "$holder" 2>/dev/null || true
expect_failure "missing image" sidecar "HARBINGER_TAG" HARBINGER_TAG=no-such-tag
log "bad-input checks took $((SECONDS - t)) s"

# ---- the test extension's Testcontainers path, for real, on this daemon: host networking and the local image, the
# settings of a loopback-only machine (no Ryuk image, no bridge network to find the Docker host on)
log "the Testcontainers path: TestcontainersBrokerLocatorIT on harbinger-local/rabbitmq:4.0, host network"
t=$SECONDS
HARBINGER_TESTCONTAINERS_REQUIRED=true HARBINGER_TESTCONTAINERS_NETWORK=host \
  HARBINGER_TESTCONTAINERS_RABBITMQ4_IMAGE=harbinger-local/rabbitmq:4.0 \
  TESTCONTAINERS_RYUK_DISABLED=true TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1 \
  ./mvnw -B -pl test-support verify -Dspotless.check.skip=true -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test=TestcontainersBrokerLocatorIT -Dharbinger.it.excludedGroups= >/tmp/compose-smoke-testcontainers.log 2>&1 \
  || { grep -E 'ERROR|FAIL|Tests run' /tmp/compose-smoke-testcontainers.log | head -n 30 >&2
       fail "TestcontainersBrokerLocatorIT failed (log: /tmp/compose-smoke-testcontainers.log)"; }
grep -E '^\[broker\]|Tests run:.*Fail' /tmp/compose-smoke-testcontainers.log | tail -n 2 | sed 's/^/[compose-smoke] /'
left=$(docker ps -aq --filter label=org.testcontainers=true)
[[ -z "$left" ]] || fail "the Testcontainers test left containers behind: $left"
log "Testcontainers path passed in $((SECONDS - t)) s; no container left"
passed=$((passed + 1))

log "passed in $((SECONDS - started)) s"
# The plain closing line CI reads (a failed check ends the script before it, with a non-zero exit code).
echo "compose-smoke: $passed passed, 0 failed"
