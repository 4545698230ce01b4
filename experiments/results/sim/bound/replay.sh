#!/usr/bin/env bash
# The reach bound: every job of a key placed at the tier of that key's median over the evaluated jobs, known in
# hindsight (static_hindsight), beside the oracle, today's predictor, the defaults and the opt-in reach options, on
# the reach target's traces (LPC-EGEE by user and queue, CTC-SP2 and LLNL-Thunder by user, and by user and
# executable), all with weights and pausing aging. Run from the project root after ./harbinger build.
set -euo pipefail
out=experiments/results/sim/bound
h=${HARBINGER:-./harbinger}
arms=fifo,oracle+weights+pausing,predictive_warm+weights+pausing,static_history+weights+pausing,static_hindsight+weights+pausing
p=today,last,reach_last
t=../shared/traces
$h simulate "swf:$t/LPC-EGEE-2004-1.2-cln.swf.gz?key=user-queue" --predictors $p --arms $arms --out $out/lpc-egee >/dev/null
$h simulate "swf:$t/CTC-SP2-1996-3.1-cln.swf.gz" --predictors $p --arms $arms --out $out/ctc-sp2 >/dev/null
$h simulate "swf:$t/LLNL-Thunder-2007-1.1-cln.swf.gz" --predictors $p --arms $arms --out $out/llnl-thunder >/dev/null
$h simulate "swf:$t/CTC-SP2-1996-3.1-cln.swf.gz?key=user-executable" --predictors $p --arms $arms --out $out/ctc-sp2-user >/dev/null
$h simulate "swf:$t/LLNL-Thunder-2007-1.1-cln.swf.gz?key=user-executable" --predictors $p --arms $arms --out $out/llnl-thunder-user >/dev/null
