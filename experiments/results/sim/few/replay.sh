#!/usr/bin/env bash
# Cold keys placed by their highest of at least 3 observations (promote-cold-after: 3, opt-in), beside today's
# predictor, the default (new) and relative idle limits (reach), on the HPC logs where most jobs fall back as cold,
# and on Alibaba and the decoy case for safety. CTC-SP2 and LLNL-Thunder are keyed both by executable (as in ../)
# and by user and executable, so that a cold executable can borrow its user's aggregate, as a RabbitMQ job type
# borrows its producer's. Then judges the targets into targets-few.md and targets-reach_few.md. Run from the
# project root after ./harbinger build.
set -euo pipefail
h=${HARBINGER:-./harbinger}
out=experiments/results/sim/few
arms=fifo,oracle+weights+pausing,predictive_warm,predictive_warm+weights+pausing,predictive_warm+no_aging,oracle+no_aging
p=today,new,reach,few,reach_few
t=../shared/traces
$h simulate "swf:$t/LPC-EGEE-2004-1.2-cln.swf.gz?key=user-queue" --predictors $p --arms $arms --out $out/lpc-egee >/dev/null
$h simulate "swf:$t/CTC-SP2-1996-3.1-cln.swf.gz" --predictors $p --arms $arms --out $out/ctc-sp2 >/dev/null
$h simulate "swf:$t/CTC-SP2-1996-3.1-cln.swf.gz?key=user-executable" --predictors $p --arms $arms --out $out/ctc-sp2-user >/dev/null
$h simulate "swf:$t/LLNL-Thunder-2007-1.1-cln.swf.gz" --predictors $p --arms $arms --out $out/llnl-thunder >/dev/null
$h simulate "swf:$t/LLNL-Thunder-2007-1.1-cln.swf.gz?key=user-executable" --predictors $p --arms $arms --out $out/llnl-thunder-user >/dev/null
$h simulate "alibaba2026:$t/alibaba-2026-lora-requests.csv" --predictors $p --arms $arms --out $out/alibaba >/dev/null
$h simulate "synthetic:seed=18,jobs=200000,keys=40,distribution=decoy,minmedian=1,maxmedian=1.5,slowshare=0.25,slowratio=12,honestratio=2,sigma=0.05,workers=4" \
  --workers 4 --predictors $p --arms $arms --out $out/decoy >/dev/null
bash experiments/results/sim/targets.sh --out $out --profiles few,reach_few,reach \
  --reach lpc-egee,ctc-sp2,ctc-sp2-user,llnl-thunder,llnl-thunder-user \
  $out/lpc-egee $out/ctc-sp2 $out/ctc-sp2-user $out/llnl-thunder $out/llnl-thunder-user $out/alibaba $out/decoy
