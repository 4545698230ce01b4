#!/usr/bin/env bash
# Judges the safety, kept-gain and reach targets, pass or fail per cell, from the replays of replay.sh, and writes
# targets-<profile>.md for each profile. Run from the project root after ./harbinger build.
#   bash experiments/results/sim/targets.sh                      (this folder: profiles new and reach)
#   bash experiments/results/sim/targets.sh --out DIR --profiles a,b --reach x,y DIR...   (another set of replays)
set -euo pipefail
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
cp="launcher/target/classes:$(cat launcher/target/classpath.txt)"
r=experiments/results/sim
out=$r
profiles=new,reach
reach=lpc-egee,ctc-sp2,llnl-thunder
while [[ $# -gt 0 && $1 == --* ]]; do
  case "$1" in
    --out) out=$2 ;;
    --profiles) profiles=$2 ;;
    --reach) reach=$2 ;;
    *) echo "targets.sh: unknown option $1 (--out, --profiles, --reach)" >&2; exit 2 ;;
  esac
  shift 2
done
if [[ $# -gt 0 ]]; then
  dirs="$*"
else
  dirs="$r/lpc-egee $r/ctc-sp2 $r/llnl-thunder $r/alibaba $r/decoy"
fi
for profile in ${profiles//,/ }; do
  cmd="java -cp <launcher classpath> io.harbinger.experiments.sim.TargetsReport --profile $profile --reach $reach $dirs"
  {
    echo "# Targets, profile $profile against today's predictor"
    echo
    echo "Command (from the project root, after \`./harbinger build\`): \`$cmd\`"
    echo
    # shellcheck disable=SC2086
    "$JAVA_HOME/bin/java" -cp "$cp" io.harbinger.experiments.sim.TargetsReport --profile "$profile" \
      --reach "$reach" $dirs
  } > "$out/targets-$profile.md"
done
