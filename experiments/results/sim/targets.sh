#!/usr/bin/env bash
# Judges the safety, kept-gain and reach targets, pass or fail per cell, from the replays of replay.sh, and writes
# targets-new.md and targets-reach.md next to this script. Run from the project root after ./harbinger build.
set -euo pipefail
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
cp="launcher/target/classes:$(cat launcher/target/classpath.txt)"
r=experiments/results/sim
for profile in new reach; do
  cmd="java -cp <launcher classpath> io.harbinger.experiments.sim.TargetsReport --profile $profile --reach lpc-egee,ctc-sp2,llnl-thunder $r/lpc-egee $r/ctc-sp2 $r/llnl-thunder $r/alibaba $r/decoy"
  {
    echo "# Targets, profile $profile against today's predictor"
    echo
    echo "Command (from the project root, after \`./harbinger build\`): \`$cmd\`"
    echo
    "$JAVA_HOME/bin/java" -cp "$cp" io.harbinger.experiments.sim.TargetsReport --profile "$profile" \
      --reach lpc-egee,ctc-sp2,llnl-thunder $r/lpc-egee $r/ctc-sp2 $r/llnl-thunder $r/alibaba $r/decoy
  } > "$r/targets-$profile.md"
done
