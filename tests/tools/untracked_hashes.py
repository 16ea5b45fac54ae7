# SPDX-License-Identifier: MIT
"""Recounts what provenance.json says of a repository's untracked files from the files
themselves: size and modification time; a plain SHA-256 for a file that does not look
secret; for one that does (left_out says so), no plain hash but an HMAC-SHA256 under the
per-user key; and no file under the given folders holding a secret-looking file's plain
SHA-256.

    python3 untracked_hashes.py PROVENANCE.json WORKDIR KEYFILE DIR...

Prints one line per file: path, bytes, mtime, the hash it was given; exits 1 on a mismatch."""
import datetime
import hashlib
import hmac
import json
import os
import sys


def plain_hash_holders(digest, dirs):
    """The files under dirs whose bytes hold digest (hex, as text)."""
    found = []
    for d in dirs:
        for root, _, names in os.walk(d):
            for n in names:
                p = os.path.join(root, n)
                if not os.path.islink(p) and digest.encode() in open(p, "rb").read():
                    found.append(p)
    return found


def main():
    prov = json.load(open(sys.argv[1]))
    work, keyfile, dirs = sys.argv[2], sys.argv[3], sys.argv[4:]
    key = bytes.fromhex(open(keyfile).read().strip())
    bad = 0
    for f in prov["repositories"][0]["untracked_files"]:
        path = os.path.join(work, f["path"])
        data = open(path, "rb").read()
        st = os.stat(path)
        mtime = datetime.datetime.fromtimestamp(int(st.st_mtime), datetime.timezone.utc)
        secret = (f["left_out"] or "").startswith(("its name looks secret", "its contents look secret"))
        want = {"bytes": len(data), "mtime": mtime.strftime("%Y-%m-%dT%H:%M:%SZ")}
        plain = hashlib.sha256(data).hexdigest()
        if secret:
            want.update(sha256=None, hmac_key="per-user",
                        hmac_sha256=hmac.new(key, data, hashlib.sha256).hexdigest())
            holders = plain_hash_holders(plain, dirs)
            if holders:
                print("%s: its plain SHA-256 is in %s" % (f["path"], ", ".join(holders)))
                bad = 1
        else:
            want.update(sha256=plain)
        for k, v in want.items():
            if f.get(k) != v:
                print("%s: %s is %r, the file says %r" % (f["path"], k, f.get(k), v))
                bad = 1
        print(f["path"], want["bytes"], want["mtime"], want.get("hmac_sha256") or want["sha256"])
    sys.exit(bad)


main()
