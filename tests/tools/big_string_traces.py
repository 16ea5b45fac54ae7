#!/usr/bin/env python3
# big_string_traces.py DIR: gzip traces each holding one huge JSON string, for
# tests/e2e/bounds.sh: bomb.json.gz (a 1 GiB event name) and str8/16/32.json.gz (an 8, 16
# or 32 MB string in args).
import gzip
import os
import sys

os.chdir(sys.argv[1])
with gzip.open("bomb.json.gz", "wb", compresslevel=6) as f:
    f.write(b'{"traceEvents":[{"name":"')
    chunk = b"a" * (1 << 24)
    for i in range(64):
        f.write(chunk)
    f.write(b'","ph":"X","ts":1,"dur":1}]}')
for mb in (8, 16, 32):
    with gzip.open("str%d.json.gz" % mb, "wb", compresslevel=1) as f:
        f.write(b'{"traceEvents":[{"name":"x","ph":"X","ts":1,"dur":1,"args":{"s":"' + b"b" * (mb << 20) + b'"}}]}')
