#!/usr/bin/env bash
# The tail budget (tail-budget: 1.25, PredictorConfig.tailBudget, the default now): profile budget beside the
# defaults before it (shift, equal quantiles) and today's predictor, on every shared trace and the decoy cases, then
# the safety, kept-gain and reach targets into targets-*.md. Run from the project root after ./harbinger build.
set -euo pipefail
bash experiments/results/sim/replay-profiles.sh experiments/results/sim/budget today,shift,budget shift,budget
