# SPDX-License-Identifier: MIT
"""json_server.py DIR PID: answers the json and rows lookups of one test script
(tests/lib.sh), so that its hundreds of lookups start one python3, not one each.

Once its FIFOs are open it says "ready" on DIR/out. Requests come on the FIFO DIR/in, five
NUL-terminated fields each: an id (letters, digits, dots), the operation ("json": evaluate a
Python expression on the parsed JSON document j; "sql": the first column of the first row of
a query on a SQLite file, read-only), an absolute file path, the expression or query, and
nothing (reserved). The answer goes to the file DIR/r.ID, whole (renamed into place): its
status on the first line, then the bytes `print` would write; a failure's traceback to
DIR/e.ID before it. Then a line on DIR/out rings for it: the caller that reads another's
looks for its own file all the same; for a second after an answer it rings every 0.1 s more
(a caller's timed read that missed its alarm still wakes). An answer's files go 1024 answers
later. The server ends,
removing DIR, when PID (the script) is gone or on the operation "quit"."""
import builtins
import contextlib
import json
import os
import select
import shutil
import sqlite3
import sys
import time
import traceback


def answer(op, path, arg):
    """(status, output, error) of one lookup, as `python3 -c` of the same code gives them."""
    try:
        if op == "json":
            with open(path) as f:
                j = json.load(f)
            return 0, "%s\n" % (eval(arg, {"__builtins__": builtins, "json": json, "sys": sys, "j": j}),), ""
        if op == "sql":
            with contextlib.closing(sqlite3.connect("file:" + path + "?mode=ro", uri=True)) as c:
                return 0, "%s\n" % (c.execute(arg).fetchone()[0],), ""
        return 2, "", "json_server.py: no operation %r\n" % op
    except BaseException:  # the caller sees the traceback, as from its own python3
        return 1, "", traceback.format_exc()


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def serve(d, pid):
    # both FIFOs held open read-write: opening them never blocks either side
    fin = os.open(os.path.join(d, "in"), os.O_RDWR)
    fout = os.open(os.path.join(d, "out"), os.O_RDWR)
    os.write(fout, b"ready\n")  # a request written before both were open would be lost
    os.set_blocking(fout, False)  # rings nobody took never stop the server
    buf, done = b"", []
    # a second after an answer, the server rings every 0.1 s more: a caller whose `read -t`
    # missed its alarm (bash 5.2 left one blocked on the FIFO for good, the suite hung) wakes
    ring_until = 0.0
    while True:
        now = time.monotonic()
        ready, _, _ = select.select([fin], [], [], 0.1 if now < ring_until else 2.0)
        if not ready:
            if now < ring_until:
                with contextlib.suppress(BlockingIOError):
                    os.write(fout, b"\n")
            elif not alive(pid):
                return
            continue
        ring_until = time.monotonic() + 1.0
        buf += os.read(fin, 1 << 16)
        while buf.count(b"\0") >= 5:
            rid, op, path, arg, _, buf = buf.split(b"\0", 5)
            rid, op = rid.decode(), op.decode()
            if op == "quit":
                return
            if not rid.replace(".", "").isalnum():
                continue
            st, out, err = answer(op, os.fsdecode(path), arg.decode("utf-8", "surrogateescape"))
            if err:
                with open(os.path.join(d, "e." + rid), "w", encoding="utf-8", errors="surrogateescape") as f:
                    f.write(err)
            tmp = os.path.join(d, "t." + rid)
            with open(tmp, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write("%d\n%s" % (st, out))
            os.rename(tmp, os.path.join(d, "r." + rid))
            with contextlib.suppress(BlockingIOError):
                os.write(fout, b"\n")
            done.append(rid)
            if len(done) > 1024:
                old = done.pop(0)
                for name in ("r." + old, "e." + old):
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(os.path.join(d, name))


def main():
    d, pid = sys.argv[1], int(sys.argv[2])
    try:
        serve(d, pid)
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
