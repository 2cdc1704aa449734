#!/usr/bin/env python3
"""Verify the audit hash chain of a permission-server database independently of the server.

usage: verify-audit-chain.py DATABASE   (exit 0 intact, 1 broken; docs/audit-chain.md)
"""
import hashlib, sqlite3, struct, sys

COLUMNS = ["seq", "at", "actor_key", "actor_role", "action", "user", "app", "service",
           "from_status", "from_level", "from_provisional", "from_once",
           "to_status", "to_level", "to_provisional", "to_once",
           "reason", "purpose", "purpose_hash", "prompt_id", "request_id", "detail", "personal", "prev_hash"]

def encode(row):
    out = bytearray(b"permission-audit-v2")
    for value in row:
        if value is None:
            out += b"\x00"
        elif isinstance(value, int):
            out += b"\x01" + struct.pack(">q", value)
        else:
            data = value.encode("utf-8")
            out += b"\x02" + struct.pack(">I", len(data)) + data
    return bytes(out)

db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
previous, expected = "0" * 64, 1
for *row, stored in db.execute(f"SELECT {', '.join(COLUMNS)}, hash FROM audit ORDER BY seq"):
    seq, prev = row[0], row[-1]
    reason = ("seqGap" if seq != expected else "prevMismatch" if prev != previous
              else "hashMismatch" if hashlib.sha256(encode(row)).hexdigest() != stored else None)
    if reason:
        print(f"broken at seq {expected}: {reason}")
        sys.exit(1)
    previous, expected = stored, expected + 1
print(f"intact: {expected - 1} entries, head {previous}")
