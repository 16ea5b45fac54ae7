#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Commit subjects of at most 72 characters, a blank line before the body (docs/development.md).

commit_subjects.py --message FILE   the message of a commit being made (the commit-msg hook)
commit_subjects.py --since REV      every commit after REV on HEAD (tests/e2e/layout.sh); a
                                    clone without REV (shallow) checks nothing and says so
Exit 1 naming each offender.
"""
import subprocess
import sys

LIMIT = 72


def problems(subject, second):
    out = []
    if len(subject) > LIMIT:
        out.append(f"subject of {len(subject)} characters (at most {LIMIT}): {subject}")
    if second is not None and second.strip():
        out.append(f"no blank line after the subject: {subject}")
    return out


def main():
    if sys.argv[1:2] == ["--message"]:
        lines = [l for l in open(sys.argv[2], encoding="utf-8").read().split("\n")
                 if not l.startswith("#")]
        bad = problems(lines[0], lines[1] if len(lines) > 1 else None)
    elif sys.argv[1:2] == ["--since"]:
        rev = sys.argv[2]
        if subprocess.run(["git", "cat-file", "-e", rev + "^{commit}"],
                          capture_output=True).returncode:
            print(f"commit_subjects: {rev} is not in this clone: nothing checked")
            return 0
        log = subprocess.run(["git", "log", "--format=%H%x00%B%x01", f"{rev}..HEAD"],
                             capture_output=True, text=True, check=True).stdout
        bad = []
        for entry in filter(str.strip, log.split("\x01")):
            sha, body = entry.strip("\n").split("\x00", 1)
            lines = body.split("\n")
            bad += [f"{sha[:12]}: {p}" for p in problems(lines[0], lines[1] if len(lines) > 1 else None)]
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for p in bad:
        print(p, file=sys.stderr)
    return 1 if bad else 0


sys.exit(main())
