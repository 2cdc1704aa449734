#!/usr/bin/env python3
"""Verify a user's export (GET /v1/users/{user}/export) offline, independently of the server.

usage: verify-export.py EXPORT [--database FILE]   (EXPORT may be - for standard input)

Without --database: every audit entry's hash is recomputed from its stored values and its
previous hash, the entries come in increasing seq, none after the head, the entry at the head
(when it is the user's) has the head's hash, all of them are under one pseudonym, and each
readable entry says what its stored values say (its purpose text hashing to the stored
purpose hash). The user id, purpose text and detail are sealed under the user's key in the
stored form, so offline nothing shows that the entries are this user's rather than another's,
nor that none was left out; the consent records, prompts and settings are the server's current
state, which no chain covers.
With --database FILE (the server's SQLite file, opened read-only) also: each entry is the one
stored at its seq, the chain from seq 1 to the head is intact and ends in the head's hash, the
entries are under the database's pseudonym of the user, every entry about the user up to the
head is in the export, and, unless the user's state changed after the export, the consent
records, prompts and settings are the database's.

The canonical encoding's tag and column list come from the document (auditEncoding), not from
this script, so a new storage format needs no change here (docs/walkthrough.md, "Exporting a user's data").
Exit 0 verified, 1 not, 2 unusable input.
"""
import calendar, datetime, hashlib, json, os, sqlite3, struct, sys, urllib.parse


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


def millis(text):
    """An RFC 3339 UTC time as the server writes it (2026-11-27T22:25:34.170Z) in Unix milliseconds."""
    stamp = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ" if "." in text else "%Y-%m-%dT%H:%M:%SZ")
    return calendar.timegm(stamp.timetuple()) * 1000 + stamp.microsecond // 1000


def readable_values(entry):
    """What each stored column holds for the readable entry; columns sealed in the stored form
    (purpose, detail, personal) or not shown are absent."""
    actor = entry.get("actor") or {}
    values = {
        "seq": entry.get("seq"), "at": millis(entry["at"]), "actor_key": actor.get("keyId"),
        "actor_role": actor.get("role"), "action": entry.get("action"), "user": entry.get("pseudonym"),
        "app": entry.get("app"), "service": entry.get("service"), "reason": entry.get("reason"),
        "purpose_hash": entry.get("purposeHash"), "prompt_id": entry.get("promptId"),
        "request_id": entry.get("requestId"), "prev_hash": entry.get("prevHash"),
    }
    for side in ("from", "to"):
        state = entry.get(side)
        values[side + "_status"] = state.get("status") if state else None
        values[side + "_level"] = state.get("level") if state else None
        for flag in ("provisional", "once"):
            values[side + "_" + flag] = int(state[flag]) if state and flag in state else None
    return values


def check_readable(where, entry, columns, stored):
    for column, value in readable_values(entry).items():
        if column in columns and stored[columns.index(column)] != value:
            raise Broken(f"{where}: the readable entry's {column} is not the stored one")
    purpose = entry.get("purpose")
    if purpose is not None:
        if "purpose_hash" in columns and hashlib.sha256(purpose.encode("utf-8")).hexdigest() != stored[columns.index("purpose_hash")]:
            raise Broken(f"{where}: the readable purpose does not hash to the stored purpose hash")
        if "purpose" in columns and stored[columns.index("purpose")] not in (None, purpose):
            raise Broken(f"{where}: the readable purpose is not the stored one")


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
        check_readable(where, item["entry"], columns, stored)
        previous_seq = seq
    if "user" in columns and len({item["stored"][columns.index("user")] for item in export["audit"]}) > 1:
        raise Broken("the entries are under more than one pseudonym")
    return tag, columns, genesis, head


def verify_database(path, tag, columns, genesis, head, export):
    db = sqlite3.connect(f"file:{urllib.parse.quote(os.path.abspath(path))}?mode=ro", uri=True)
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
    return verify_coverage(db, columns, head, export)


def verify_coverage(db, columns, head, export):
    """The entries are all of the user's up to the head, and the state is the database's unless
    it changed since; returns what was compared, for the verdict."""
    user = export["user"]
    subject = db.execute("SELECT pseudonym FROM audit_subjects WHERE user = ?", (user,)).fetchone()
    pseudonyms = {item["stored"][columns.index("user")] for item in export["audit"]} if "user" in columns else set()
    if subject is None:
        if pseudonyms:
            raise Broken(f"the database holds no key of {user}: not this user's entries, or the user was erased since")
        return "; the database holds nothing about the user in its audit log"
    pseudonym = subject[0]
    if pseudonyms and pseudonyms != {pseudonym}:
        raise Broken(
            f"the entries are under {min(pseudonyms)}, not {user}'s pseudonym in the database: not this user's"
            " entries, or the user was erased and written again since the export")
    exported = {item["seq"] for item in export["audit"]}
    about = {row[0] for row in db.execute("SELECT seq FROM audit WHERE user = ? AND seq <= ?", (pseudonym, head["seq"]))}
    if about - exported:
        raise Broken(f"seq {min(about - exported)}: an entry about {user} that the export leaves out")
    later = db.execute("SELECT count(*) FROM audit WHERE user = ? AND seq > ?", (pseudonym, head["seq"])).fetchone()[0]
    if later:
        return f"; every entry about {user} is in it ({later} more after the head: the records, prompts and settings were not compared)"
    records = {
        (row[0], row[1]): (row[2], row[3], row[4], row[5])
        for row in db.execute(
            "SELECT app, service, version, purpose, purpose_language, updated_at FROM authorizations WHERE user = ?", (user,))
    }
    shown = {}
    for record in export["consentRecords"]:
        purpose = record.get("purpose") or {}
        given = record.get("givenAt")
        shown[(record["controller"]["id"], record["dataCategory"])] = (
            record.get("version"), purpose.get("text"), purpose.get("language"), millis(given) if given else None)
        if record.get("principal") != user:
            raise Broken(f"a consent record names {record.get('principal')}, not {user}")
    if shown != records:
        differing = sorted(set(shown) ^ set(records) or {key for key in shown if shown[key] != records[key]})
        raise Broken(f"the consent record of {differing[0][0]} {differing[0][1]} is not the database's")
    prompts = {row[0]: row[1] for row in db.execute("SELECT id, choice FROM prompts WHERE user = ?", (user,))}
    exported_prompts = {prompt["id"]: prompt for prompt in export["prompts"]}
    if any(key not in exported_prompts or exported_prompts[key].get("choice") != choice for key, choice in prompts.items()):
        raise Broken("the prompts are not the database's")
    # An ended prompt is deleted after --ended-retention, with no audit entry (the log keeps
    # what happened): one the export has and the database no longer does is that, when the
    # export's own entries (checked against the database above) made it and ended it so.
    purged = [key for key in exported_prompts if key not in prompts]
    for key in purged:
        if not ended_in_the_log(exported_prompts[key], export["audit"]):
            raise Broken("the prompts are not the database's")
    settings = db.execute("SELECT location_services_enabled, locale FROM user_settings WHERE user = ?", (user,)).fetchone()
    expected = {"locationServicesEnabled": bool(settings[0]), "locale": settings[1]} if settings else {
        "locationServicesEnabled": True, "locale": None}
    if {key: export["settings"].get(key) for key in expected} != expected:
        raise Broken("the settings are not the database's")
    deleted = f" ({len(purged)} ended prompt(s) since deleted by the retention)" if purged else ""
    return f"; every entry about {user} is in it, and its records, prompts and settings are the database's{deleted}"


ENDINGS = {"answered": "prompt.answered", "expired": "prompt.expired", "cancelled": "prompt.cancelled"}


def ended_in_the_log(prompt, audit):
    """Whether the entries say `prompt` was made and ended as the export shows it (answered
    with its choice, expired or cancelled)."""
    entries = [item["entry"] for item in audit if item["entry"].get("promptId") == prompt.get("id")]
    ending = ENDINGS.get(prompt.get("state"))
    made = any(entry.get("action") == "prompt.created" for entry in entries)
    ended = [entry for entry in entries if entry.get("action") == ending]
    if not made or not ended:
        return False
    return prompt.get("state") != "answered" or any(
        (entry.get("detail") or {}).get("choice") == prompt.get("choice") for entry in ended)


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
        covered = ""
        if database is not None:
            covered = verify_database(database, tag, columns, genesis, head, export)
    except Broken as failure:
        print(f"not verified: {failure}")
        return 1
    except (KeyError, TypeError, ValueError) as error:
        print(f"not verified: malformed export ({error!r})")
        return 1
    except sqlite3.Error as error:
        print(f"unusable database: {error}", file=sys.stderr)
        return 2
    against = (
        f"; the chain in {database} is intact from seq 1 to the head{covered}" if database
        else " (offline: not that these are all of the user's entries, nor the records, prompts and settings: --database checks them)")
    print(f"verified: {len(export['audit'])} entries of {export['user']}, head {head['seq']} {head['hash']}{against}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
