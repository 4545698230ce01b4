#!/usr/bin/env bash
# The trace replays the evidence page cites: every shared trace and the decoy cases (CTC-SP2 and LLNL-Thunder also
# keyed by user and executable), loads 0.5, 0.8 and 0.95, under the seed paper's predictor (table1), the product's
# defaults, the few-observation settings and the defaults with each departure from the paper undone; then the
# safety, kept-gain and reach targets of every profile against table1. Twice: with the SWF logs' requested run times
# (field 9) as size hints, in requested-hints/, and with their processor counts (field 5, the reader's default), in
# processor-hints/. Deterministic: a rerun gives byte-identical tables. About 10 minutes on 2 cores.
# Run from the project root: bash experiments/results/sim/replay.sh
set -euo pipefail
profiles=table1,defaults,few_observations,without_size_borrowing,without_producer_borrowing,with_clock_forgetting
profiles=$profiles,without_tail_budget,without_shift_run,untrusted_at_default_level,without_safeguards,without_demotion
judged=${profiles#table1,}
SWF_OPTIONS=size=requested bash experiments/results/sim/replay-profiles.sh experiments/results/sim/requested-hints \
  $profiles $judged user-keys
bash experiments/results/sim/replay-profiles.sh experiments/results/sim/processor-hints $profiles $judged user-keys
