#!/usr/bin/env bash
# The production flow replayed in virtual time (./harbinger levels): FIFO, the oracle, the naive median and the
# predictor's defaults, with the departures that act on this flow undone one at a time, over seeds 11 to 55; with
# the reference's failing slow webhooks, with slow webhook attempts that succeed, and in the inverted regime.
# Deterministic and independent of the machine's load; about a minute. Run from the project root:
#   bash experiments/results/levels/replay.sh
set -euo pipefail
out=experiments/results/levels
seeds=11,22,33,44,55
arms=fifo,oracle,naive,predictive,predictive:tailBudget=0,predictive:untrustedLast=false
arms=$arms,predictive:demoteUntrusted=false,predictive:safeguard=false:keyGuard=false,oracle-5,predictive-5
./harbinger levels --seeds $seeds --webhooks failing --arms $arms > $out/replay-failing.md
./harbinger levels --seeds $seeds --webhooks succeeding --arms $arms > $out/replay-succeeding.md
./harbinger levels --seeds $seeds --regime inversion --arms fifo,oracle,predictive,predictive:shiftRun=0 \
  > $out/replay-inversion.md
