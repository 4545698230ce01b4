#!/usr/bin/env bash
# The shift run as a default (shift-run: 8, PredictorConfig.shiftRun): profile shift (the product's defaults) beside
# today's predictor and the defaults before it (new, no shift run), on every shared trace and the decoy case, then
# the safety, kept-gain and reach targets into targets-*.md. Run from the project root after ./harbinger build.
set -euo pipefail
bash experiments/results/sim/replay-profiles.sh experiments/results/sim/shift today,new,shift new,shift
