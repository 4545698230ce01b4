#!/usr/bin/env bash
# The sink guard (PredictorConfig.tailSink, opt-in): profiles sink (1.25x) and sink15 (1.5x) beside the defaults
# (budget) and today's predictor, on every shared trace and the decoy cases, then the safety, kept-gain and reach
# targets into targets-*.md. Run from the project root after ./harbinger build.
set -euo pipefail
bash experiments/results/sim/replay-profiles.sh experiments/results/sim/sink today,budget,sink,sink15 budget,sink,sink15
