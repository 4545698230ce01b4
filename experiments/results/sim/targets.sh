#!/usr/bin/env bash
# Judges the safety, kept-gain and reach targets, pass or fail per cell, from a set of replays, and writes
# OUT/targets-<profile>.md for each judged profile, against the first profile of the replays (table1, the seed
# paper's predictor). Run from the project root:
#   bash experiments/results/sim/targets.sh --out DIR --profiles a,b --reach x,y DIR...
set -euo pipefail
out= profiles= reach=
while [[ $# -gt 0 && $1 == --* ]]; do
  case "$1" in
    --out) out=$2 ;;
    --profiles) profiles=$2 ;;
    --reach) reach=$2 ;;
    *) echo "targets.sh: unknown option $1 (--out, --profiles, --reach)" >&2; exit 2 ;;
  esac
  shift 2
done
if [[ -z $out || -z $profiles || -z $reach || $# -eq 0 ]]; then
  echo "usage: targets.sh --out DIR --profiles a,b --reach x,y REPLAY_DIR..." >&2
  exit 2
fi
for profile in ${profiles//,/ }; do
  {
    echo "# Targets, profile $profile against table1"
    echo
    echo "Command (from the project root): \`./harbinger lab io.harbinger.experiments.sim.TargetsReport --profile $profile --reach $reach $*\`"
    echo
    # shellcheck disable=SC2086
    ./harbinger lab io.harbinger.experiments.sim.TargetsReport --profile "$profile" --reach "$reach" "$@"
  } > "$out/targets-$profile.md"
done
