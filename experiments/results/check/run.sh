#!/usr/bin/env bash
# Runs the predictability check (./harbinger check) on the five public traces of ../shared/traces and
# writes <trace>.txt and <trace>.json next to this script, each starting with the exact command.
# The traces are read in place, never copied. Run from anywhere; needs the Temurin 25 JDK.
set -euo pipefail
cd "$(dirname "$0")/../../.."
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
./mvnw -B -q -pl experiments -am compile dependency:build-classpath \
  -Dmdep.outputFile=target/classpath.txt
CP="experiments/target/classes:$(cat experiments/target/classpath.txt)"
OUT=experiments/results/check
MAIN=io.harbinger.experiments.check.CheckCommand
SHOWN_CP='experiments/target/classes:$(cat experiments/target/classpath.txt)'

check() {
  local name=$1 spec=$2
  local cmd="java -cp \"$SHOWN_CP\" $MAIN '$spec'"
  {
    echo "\$ $cmd"
    echo
    "$JAVA_HOME/bin/java" -cp "$CP" "$MAIN" "$spec"
  } >"$OUT/$name.txt"
  {
    printf '{\n"command" : "%s",\n"result" : ' "${cmd//\"/\\\"} --json"
    "$JAVA_HOME/bin/java" -cp "$CP" "$MAIN" "$spec" --json
    printf '}\n'
  } >"$OUT/$name.json"
  echo "wrote $OUT/$name.txt and .json"
}

check lpc-egee 'swf:../shared/traces/LPC-EGEE-2004-1.2-cln.swf.gz?key=user-queue'
check ctc-sp2 'swf:../shared/traces/CTC-SP2-1996-3.1-cln.swf.gz?key=executable'
check llnl-thunder 'swf:../shared/traces/LLNL-Thunder-2007-1.1-cln.swf.gz?key=executable'
check alibaba-2026 'alibaba2026:../shared/traces/alibaba-2026-lora-requests.csv'
check azure-2021-excerpt 'azure2021:../shared/traces/azure-functions-2021-excerpt.csv'
