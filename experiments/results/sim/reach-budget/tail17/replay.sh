#!/usr/bin/env bash
# The tail guard (tail-limit) at 1.7x on top of relative idle limits and the tail budget, with the safeguard's
# usual memory and with a ten times longer one (safeguard-decay 0.9998): Cobham's estimate of the last level's wait
# is 1.65x on Alibaba, whose tail is fine, and 1.80x on LLNL-Thunder keyed by user, whose tail is not (../README.md),
# so a limit between them is the best case for a guard on that estimate. Then the targets into targets-*.md. Run
# from the project root after ./harbinger build.
set -euo pipefail
bash experiments/results/sim/replay-profiles.sh experiments/results/sim/reach-budget/tail17 \
  today,reach_budget,reach_budget_tail17,reach_budget_tail17_slow reach_budget_tail17,reach_budget_tail17_slow user-keys
