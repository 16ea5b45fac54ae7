#!/bin/bash
# make demo: runs campaigns/local-demo.yaml on the local executor and says
# where the analysis is.
# SPDX-License-Identifier: MIT
set -u
cd "$(dirname "$0")/.."
echo "campaign demo: 1, 2 and 4 emulated nodes of CPU data-parallel training (gloo), about a minute"
bin/campaign submit --wait --backend local campaigns/local-demo.yaml
rc=$?
run=$(ls -d results/local-demo/*/ | sort | tail -n 1)
if [ -f "$run/BOTTLENECK_ANALYSIS.md" ]; then
	echo
	sed -n '/^## Executive Summary/,/^## Per-Scenario/p' "$run/BOTTLENECK_ANALYSIS.md" | sed '$d'
	echo "analysis: $run""BOTTLENECK_ANALYSIS.md"
	echo "numbers:  $run""summary.json"
fi
exit $rc
