#!/usr/bin/env bash
# Replays every shared trace and the decoy cases with the given predictor profiles, then judges the safety,
# kept-gain and reach targets of the named profiles into OUT/targets-<profile>.md. Run from the project root:
#   bash experiments/results/sim/replay-profiles.sh OUT PROFILES JUDGED [user-keys]
# for example OUT=experiments/results/sim/requested-hints, PROFILES=table1,defaults, JUDGED=defaults. With user-keys,
# CTC-SP2 and LLNL-Thunder are also replayed keyed by user and executable (ctc-sp2-user, llnl-thunder-user), the
# way a RabbitMQ message is keyed by its job type under its producer, and judged for reach too. SWF_OPTIONS, when set,
# is added to every SWF log's options (for example SWF_OPTIONS=size=requested: requested run times as size hints).
set -euo pipefail
if [[ $# -lt 3 || $# -gt 4 || ( $# -eq 4 && $4 != user-keys ) ]]; then
  echo "usage: replay-profiles.sh OUT PROFILES JUDGED [user-keys] (PROFILES and JUDGED are comma-separated profile names)" >&2
  exit 2
fi
out=$1 p=$2 judged=$3 users=${4:-}
h=${HARBINGER:-./harbinger}
arms=fifo,oracle+weights+pausing,predictive_warm,predictive_warm+weights+pausing,predictive_warm+no_aging,oracle+no_aging
t=../shared/traces
q=${SWF_OPTIONS:+?$SWF_OPTIONS} a=${SWF_OPTIONS:+,$SWF_OPTIONS}
$h simulate "swf:$t/LPC-EGEE-2004-1.2-cln.swf.gz?key=user-queue$a" --predictors $p --arms $arms --out $out/lpc-egee >/dev/null
$h simulate "swf:$t/CTC-SP2-1996-3.1-cln.swf.gz$q" --predictors $p --arms $arms --out $out/ctc-sp2 >/dev/null
$h simulate "swf:$t/LLNL-Thunder-2007-1.1-cln.swf.gz$q" --predictors $p --arms $arms --out $out/llnl-thunder >/dev/null
reach=lpc-egee,ctc-sp2,llnl-thunder
hpc="$out/lpc-egee $out/ctc-sp2 $out/llnl-thunder"
if [[ -n $users ]]; then
  $h simulate "swf:$t/CTC-SP2-1996-3.1-cln.swf.gz?key=user-executable$a" --predictors $p --arms $arms --out $out/ctc-sp2-user >/dev/null
  $h simulate "swf:$t/LLNL-Thunder-2007-1.1-cln.swf.gz?key=user-executable$a" --predictors $p --arms $arms --out $out/llnl-thunder-user >/dev/null
  reach=$reach,ctc-sp2-user,llnl-thunder-user
  hpc="$hpc $out/ctc-sp2-user $out/llnl-thunder-user"
fi
$h simulate "alibaba2026:$t/alibaba-2026-lora-requests.csv" --predictors $p --arms $arms --out $out/alibaba >/dev/null
# The harmful case of seed paper section 5.2 (DAS2-fs2), and the same with 35% and 50% of each decoy key's jobs slow:
# a key that is slow often enough shows runs of slow jobs by chance, which the shift run must not take for a change.
for share in 0.25 0.35 0.5; do
  name=decoy; [[ $share == 0.25 ]] || name=decoy-$share
  $h simulate "synthetic:seed=18,jobs=200000,keys=40,distribution=decoy,minmedian=1,maxmedian=1.5,slowshare=$share,slowratio=12,honestratio=2,sigma=0.05,workers=4" \
    --workers 4 --predictors $p --arms $arms --out $out/$name >/dev/null
done
# shellcheck disable=SC2086
bash experiments/results/sim/targets.sh --out $out --profiles $judged --reach $reach \
  $hpc $out/alibaba $out/decoy $out/decoy-0.35 $out/decoy-0.5
