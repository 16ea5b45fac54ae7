#!/usr/bin/python3
# spdx.py [--fix]: every source file of the tree (C, C++, shell, Python, the Makefiles; not the
# fixtures and corpus, which are data) names its licence in its header comment with the line
# "SPDX-License-Identifier: MIT". Without --fix, names the files that lack it and exits 1;
# with --fix, adds the line to each: at the end of the file's leading comment (after a `#!`
# line), or as a comment of its own on the first line where the file starts with none.
# SPDX-License-Identifier: MIT
import re
import subprocess
import sys

TAG = "SPDX-License-Identifier: MIT"
SOURCE = re.compile(r"(\.(c|h|cc|sh|py)|(^|/)Makefile|^debian/rules)$")
DATA = ("tests/fixtures/", "tests/corpus/")


def sources():
    names = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True)
    return [f for f in names.stdout.split("\n") if SOURCE.search(f) and not f.startswith(DATA)]


def fix_c(text):
    if not text.startswith("/*"):
        return "/* " + TAG + " */\n" + text
    end = text.index("*/")
    line_start = text.rfind("\n", 0, end) + 1
    if text[line_start:end].strip() == "":  # the comment closes on a line of its own
        return text[:line_start] + " * " + TAG + "\n" + text[line_start:]
    return text[:end].rstrip() + "\n * " + TAG + " " + text[end:]


def fix_hash(text):
    lines = text.split("\n")
    i = 1 if lines and lines[0].startswith("#!") else 0
    while i < len(lines) and lines[i].startswith("#") and not lines[i].startswith("#!"):
        i += 1
    lines.insert(i, "# " + TAG)
    return "\n".join(lines)


def header(text, c):
    """The file's leading comment: up to the first comment's end (C), else its leading # lines."""
    if c:
        return text[: text.index("*/")] if text.startswith("/*") else ""
    lines = text.split("\n")
    i = 1 if lines and lines[0].startswith("#!") else 0
    while i < len(lines) and lines[i].startswith("#"):
        i += 1
    return "\n".join(lines[:i])


def main(argv):
    fix = "--fix" in argv
    lacking = []
    for f in sources():
        with open(f, encoding="utf-8") as fh:
            text = fh.read()
        c = re.search(r"\.(c|h|cc)$", f) is not None
        if TAG in header(text, c):
            continue
        if not fix:
            lacking.append(f)
            continue
        text = fix_c(text) if c else fix_hash(text)
        with open(f, "w", encoding="utf-8") as fh:
            fh.write(text)
    for f in lacking:
        print(f"{f}: no '{TAG}' line in its header comment (tests/tools/spdx.py --fix adds it)")
    return 1 if lacking else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
