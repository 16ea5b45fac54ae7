#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Moves a trailing /* comment */ that pushes its line past 100 columns (tabs
at 8) onto its own lines above the code, wrapped at 100; used by
tests/tools/wrap.sh before clang-format wraps what code is still too wide."""
import re
import sys
import textwrap

LIMIT = 100


def width(s):
    return len(s.expandtabs(8))


def fix(lines):
    out = []
    for ln in lines:
        m = re.match(r'^(\s*)(.*?\S)\s+/\*\s?(.*?)\s*\*/\s*$', ln)
        quotes = m and len(re.findall(r'(?<!\\)"', m.group(2))) % 2
        if width(ln) <= LIMIT or not m or '/*' in m.group(2) or quotes or m.group(2).startswith('#'):
            out.append(ln)
            continue
        indent, code, text = m.groups()
        room = LIMIT - width(indent) - 3
        parts = textwrap.wrap(text, room - 3) or [""]
        if len(parts) == 1 and width(indent + "/* " + parts[0] + " */") <= LIMIT:
            out.append(indent + "/* " + parts[0] + " */")
        else:
            out.append(indent + "/* " + parts[0])
            out.extend(indent + " * " + p for p in parts[1:-1])
            out.append(indent + " * " + parts[-1] + " */" if len(parts) > 1 else "")
        out.append(indent + code)
    return out


for path in sys.argv[1:]:
    with open(path) as f:
        lines = f.read().split("\n")
    new = fix(lines)
    if new != lines:
        with open(path, "w") as f:
            f.write("\n".join(new))
