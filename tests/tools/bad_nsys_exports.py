#!/usr/bin/env python3
# bad_nsys_exports.py DIR: writes into DIR the SQLite files that are not usable Nsight Systems
# exports, for tests/e2e/reader_malformed_traces.sh: other.sqlite (no export table),
# types.sqlite (text and inverted times), extreme.sqlite (times at the int64 range, two days,
# before the session), norows.sqlite (the tables, no row), scrambled.sqlite (the SQLite magic
# kept, every page after it scrambled) and layout.sqlite (the tables without their columns).
# SPDX-License-Identifier: MIT
import os
import sqlite3
import sys

os.chdir(sys.argv[1])
c = sqlite3.connect("other.sqlite"); c.execute("create table t(x)"); c.commit()
c = sqlite3.connect("types.sqlite")
c.execute("create table StringIds(id INTEGER, value TEXT)"); c.execute("insert into StringIds values (1, 'gemm_kernel')")
c.execute("create table CUPTI_ACTIVITY_KIND_KERNEL(globalPid, deviceId, streamId, correlationId, start, end, demangledName)")
for row in [("pid", "dev", "s", "c", "a", "b", 1), (1, 0, 7, 1, 100, 50, 1), (1, 0, 7, 2, 1000, 2000, 1), (1, 0, 7, 3, 3000, 4000.5, 1)]:
    c.execute("insert into CUPTI_ACTIVITY_KIND_KERNEL values (?,?,?,?,?,?,?)", row)
c.commit()
c = sqlite3.connect("extreme.sqlite")  # a row spanning the int64 range, one of two days, one before the session
c.execute("create table StringIds(id INTEGER, value TEXT)"); c.execute("insert into StringIds values (1, 'gemm_kernel')")
c.execute("create table CUPTI_ACTIVITY_KIND_KERNEL(globalPid, deviceId, streamId, correlationId, start, end, demangledName)")
for row in [(1, 0, 7, 1, -2**63, 2**63 - 1, 1), (1, 0, 7, 2, 1000, 1000 + 2 * 86400 * 10**9, 1), (1, 0, 7, 3, -5000, -1000, 1),
            (1, 0, 7, 4, 1000, 3000, 1)]:
    c.execute("insert into CUPTI_ACTIVITY_KIND_KERNEL values (?,?,?,?,?,?,?)", row)
c.commit()
c = sqlite3.connect("norows.sqlite")  # the tables of an export, no row in them
c.execute("create table StringIds(id INTEGER, value TEXT)")
c.execute("create table CUPTI_ACTIVITY_KIND_KERNEL(globalPid, deviceId, streamId, correlationId, start, end, demangledName)")
c.commit(); c.close()
d = bytearray(open("norows.sqlite", "rb").read())  # the SQLite magic kept, every page after it scrambled
for i in range(100, len(d)):
    d[i] = (d[i] * 7 + 13) % 256
open("scrambled.sqlite", "wb").write(d)
c = sqlite3.connect("layout.sqlite")
c.execute("create table StringIds(id, value)"); c.execute("create table CUPTI_ACTIVITY_KIND_KERNEL(start, end)"); c.commit()
