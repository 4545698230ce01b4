#!/usr/bin/env bash
# No forgetting by the clock (idleHalfLife and staleAfter off, PredictorConfig's defaults now): profile steady
# beside today's predictor and the defaults before it (last, with seed paper Table 1's 10-minute idle half-life and
# 30-minute staleness), and with the opt-in 5 observations (steady_n5) and no spread gate (steady_n5_nospread), on
# every shared trace and the decoy cases, CTC-SP2 and LLNL-Thunder also keyed by user and executable; then the
# safety, kept-gain and reach targets into targets-*.md; steady_reach (opt-in) predicts a key from its first
# observation without the spread gate, under a tail budget of 1.1. Run from the project root after ./harbinger build.
set -euo pipefail
bash experiments/results/sim/replay-profiles.sh experiments/results/sim/steady \
  today,last,steady,steady_n5,steady_n5_nospread,steady_reach last,steady,steady_n5,steady_n5_nospread,steady_reach user-keys
