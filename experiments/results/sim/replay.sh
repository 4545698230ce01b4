#!/usr/bin/env bash
# Re-runs every simulator replay of this folder (run from the project root): today's predictor beside the new
# one (safeguards and borrowing) and the new one with idle limits relative to each key's own time scale (reach).
set -euo pipefail
# HARBINGER may name another launcher (for example a frozen build), word-split as given.
h=${HARBINGER:-./harbinger}
arms=fifo,oracle+weights+pausing,predictive_warm,predictive_warm+weights+pausing,predictive_warm+no_aging,oracle+no_aging
p=today,new,reach
$h simulate "swf:../shared/traces/LPC-EGEE-2004-1.2-cln.swf.gz?key=user-queue" --predictors $p --arms $arms --out experiments/results/sim/lpc-egee >/dev/null
$h simulate "swf:../shared/traces/CTC-SP2-1996-3.1-cln.swf.gz" --predictors $p --arms $arms --out experiments/results/sim/ctc-sp2 >/dev/null
$h simulate "swf:../shared/traces/LLNL-Thunder-2007-1.1-cln.swf.gz" --predictors $p --arms $arms --out experiments/results/sim/llnl-thunder >/dev/null
$h simulate "alibaba2026:../shared/traces/alibaba-2026-lora-requests.csv" --predictors $p --arms $arms --out experiments/results/sim/alibaba >/dev/null
# The harmful case of seed paper section 5.2 (DAS2-fs2), synthetic: decoy keys whose median says short while their
# slow jobs carry most of the work; 4 workers so that jobs queue. The global-only profile shows the global safeguard
# by itself.
$h simulate "synthetic:seed=18,jobs=200000,keys=40,distribution=decoy,minmedian=1,maxmedian=1.5,slowshare=0.25,slowratio=12,honestratio=2,sigma=0.05,workers=4" --workers 4 --predictors today,new,reach,global --arms $arms --out experiments/results/sim/decoy >/dev/null
# Aging whose threshold follows the backlog (opt-in, +following) against pausing aging, with the reach predictor.
for t in lpc-egee:"swf:../shared/traces/LPC-EGEE-2004-1.2-cln.swf.gz?key=user-queue" \
    llnl-thunder:"swf:../shared/traces/LLNL-Thunder-2007-1.1-cln.swf.gz"; do
  $h simulate "${t#*:}" --load 0.8,0.95 --predictors reach \
    --arms fifo,predictive_warm+weights+pausing,predictive_warm+weights+following,oracle+weights+pausing,oracle+weights+following \
    --out "experiments/results/sim/following/${t%%:*}" >/dev/null
done
