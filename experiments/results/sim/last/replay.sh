#!/usr/bin/env bash
# Untrusted keys at the last level (untrusted-last, PredictorConfig.untrustedLast, the default now): profile last
# beside the defaults before it (budget) and today's predictor, and with the opt-in reach options (reach_last,
# reach_few_last), on every shared trace and the decoy cases, CTC-SP2 and LLNL-Thunder also keyed by user and
# executable; then the safety, kept-gain and reach targets into targets-*.md. Run from the project root after
# ./harbinger build.
set -euo pipefail
bash experiments/results/sim/replay-profiles.sh experiments/results/sim/last \
  today,budget,last,reach_last,reach_few_last budget,last,reach_last,reach_few_last user-keys
