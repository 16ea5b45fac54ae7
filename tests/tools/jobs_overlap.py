# SPDX-License-Identifier: MIT
"""Asserts that no two jobs of these runs ran at the same time, from each job's own job.status
(its start and end, written by the job script): the local executor's machine lock makes the
jobs of runs started together queue. Prints each job's interval in start order.

    python3 jobs_overlap.py RUN_DIR [RUN_DIR...]"""
import glob
import json
import os
import sys


def main():
    jobs = []
    for run in sys.argv[1:]:
        for st in glob.glob(os.path.join(run, "*", "job.status")):
            j = json.load(open(st))
            assert j["exit_code"] == 0, (st, j)
            assert 0 < j["start"] <= j["end"], (st, j)
            jobs.append((j["start"], j["end"], "%s/%s" % (os.path.basename(run),
                                                          os.path.basename(os.path.dirname(st)))))
    jobs.sort()
    assert len(jobs) >= 2, "fewer than two jobs: %s" % jobs
    for s, e, name in jobs:
        print("%s: %.3f to %.3f" % (name, s, e))
    for (s1, e1, n1), (s2, e2, n2) in zip(jobs, jobs[1:]):
        assert e1 <= s2, "%s (%.3f to %.3f) and %s (%.3f to %.3f) overlap" % (n1, s1, e1, n2, s2, e2)
    print("%d jobs of %d runs, none overlapping" % (len(jobs), len(sys.argv) - 1))


main()
