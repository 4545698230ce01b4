#!/usr/bin/env bash
# Where the tail comes from (io.harbinger.experiments.sim.TailDiagnosis): for each routed level, its jobs and work
# and the jobs past FIFO's P99 latency, in the cells that README.md discusses. Run from the project root after
# ./harbinger build; a few seconds.
set -euo pipefail
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
cp="experiments/target/classes:$(cat experiments/target/classpath.txt)"
out=experiments/results/sim/reach-budget
t=../shared/traces
diagnose() {
  local file=$1
  shift
  {
    echo "Command (from the project root, after \`./harbinger build\`): \`java -cp <experiments classpath> io.harbinger.experiments.sim.TailDiagnosis $*\`"
    echo
    "$JAVA_HOME/bin/java" -cp "$cp" io.harbinger.experiments.sim.TailDiagnosis "$@"
  } > "$out/$file"
}
diagnose tail-lpc-egee-0.80-budget.md "swf:$t/LPC-EGEE-2004-1.2-cln.swf.gz?key=user-queue" 0.8 budget \
  predictive_warm+weights+pausing predictive_warm+no_aging oracle+no_aging
diagnose tail-lpc-egee-0.80-reach_budget.md "swf:$t/LPC-EGEE-2004-1.2-cln.swf.gz?key=user-queue" 0.8 reach_budget \
  predictive_warm+weights+pausing predictive_warm+no_aging
diagnose tail-llnl-thunder-user-0.80-reach_budget.md "swf:$t/LLNL-Thunder-2007-1.1-cln.swf.gz?key=user-executable" 0.8 \
  reach_budget predictive_warm+weights+pausing predictive_warm+no_aging oracle+no_aging
diagnose tail-ctc-sp2-0.95-reach_budget.md "swf:$t/CTC-SP2-1996-3.1-cln.swf.gz" 0.95 reach_budget \
  predictive_warm+weights+pausing predictive_warm+no_aging oracle+weights+pausing
diagnose tail-alibaba-0.80-reach_budget.md "alibaba2026:$t/alibaba-2026-lora-requests.csv" 0.8 reach_budget \
  predictive_warm+weights+pausing predictive_warm+no_aging oracle+no_aging
