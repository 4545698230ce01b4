#!/usr/bin/env bash
# Runs the predictability check (./harbinger check) on the five public traces of ../shared/traces and writes
# <trace>.txt and <trace>.json next to this script, each starting with the exact command. The traces are read in
# place, never copied. About 30 seconds. Run from anywhere: bash experiments/results/check/run.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=experiments/results/check

check() {
  local name=$1 spec=$2
  {
    echo "\$ ./harbinger check '$spec'"
    echo
    ./harbinger check "$spec"
  } >"$OUT/$name.txt"
  {
    printf '{\n"command" : "./harbinger check %s --json",\n"result" : ' "'$spec'"
    ./harbinger check "$spec" --json
    printf '}\n'
  } >"$OUT/$name.json"
  echo "wrote $OUT/$name.txt and .json"
}

check lpc-egee 'swf:../shared/traces/LPC-EGEE-2004-1.2-cln.swf.gz?key=user-queue'
check ctc-sp2 'swf:../shared/traces/CTC-SP2-1996-3.1-cln.swf.gz?key=executable'
check llnl-thunder 'swf:../shared/traces/LLNL-Thunder-2007-1.1-cln.swf.gz?key=executable'
check alibaba-2026 'alibaba2026:../shared/traces/alibaba-2026-lora-requests.csv'
check azure-2021-excerpt 'azure2021:../shared/traces/azure-functions-2021-excerpt.csv'
