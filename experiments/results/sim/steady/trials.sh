#!/usr/bin/env bash
# The trials behind steady_reach's settings: on CTC-SP2 keyed by executable, where its cold keys go (last, the default
# level, the sink guard at 1.5x); on LLNL-Thunder keyed by user and executable, what the tighter tail budget buys
# (one observation and no spread gate under the budgets 1.25, 1.2 and 1.1). Loads 0.8 and 0.95, weights and pausing
# aging. Run from the project root after ./harbinger build (about half a minute).
set -euo pipefail
h=${HARBINGER:-./harbinger}
t=../shared/traces
out=experiments/results/sim/steady/trials
arms=fifo,oracle+weights+pausing,predictive_warm+weights+pausing
$h simulate "swf:$t/CTC-SP2-1996-3.1-cln.swf.gz" --load 0.8,0.95 --arms $arms \
  --predictors steady,steady_reach,steady_reach:untrustedLast=false,steady_reach:untrustedLast=false:tailSink=1.5 \
  --out $out/ctc-sp2 >/dev/null
n=steady:minObservations=1:maxSpreadRatio=1000
$h simulate "swf:$t/LLNL-Thunder-2007-1.1-cln.swf.gz?key=user-executable" --load 0.8,0.95 --arms $arms \
  --predictors steady,$n,$n:tailBudget=1.2,steady_reach --out $out/llnl-thunder-user >/dev/null
