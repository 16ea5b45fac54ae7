#!/usr/bin/env python3
# nsys_nvtx_steps.py OUT.sqlite: a small Nsight Systems export (what profile.nsys leaves in
# nsys/) whose steps are NVTX ranges named step, two of them, with one kernel and ranges
# registered by string id ('fwd', for a phase rule) and by text (backward_pass), for
# tests/e2e/aggregate_user_traces.sh.
# SPDX-License-Identifier: MIT
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
db.executescript('''
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, 'gemm_kernel'), (6, 'fwd');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
  streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000000, 2000000, 0, 1, 7, 1, 1677721600, 1, 1);
CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, rangeId INTEGER, category INTEGER,
  color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);
INSERT INTO NVTX_EVENTS VALUES
  (0, 6000000, 59, NULL, NULL, NULL, 'step', 1677721605, NULL, NULL, 0),
  (6000000, 12500000, 59, NULL, NULL, NULL, 'step', 1677721605, NULL, NULL, 0),
  (1000000, 3000000, 59, NULL, NULL, NULL, NULL, 1677721605, NULL, 6, 0),
  (3000000, 5000000, 59, NULL, NULL, NULL, 'backward_pass', 1677721605, NULL, NULL, 0),
  (7000000, 9000000, 59, NULL, NULL, NULL, NULL, 1677721605, NULL, 6, 0),
  (9000000, 11000000, 59, NULL, NULL, NULL, 'backward_pass', 1677721605, NULL, NULL, 0);
''')
db.commit()
