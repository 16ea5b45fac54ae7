#!/usr/bin/env python3
# nsys_copies_export.py OUT.sqlite: an Nsight Systems export with no NVTX step range whose GPU
# mostly copies host to device (9 copies of 1 ms launched ahead, then one 1 ms kernel: 90 %
# copies), for tests/e2e/gpu_verdicts.sh.
# SPDX-License-Identifier: MIT
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executescript("""
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO StringIds VALUES (1, 'void gemm_kernel<float>(float*)'), (3, 'cudaLaunchKernel_v7000'), (4, 'cudaMemcpyAsync_v3020');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER, streamId INTEGER,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER, streamId INTEGER,
  correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,
  correlationId INTEGER, nameId INTEGER, returnValue INTEGER);
""")
pid, tid = 100 << 24, (100 << 24) + 5
for i in range(9):  # 9 copies of 1 ms, launched ahead, then one 1 ms kernel: 90 % copies
    c.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?,?,0,1,7,?,?,4194304,1)", (i * 1000000, (i + 1) * 1000000, i + 1, pid))
    c.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,0,?,?,4,0)", (i * 1000, i * 1000 + 500, tid, i + 1))
c.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (9000000,10000000,0,1,7,20,?,1,1)", (pid,))
c.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (10000,10500,0,?,20,3,0)", (tid,))
c.commit()
