import Foundation
import LiveTestSupport
import TestThreads
import Testing

/// `scripts/verify-export.py` on a real server's export of a user: verified on its own and
/// against the database file, then refused for copies tampered with in each way it checks
/// (a stored value, an entry's hash, the order, an entry after the head, a readable field that
/// is not the stored one; against the database: a stored value that is not the database's, an
/// entry left out, another user's name, the records and settings), and for a database whose
/// chain was edited.
@Suite(.serialized, .timeLimit(.minutes(2)), .startsProcesses)
struct ExportVerificationTests {
    static func verify(_ arguments: [String]) throws -> ProcessResult {
        let script = Paths.repositoryRoot.appendingPathComponent("scripts/verify-export.py").path
        return try Subprocess.run(Paths.python, [script] + arguments, timeout: 30)
    }

    /// Rewrites the export at `path` with the Python `change` (a statement on `d`, the document) into `to`.
    static func tamper(_ path: String, _ change: String, to copy: String) throws {
        let script = "import json, sys\nd = json.load(open(sys.argv[1]))\n\(change)\njson.dump(d, open(sys.argv[2], 'w'))"
        let result = try Subprocess.python(script, [path, copy])
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// Runs `body` with a server on a new database (in a temporary directory named after `name`)
    /// with the camera app registered, the database's path, and where u1's export is to go.
    static func withServer(
        _ name: String, _ body: (ServerProcess, _ database: String, _ exportPath: String, _ directory: URL) throws -> Void
    ) throws {
        let directory = try Paths.makeTemporaryDirectory(name)
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("export.sqlite").path
        let server = try ServerProcess(database: database, directory: directory)
        defer { server.killNow() }
        try DurabilityTests.registerApp(server)
        try body(server, database, directory.appendingPathComponent("u1.json").path, directory)
    }

    @Test(
        "against the database, an ended prompt the retention deleted since the export is said to be so, not taken for tampering; a prompt changed or kept back is refused"
    )
    func aPromptDeletedByTheRetentionIsNoTampering() throws {
        try Self.withServer("export-retention") { server, database, exportPath, directory in
            let path = "\(server.baseURL)/v1/users/u1/apps/\(DurabilityTests.app)/authorizations/camera"
            let requested = try Subprocess.adminCurl([
                "-sf", "-X", "POST", "-H", "Content-Type: application/json", "--data", #"{"level": "full"}"#, path + "/request",
            ])
            #expect(requested.status == 0, "\(requested.stderr)")
            let id = try #require(
                try JSONSerialization.jsonObject(with: Data(requested.stdout.utf8)) as? [String: Any]
            ).flatMap { ($0["prompt"] as? [String: Any])?["id"] as? String }
            let prompt = try #require(id, "\(requested.stdout)")
            let decided = try Subprocess.adminCurl([
                "-sf", "-X", "POST", "-H", "Content-Type: application/json", "--data", #"{"choice": "allow"}"#,
                "\(server.baseURL)/v1/prompts/\(prompt)/decision",
            ])
            #expect(decided.status == 0, "\(decided.stderr)")
            let fetched = try Subprocess.adminCurl(["-sf", "-o", exportPath, "\(server.baseURL)/v1/users/u1/export"])
            #expect(fetched.status == 0, "\(fetched.stderr)")
            let before = try Self.verify([exportPath, "--database", database])
            #expect(before.status == 0 && !before.stdout.contains("deleted"), "\(before.stdout)\(before.stderr)")
            let copy = directory.appendingPathComponent("tampered.json").path
            try Self.tamper(exportPath, "d['prompts'][0]['choice'] = 'deny'", to: copy)
            let changed = try Self.verify([copy, "--database", database])
            #expect(changed.status == 1 && changed.stdout.contains("the prompts are not the database's"), "\(changed.stdout)")
            try Self.tamper(exportPath, "d['prompts'] = []", to: copy)
            let kept = try Self.verify([copy, "--database", database])
            #expect(kept.status == 1 && kept.stdout.contains("the prompts are not the database's"), "\(kept.stdout)")

            // What the retention's purge does: the ended prompt's row goes, with no audit entry.
            let purged = try Subprocess.run(Paths.sqlite3, [database, "DELETE FROM prompts WHERE id = '\(prompt)'"])
            #expect(purged.status == 0, "\(purged.stderr)")
            let after = try Self.verify([exportPath, "--database", database])
            #expect(after.status == 0, "\(after.stdout)\(after.stderr)")
            #expect(after.stdout.contains("1 ended prompt(s) since deleted by the retention"), "\(after.stdout)")
            try Self.tamper(exportPath, "d['prompts'][0]['state'] = 'pending'", to: copy)
            let pending = try Self.verify([copy, "--database", database])
            #expect(pending.status == 1, "a pending prompt is never purged: \(pending.stdout)")
            // What the log does not show: another choice, an invented prompt, with the settings
            // still compared when a prompt is gone.
            let forgeries: [(String, String)] = [
                ("another choice", "d['prompts'][0]['choice'] = 'deny'"),
                ("an invented prompt", "p = dict(d['prompts'][0]); p['id'] = 'p-invented'; d['prompts'].append(p)"),
                ("the settings", "d['settings']['locationServicesEnabled'] = False"),
            ]
            for (name, change) in forgeries {
                try Self.tamper(exportPath, change, to: copy)
                let refused = try Self.verify([copy, "--database", database])
                #expect(refused.status == 1, "\(name): \(refused.stdout)")
            }
        }
    }

    @Test("an export verifies offline and against the database; every tampered copy is refused")
    func exportVerifies() throws {
        try Self.withServer("export") { server, database, exportPath, directory in
            for (user, status) in [("u1", "denied"), ("u2", "denied"), ("u1", "authorized\", \"level\": \"full")] {
                let write = try Subprocess.adminCurl([
                    "-sf", "-X", "PUT", "-H", "Content-Type: application/json", "--data", #"{"status": "\#(status)"}"#,
                    "\(server.baseURL)/v1/users/\(user)/apps/\(DurabilityTests.app)/authorizations/camera",
                ])
                #expect(write.status == 0, "\(write.stderr)")
            }
            let fetched = try Subprocess.adminCurl(["-sf", "-o", exportPath, "\(server.baseURL)/v1/users/u1/export"])
            #expect(fetched.status == 0, "\(fetched.stderr)")

            let offline = try Self.verify([exportPath])
            #expect(offline.status == 0, "\(offline.stdout)\(offline.stderr)")
            #expect(offline.stdout.hasPrefix("verified: 2 entries of u1, head "), "\(offline.stdout)")
            let against = try Self.verify([exportPath, "--database", database])
            #expect(against.status == 0, "\(against.stdout)\(against.stderr)")
            #expect(against.stdout.contains("is intact from seq 1 to the head"), "\(against.stdout)")
            // From standard input, as docs/walkthrough.md pipes it.
            let piped = try Subprocess.run(
                "/bin/bash",
                [
                    "-c", "python3 \"$0\" - < \"$1\"",
                    Paths.repositoryRoot.appendingPathComponent("scripts/verify-export.py").path, exportPath,
                ])
            #expect(piped.status == 0, "\(piped.stdout)\(piped.stderr)")

            let copy = directory.appendingPathComponent("tampered.json").path
            let tamperings: [(String, String, String)] = [
                (
                    "a stored value", "d['audit'][0]['stored'][d['auditEncoding']['columns'].index('to_status')] = 'authorized'",
                    "hash mismatch"
                ),
                ("the readable entry's seq", "d['audit'][1]['entry']['seq'] = 1", "the stored seq"),
                ("an entry's hash", "d['audit'][1]['hash'] = '0' * 64", "hash mismatch"),
                ("the order", "d['audit'].reverse()", "not after seq"),
                ("the head", "d['head']['seq'] = 1", "after the head"),
                ("the head's hash", "d['head']['hash'] = 'f' * 64", "the head's hash"),
                ("a column dropped", "d['auditEncoding']['columns'].pop(1)", "stored values for"),
                ("the tag", "d['auditEncoding']['tag'] = 'permission-audit-v0'", "hash mismatch"),
                ("another user's entry", "d['audit'][0]['entry']['user'] = 'u2'", "not this entry of u1"),
                (
                    "the readable state", "d['audit'][1]['entry']['to']['status'] = 'denied'",
                    "entry's to_status is not the stored"
                ),
                (
                    "the readable action", "d['audit'][1]['entry']['action'] = 'prompt.answered'",
                    "entry's action is not the stored"
                ),
                (
                    "the readable time", "d['audit'][0]['entry']['at'] = '2020-01-01T00:00:00.000Z'",
                    "entry's at is not the stored"
                ),
                (
                    "the readable purpose", "d['audit'][1]['entry']['purpose'] = 'Forged.'",
                    "does not hash to the stored purpose hash"
                ),
            ]
            for (name, change, reason) in tamperings {
                try Self.tamper(exportPath, change, to: copy)
                let refused = try Self.verify([copy])
                #expect(refused.status == 1, "\(name): \(refused.stdout)\(refused.stderr)")
                #expect(refused.stdout.contains(reason), "\(name): \(refused.stdout)")
            }
            // Consistent on its own (the hash recomputed), but not what the database stores.
            try Self.tamper(
                exportPath,
                """
                import hashlib, struct
                def enc(tag, vs):
                    out = bytearray(tag.encode())
                    for v in vs:
                        if v is None: out += b'\\x00'
                        elif isinstance(v, int): out += b'\\x01' + struct.pack('>q', v)
                        else: b = v.encode(); out += b'\\x02' + struct.pack('>I', len(b)) + b
                    return bytes(out)
                item = d['audit'][0]
                item['stored'][d['auditEncoding']['columns'].index('request_id')] = item['entry']['requestId'] = 'forged'
                item['hash'] = item['entry']['hash'] = hashlib.sha256(enc(d['auditEncoding']['tag'], item['stored'])).hexdigest()
                """, to: copy)
            #expect(try Self.verify([copy]).status == 0, "self-consistent")
            let forged = try Self.verify([copy, "--database", database])
            #expect(forged.status == 1 && forged.stdout.contains("not the entry the database stores"), "\(forged.stdout)")
            let covered = "every entry about u1 is in it, and its records, prompts and settings are the database's"
            #expect(against.stdout.contains(covered), "\(against.stdout)")
            #expect(offline.stdout.contains("offline: not that these are all of the user's entries"), "\(offline.stdout)")

            // What offline cannot tell, against the database: left out, another user's, the state.
            let againstDatabase: [(String, String, String)] = [
                ("an entry left out", "d['audit'].pop(0)", "an entry about u1 that the export leaves out"),
                (
                    "another user named", "d['user'] = 'u3'\nfor i in d['audit']: i['entry']['user'] = 'u3'",
                    "the database holds no key of u3"
                ),
                ("a consent record", "d['consentRecords'][0]['version'] = 9", "the consent record of"),
                ("the settings", "d['settings']['locationServicesEnabled'] = False", "the settings are not the database's"),
            ]
            for (name, change, reason) in againstDatabase {
                try Self.tamper(exportPath, change, to: copy)
                #expect(try Self.verify([copy]).status == 0, "\(name): offline, nothing shows")
                let refused = try Self.verify([copy, "--database", database])
                #expect(refused.status == 1 && refused.stdout.contains(reason), "\(name): \(refused.stdout)")
            }
            // A change after the export: the entries are still all there, the state is not compared.
            let later = try Subprocess.adminCurl([
                "-sf", "-X", "PUT", "-H", "Content-Type: application/json", "--data", #"{"status": "denied"}"#,
                "\(server.baseURL)/v1/users/u1/apps/\(DurabilityTests.app)/authorizations/camera",
            ])
            #expect(later.status == 0, "\(later.stderr)")
            let after = try Self.verify([exportPath, "--database", database])
            #expect(after.status == 0 && after.stdout.contains("1 more after the head"), "\(after.stdout)")

            server.send(SIGTERM)
            #expect(server.waitForExit(timeout: 10) == 0)
            let edit = try Subprocess.run(
                Paths.sqlite3,
                [
                    database, "DROP TRIGGER audit_never_updated; UPDATE audit SET service = 'microphone' WHERE seq = 3",
                ])
            #expect(edit.status == 0, "\(edit.stderr)")
            let broken = try Self.verify([exportPath, "--database", database])
            #expect(broken.status == 1 && broken.stdout.contains("database: seq 3: hashMismatch"), "\(broken.stdout)")
            #expect(try Self.verify([directory.appendingPathComponent("missing.json").path]).status == 2)
        }
    }
}
