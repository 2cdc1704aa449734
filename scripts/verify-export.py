#!/usr/bin/env python3
"""Verify a user's export (GET /v1/users/{user}/export) offline, independently of the server.

usage: verify-export.py EXPORT [--database FILE]   (EXPORT may be - for standard input)

Without --database: every audit entry's hash is recomputed from its stored values and its
previous hash, the entries come in increasing seq, none after the head, and the entry at the
head (when it is the user's) has the head's hash.
With --database FILE (the server's SQLite file, opened read-only): each entry is the one stored
at its seq, and the chain from seq 1 to the head is intact and ends in the head's hash.

The canonical encoding's tag and column list come from the document (auditEncoding), not from
this script, so a new storage format needs no change here (docs/walkthrough.md, "Exporting a user's data").
Exit 0 verified, 1 not, 2 unusable input.
"""
import hashlib, json, sqlite3, struct, sys


class Broken(Exception):
    pass


def encode(tag, values):
    out = bytearray(tag.encode("utf-8"))
    for value in values:
        if value is None:
            out += b"\x00"
        elif isinstance(value, bool):
            raise Broken(f"a stored value is a boolean: {value!r}")
        elif isinstance(value, int):
            out += b"\x01" + struct.pack(">q", value)
        elif isinstance(value, str):
            data = value.encode("utf-8")
            out += b"\x02" + struct.pack(">I", len(data)) + data
        else:
            raise Broken(f"a stored value is neither null, an integer nor a string: {value!r}")
    return bytes(out)


def digest(tag, values):
    return hashlib.sha256(encode(tag, values)).hexdigest()


def verify_document(export):
    encoding = export["auditEncoding"]
    tag, columns, genesis = encoding["tag"], encoding["columns"], encoding["genesis"]
    if encoding.get("digest", "sha256") != "sha256":
        raise Broken(f"unknown digest {encoding['digest']!r}")
    if "seq" not in columns or "prev_hash" not in columns:
        raise Broken("auditEncoding.columns lacks seq or prev_hash")
    seq_at, prev_at = columns.index("seq"), columns.index("prev_hash")
    head = export["head"]
    previous_seq = 0
    for item in export["audit"]:
        seq, stored = item["seq"], item["stored"]
        where = f"seq {seq}"
        if len(stored) != len(columns):
            raise Broken(f"{where}: {len(stored)} stored values for {len(columns)} columns")
        if stored[seq_at] != seq or item["entry"]["seq"] != seq:
            raise Broken(f"{where}: the stored seq is {stored[seq_at]}, the entry's {item['entry']['seq']}")
        if seq <= previous_seq:
            raise Broken(f"{where}: not after seq {previous_seq}")
        if seq > head["seq"]:
            raise Broken(f"{where}: after the head (seq {head['seq']})")
        if stored[prev_at] != item.get("prevHash") or (seq == 1 and item.get("prevHash") != genesis):
            raise Broken(f"{where}: prevHash is not the stored previous hash")
        if digest(tag, stored) != item.get("hash"):
            raise Broken(f"{where}: hash mismatch (the stored values do not give the entry's hash)")
        if item["entry"].get("hash") not in (None, item["hash"]) or item["entry"].get("user") != export["user"]:
            raise Broken(f"{where}: the readable entry is not this entry of {export['user']}")
        if seq == head["seq"] and item["hash"] != head["hash"]:
            raise Broken(f"{where}: the head's hash is not this entry's")
        previous_seq = seq
    return tag, columns, genesis, head


def verify_database(path, tag, columns, genesis, head, export):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    select = ", ".join('"' + column.replace('"', '""') + '"' for column in columns)
    wanted = {item["seq"]: item for item in export["audit"]}
    previous, expected = genesis, 1
    rows = db.execute(f"SELECT {select}, hash FROM audit WHERE seq <= ? ORDER BY seq", (head["seq"],))
    for *row, stored_hash in rows:
        seq, prev = row[columns.index("seq")], row[columns.index("prev_hash")]
        if seq != expected:
            raise Broken(f"database: seq {expected} is missing")
        if prev != previous:
            raise Broken(f"database: seq {seq}: prevMismatch")
        if digest(tag, row) != stored_hash:
            raise Broken(f"database: seq {seq}: hashMismatch")
        item = wanted.pop(seq, None)
        if item is not None and (item["stored"] != row or item["hash"] != stored_hash):
            raise Broken(f"seq {seq}: not the entry the database stores at that seq")
        previous, expected = stored_hash, expected + 1
    if expected - 1 != head["seq"] or previous != head["hash"]:
        raise Broken(f"database: the chain ends at seq {expected - 1}, not at the head (seq {head['seq']})")
    if wanted:
        raise Broken(f"seq {min(wanted)}: not in the database")


def main(argv):
    args, database = list(argv), None
    if "--database" in args:
        at = args.index("--database")
        if at + 1 >= len(args):
            print(__doc__, file=sys.stderr)
            return 2
        database = args[at + 1]
        del args[at:at + 2]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        source = sys.stdin if args[0] == "-" else open(args[0], encoding="utf-8")
        with source:
            export = json.load(source)
        export["auditEncoding"], export["head"], export["audit"], export["user"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"unusable export: {error}", file=sys.stderr)
        return 2
    try:
        tag, columns, genesis, head = verify_document(export)
        if database is not None:
            verify_database(database, tag, columns, genesis, head, export)
    except Broken as failure:
        print(f"not verified: {failure}")
        return 1
    except (KeyError, TypeError, ValueError) as error:
        print(f"not verified: malformed export ({error!r})")
        return 1
    except sqlite3.Error as error:
        print(f"unusable database: {error}", file=sys.stderr)
        return 2
    against = f"; the chain in {database} is intact from seq 1 to the head" if database else ""
    print(f"verified: {len(export['audit'])} entries of {export['user']}, head {head['seq']} {head['hash']}{against}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
