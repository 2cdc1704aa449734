#!/usr/bin/env python3
"""Verify the audit hash chain of a permission-server database independently of the server.

usage: verify-audit-chain.py DATABASE
exit 0 intact, 1 broken, 65 not a permission-server database (or one from before migration
8-sealed-personal-fields), 66 missing or unreadable, 69 served by a running server while on
read-only storage (docs/audit-chain.md). A file on read-only storage is read as immutable.
"""
import fcntl, hashlib, os, sqlite3, struct, sys, urllib.parse

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

def cannot_verify(code, why):
    print(f"cannot verify {path}: {why}", file=sys.stderr)
    sys.exit(code)

def rows(parameter):
    """The audit rows through a read-only (mode=ro) or immutable connection (sqlite.org/uri.html)."""
    db = sqlite3.connect(f"file:{urllib.parse.quote(os.path.abspath(path))}?{parameter}", uri=True)
    columns = {column[1] for column in db.execute("PRAGMA table_info(audit)")}
    if {"prev_hash", "hash"} - columns:
        cannot_verify(65, "no audit log with a hash chain (not a permission-server database)")
    if set(COLUMNS) - columns:
        cannot_verify(65, "a database from before migration 8-sealed-personal-fields: "
                          "verify a copy migrated with permission-server migrate")
    return db.execute(f"SELECT {', '.join(COLUMNS)}, hash FROM audit ORDER BY seq")

path = sys.argv[1]
if not os.path.isfile(path):
    cannot_verify(66, "no such file")
previous, expected = "0" * 64, 1
try:
    try:
        audit = rows("mode=ro")
    except sqlite3.OperationalError:
        # Read-only storage: a WAL-mode reader cannot make its -shm. A backup has no -wal to miss.
        if os.access(path, os.W_OK) and os.access(os.path.dirname(os.path.abspath(path)), os.W_OK):
            raise
        if os.path.exists(path + "-wal") and os.path.getsize(path + "-wal") > 0:
            cannot_verify(66, "read-only storage, and its -wal holds changes: copy both to writable storage")
        # A running server holds an exclusive flock on the file: read without SQLite's locks,
        # its next checkpoint could change the file under the read.
        with open(path, "rb") as held:
            try:
                fcntl.flock(held, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                cannot_verify(69, "a permission-server is serving it; verify it where it is writable, or stop the server")
        audit = rows("immutable=1")
    for *row, stored in audit:
        seq, prev = row[0], row[-1]
        reason = ("seqGap" if seq != expected else "prevMismatch" if prev != previous
                  else "hashMismatch" if hashlib.sha256(encode(row)).hexdigest() != stored else None)
        if reason:
            print(f"broken at seq {expected}: {reason}")
            sys.exit(1)
        previous, expected = stored, expected + 1
except sqlite3.DatabaseError as error:  # SQLITE_NOTADB (26) or SQLITE_CORRUPT (11): not a database
    cannot_verify(65 if getattr(error, "sqlite_errorcode", 0) & 0xFF in (11, 26) else 66, error)
print(f"intact: {expected - 1} entries, head {previous}")
