#!/usr/bin/env python3
# big_string_traces.py DIR: gzip traces each holding one huge JSON string, for
# tests/e2e/bounds.sh: bomb.json.gz (a 1 GiB event name) and str8/16/32.json.gz (an 8, 16
# or 32 MB string in args).
#
# The bomb's 64 chunks of 16 MiB are compressed once: after a full flush the compressor starts
# afresh, so each identical chunk compresses to the same bytes, written 64 times (a valid gzip
# file, its CRC over every byte, for a second of CPU instead of several).
# SPDX-License-Identifier: MIT
import gzip
import os
import struct
import sys
import zlib

os.chdir(sys.argv[1])
head, chunk, tail = b'{"traceEvents":[{"name":"', b"a" * (1 << 24), b'","ph":"X","ts":1,"dur":1}]}'
z = zlib.compressobj(6, zlib.DEFLATED, -15)
first = z.compress(head) + z.flush(zlib.Z_FULL_FLUSH)
body = z.compress(chunk) + z.flush(zlib.Z_FULL_FLUSH)
crc = zlib.crc32(head)
for i in range(64):
    crc = zlib.crc32(chunk, crc)
crc = zlib.crc32(tail, crc)
with open("bomb.json.gz", "wb") as f:
    f.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + first + body * 64 + z.compress(tail) + z.flush())
    f.write(struct.pack("<II", crc, (len(head) + 64 * len(chunk) + len(tail)) & 0xFFFFFFFF))
for mb in (8, 16, 32):
    with gzip.open("str%d.json.gz" % mb, "wb", compresslevel=1) as f:
        f.write(b'{"traceEvents":[{"name":"x","ph":"X","ts":1,"dur":1,"args":{"s":"' + b"b" * (mb << 20) + b'"}}]}')
