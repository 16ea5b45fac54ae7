# SPDX-License-Identifier: MIT
"""tests/tools/join_literals.py [--check]: joins string literals split over lines mid-sentence: a line ending in a
literal and a next line starting with one are one literal, unless the first
ends in \\n (a line of output per source line is searchable as it is) or
joining would change an escape (\\x.. or octal followed by a digit)."""
import re, subprocess, sys

def literal_end_ok(line):
    """True when line ends with the closing quote of a string literal (outside comments)."""
    s = line.rstrip()
    if not s.endswith('"'):
        return False
    inq, i, last_close = False, 0, -1
    while i < len(s):
        c = s[i]
        if inq:
            if c == '\\': i += 2; continue
            if c == '"': inq = False; last_close = i
        else:
            if s.startswith('//', i) or s.startswith('/*', i): return False
            if c == "'":
                j = i + 1
                while j < len(s) and s[j] != "'":
                    j += 2 if s[j] == '\\' else 1
                i = j + 1; continue
            if c == '"': inq = True
        i += 1
    return not inq and last_close == len(s) - 1

start_lit = re.compile(r'^(\s*)"')
def join_file(path, write):
    L = open(path).read().split('\n')
    out, i, n = [], 0, 0
    while i < len(L):
        cur = L[i]
        while i + 1 < len(L) and literal_end_ok(cur) and start_lit.match(L[i + 1]):
            body = cur.rstrip()[:-1]
            nxt = L[i + 1].lstrip()[1:]
            if body.endswith('\\n') and not body.endswith('\\\\n'):
                break
            if re.search(r'\\x[0-9a-fA-F]+$', body) and re.match(r'[0-9a-fA-F]', nxt):
                break
            if re.search(r'\\[0-7]{1,2}$', body) and re.match(r'[0-7]', nxt):
                break
            # the next fragment must be a whole literal start: its line a literal, or a literal then more
            cur = body + nxt
            i += 1; n += 1
        out.append(cur)
        i += 1
    if n and write:
        open(path, 'w').write('\n'.join(out))
    return n

files = subprocess.run(["git", "ls-files", "*.c", "*.h", "*.cc"], capture_output=True, text=True).stdout.split()
check = "--check" in sys.argv[1:]
total = 0
for f in files:
    k = join_file(f, not check)
    if k:
        print("%s: %d literal%s split over lines" % (f, k, "" if k == 1 else "s"))
    total += k
if not check:
    print("joined", total, file=sys.stderr)
sys.exit(1 if check and total else 0)
