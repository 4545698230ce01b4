#!/usr/bin/env bash
# The tail guard (tail-limit, PredictorConfig.tailLimit): while the estimated mean wait of the last level that holds
# at least 1% of the jobs exceeds the limit times FIFO's, keys placed below the default level are routed at it.
# Profiles tail (limit 2) and tail15 (limit 1.5) beside today's predictor and the default (new), and reach_few_tail
# beside reach_few, on every shared trace and the decoy case; then judges the targets into targets-*.md. Run from the
# project root after ./harbinger build.
set -euo pipefail
h=${HARBINGER:-./harbinger}
out=experiments/results/sim/tail
arms=fifo,oracle+weights+pausing,predictive_warm,predictive_warm+weights+pausing,predictive_warm+no_aging,oracle+no_aging
p=today,new,tail,tail15,reach_few,reach_few_tail
t=../shared/traces
$h simulate "swf:$t/LPC-EGEE-2004-1.2-cln.swf.gz?key=user-queue" --predictors $p --arms $arms --out $out/lpc-egee >/dev/null
$h simulate "swf:$t/CTC-SP2-1996-3.1-cln.swf.gz" --predictors $p --arms $arms --out $out/ctc-sp2 >/dev/null
$h simulate "swf:$t/CTC-SP2-1996-3.1-cln.swf.gz?key=user-executable" --predictors $p --arms $arms --out $out/ctc-sp2-user >/dev/null
$h simulate "swf:$t/LLNL-Thunder-2007-1.1-cln.swf.gz" --predictors $p --arms $arms --out $out/llnl-thunder >/dev/null
$h simulate "swf:$t/LLNL-Thunder-2007-1.1-cln.swf.gz?key=user-executable" --predictors $p --arms $arms --out $out/llnl-thunder-user >/dev/null
$h simulate "alibaba2026:$t/alibaba-2026-lora-requests.csv" --predictors $p --arms $arms --out $out/alibaba >/dev/null
$h simulate "synthetic:seed=18,jobs=200000,keys=40,distribution=decoy,minmedian=1,maxmedian=1.5,slowshare=0.25,slowratio=12,honestratio=2,sigma=0.05,workers=4" \
  --workers 4 --predictors $p --arms $arms --out $out/decoy >/dev/null
bash experiments/results/sim/targets.sh --out $out --profiles new,tail,tail15,reach_few,reach_few_tail \
  --reach lpc-egee,ctc-sp2,ctc-sp2-user,llnl-thunder,llnl-thunder-user \
  $out/lpc-egee $out/ctc-sp2 $out/ctc-sp2-user $out/llnl-thunder $out/llnl-thunder-user $out/alibaba $out/decoy
