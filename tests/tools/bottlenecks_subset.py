# SPDX-License-Identifier: MIT
"""bottlenecks_subset.py IN.yaml OUT.yaml: campaigns/bottlenecks.yaml at 1 node, its slow-loader
and checkpoint scenarios only, 15 active steps, a variable passed through from the environment
(TRY_PASSED: { from_env: true }); its knobs as shipped (tests/e2e/try_kinds.sh)."""
import sys

import yaml

c = yaml.safe_load(open(sys.argv[1]))
c["matrix"] = {"nodes": [1]}
c["scenarios"] = [s for s in c["scenarios"] if s["name"].split("-")[0] in ("dataloader", "io")]
c["profile"] = {"warmup_steps": 3, "active_steps": 15}
c["workload"]["env"]["TRY_PASSED"] = {"from_env": True}
yaml.safe_dump(c, open(sys.argv[2], "w"), sort_keys=False)
