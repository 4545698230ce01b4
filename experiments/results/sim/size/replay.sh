#!/usr/bin/env bash
# Borrowing by size (borrowFromSize, now a default): a key still cold borrows the aggregate of every job whose size
# hint fell in the same size bin. Profiles steady (the defaults before it) and steady_reach (the few-observation
# settings), each beside itself with it (steady_size, the defaults now, and steady_reach_size), on every shared trace
# and the decoy cases, CTC-SP2 and LLNL-Thunder also keyed by user and executable; then the safety, kept-gain and
# reach targets into targets-*.md. Twice: with the SWF logs' requested run times (field 9) as size hints, in this
# folder, and with their allocated processors (field 5, the reader's default), in processors/.
# Run from the project root after ./harbinger build.
set -euo pipefail
profiles=today,steady,steady_size,steady_reach,steady_reach_size
judged=steady,steady_size,steady_reach,steady_reach_size
SWF_OPTIONS=size=requested bash experiments/results/sim/replay-profiles.sh experiments/results/sim/size \
  $profiles $judged user-keys
bash experiments/results/sim/replay-profiles.sh experiments/results/sim/size/processors $profiles $judged user-keys
