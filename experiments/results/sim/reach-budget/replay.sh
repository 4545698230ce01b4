#!/usr/bin/env bash
# The two opt-in reach options (relative idle limits, relative-idle: 10; cold keys placed by their few observations,
# promote-cold-after: 3) on top of today's defaults (the shift run and the tail budget): profiles reach_budget and
# reach_few_budget beside the defaults (budget) and today's predictor, on every shared trace, CTC-SP2 and
# LLNL-Thunder also keyed by user and executable, and the decoy cases; then the safety, kept-gain and reach targets
# into targets-*.md. Run from the project root after ./harbinger build.
set -euo pipefail
bash experiments/results/sim/replay-profiles.sh experiments/results/sim/reach-budget \
  today,budget,reach_budget,reach_few_budget budget,reach_budget,reach_few_budget user-keys
