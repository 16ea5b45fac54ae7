# SPDX-License-Identifier: MIT
"""tests/tools/func_lengths.py LIMIT FILE...: the functions of C files longer than LIMIT
lines (signature to closing brace), one per line; exit status 1 when there is one."""
import re, sys
res=[]
limit = int(sys.argv[1])
for f in sys.argv[2:]:
    L=open(f).read().split('\n')
    i=0
    while i < len(L):
        if re.match(r'^[a-z].*\)\s*$', L[i]) and i+1 < len(L) and L[i+1] == '{':
            name = re.search(r'(\w+)\s*\(', L[i]); j=i+1
            while j < len(L) and L[j] != '}': j+=1
            res.append((j-i+1, f, name.group(1) if name else L[i]))
            i=j
        elif re.match(r'^[a-z].*\($', L[i]) or re.match(r'^[a-z].*,$', L[i]):
            # multi-line signature
            k=i
            while k < len(L) and not L[k].rstrip().endswith(')'): k+=1
            if k+1 < len(L) and L[k+1]=='{':
                name = re.search(r'(\w+)\s*\(', L[i]); j=k+1
                while j < len(L) and L[j] != '}': j+=1
                res.append((j-i+1, f, name.group(1) if name else L[i])); i=j
        i+=1
long = [r for r in sorted(res, reverse=True) if r[0] > limit]
for n, f, name in long:
    print("%s: %s is %d lines (at most %d)" % (f, name, n, limit))
sys.exit(1 if long else 0)
