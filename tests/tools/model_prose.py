#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The model of analyzers/ (the files at its top but for the driver: main.c and its modes
analyze_*.c, shard.c, pool.c; and replay/) holds no prose: what it concludes it records as enums, counts, numbers and
names, and write/ says it in words. Fails, naming file:line, on a string literal of
English words (two words of letters with blanks between them; format directives do not
count) in the model outside comments and error messages (err_set, err_sys, fprintf, and
the readers' input_error and damaged: the one error
path: why something could not be done, said where it is detected), but for the few
below, each with why it may stay.

    python3 tests/tools/model_prose.py [FILE...]   (default: the model's files)
"""
import glob
import os
import re
import sys

DRIVER = {"main.c", "shard.c", "shard.h", "pool.c", "pool.h", "analyze_traces.c", "analyze_traces.h",
          "analyze_traces_text.c", "analyze_traces_text.h", "analyze_dumps.c", "analyze_dumps.h"}
# (file, the literal's start): why a file or a probe's result could not be used, composed
# where the reader finds it with the file's path; and campaign-analyze --json's HTA view
# of one trace file, which gpu_breakdown.c writes beside HTA's own keys
ALLOWED = [
    ("analyzers/fabric_curve.c", 'no \\"sizes\\" list'),
    ("analyzers/fabric_curve.c", "%s: no usable size"),
    ("analyzers/torchtrace.c", "has no ProfilerStep#N ranges"),
    ("analyzers/torchtrace.c", "%s is not an Nsight Systems SQLite export"),
    ("analyzers/torchtrace.c", "has no NVTX range per step"),
    ("analyzers/gpu_breakdown.c", "no GPU activity in this trace"),
]
ERROR_CALLS = re.compile(r"\b(err_set|err_sys|fprintf|input_error|damaged)\s*\(")
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
CHAR = re.compile(r"'(?:[^'\\\n]|\\.)*'")
DIRECTIVE = re.compile(r"%[-+ #0-9.*]*(?:hh|h|ll|l|z|j|t|L)?[a-zA-Z]")
ENGLISH = re.compile(r"[A-Za-z]{2,}[,;:)\"'\\]*\s+[(\"'\\]*[A-Za-z]{2,}")


def without_comments(src):
    """src with its comments blanked (lines kept), literals untouched."""
    out, i, n = [], 0, len(src)
    while i < n:
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
        else:
            m = (LITERAL.match(src, i) if src[i] == '"' else
                 CHAR.match(src, i) if src[i] == "'" else None)
            j = m.end() if m else i + 1
            out.append(src[i:j])
        i = j
    return "".join(out)


def error_spans(src):
    """The argument lists of err_set() and fprintf() calls."""
    spans = []
    for m in ERROR_CALLS.finditer(src):
        depth, i = 1, m.end()
        while i < len(src) and depth:
            lit = LITERAL.match(src, i) if src[i] == '"' else None
            if lit:
                i = lit.end()
                continue
            depth += {"(": 1, ")": -1}.get(src[i], 0)
            i += 1
        spans.append((m.end(), i))
    return spans


def prose(path):
    src = without_comments(open(path, encoding="utf-8").read())
    spans = error_spans(src)
    for m in LITERAL.finditer(src):
        text = m.group(1)
        if not ENGLISH.search(DIRECTIVE.sub("", text)):
            continue
        if any(a <= m.start() < b for a, b in spans):
            continue
        if any(path == f and text.startswith(start) for f, start in ALLOWED):
            continue
        yield src.count("\n", 0, m.start()) + 1, text


def main(files):
    files = files or sorted(f for f in glob.glob("analyzers/*.[ch]") +
                            glob.glob("analyzers/replay/*.[ch]")
                            if os.path.basename(f) not in DRIVER)
    bad = [f'{f}:{line}: "{text[:60]}"' for f in files for line, text in prose(f)]
    if bad:
        print("English in the model (write/ says it; the model records enums and numbers):",
              *bad, sep="\n  ", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
