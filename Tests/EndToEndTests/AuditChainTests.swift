import Foundation
import LiveTestSupport
import TestThreads
import Testing

/// `permission-server audit verify` on a database the built server wrote: intact (agreeing
/// with the independent Python verifier of docs/audit-chain.md), then pointing at a row edited or
/// deleted with the sqlite3 shell; never writing the file.
@Suite(.serialized, .timeLimit(.minutes(2)), .startsProcesses)
struct AuditChainTests {
    static func verify(_ database: String) throws -> ProcessResult {
        try Subprocess.run(Paths.serverBinary, ["audit", "verify", "--database", database], timeout: 30)
    }

    static func python(_ database: String) throws -> ProcessResult {
        let script = Paths.repositoryRoot.appendingPathComponent("scripts/verify-audit-chain.py").path
        return try Subprocess.run(Paths.python, [script, database], timeout: 30)
    }

    @Test("audit verify reports an intact chain, then the edited and the deleted entry")
    func verifySubcommand() throws {
        let directory = try Paths.makeTemporaryDirectory("chain")
        defer { Paths.removeTemporary(directory) }
        let database = directory.appendingPathComponent("chain.sqlite").path
        do {
            let server = try ServerProcess(database: database, directory: directory)
            defer { server.killNow() }
            try DurabilityTests.registerApp(server)
            for user in 1...6 {
                let write = try Subprocess.adminCurl([
                    "-sf", "-X", "PUT", "-H", "Content-Type: application/json", "--data", #"{"status": "denied"}"#,
                    "\(server.baseURL)/v1/users/u\(user)/apps/\(DurabilityTests.app)/authorizations/camera",
                ])
                #expect(write.status == 0, "\(write.stderr)")
            }
            server.send(SIGTERM)
            #expect(server.waitForExit(timeout: 10) == 0)
        }
        let intact = try Self.verify(database)
        #expect(intact.status == 0, "\(intact.stderr)")
        let count = try Subprocess.run(Paths.sqlite3, [database, "SELECT count(*) FROM audit"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Int(count) ?? 0 >= 7)
        #expect(intact.stdout.contains("audit chain intact: \(count) of \(count) entries"), "\(intact.stdout)")
        let independent = try Self.python(database)
        #expect(independent.status == 0, "\(independent.stdout)")
        #expect(independent.stdout.contains("intact: \(count) entries"), "\(independent.stdout)")
        // The head hash both print is the same.
        let head = intact.stdout.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(head.map { independent.stdout.contains($0) } == true)

        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let edit = try Subprocess.run(
            Paths.sqlite3,
            [
                database, "DROP TRIGGER audit_never_updated; UPDATE audit SET to_status = 'authorized' WHERE seq = 4",
            ])
        #expect(edit.status == 0, "\(edit.stderr)")
        let edited = try Self.verify(database)
        #expect(edited.status == 1)
        #expect(edited.stdout.contains("broken at seq 4 (hashMismatch)"), "\(edited.stdout)")
        #expect(try Self.python(database).stdout.contains("broken at seq 4: hashMismatch"))
        #expect(before != (try Data(contentsOf: URL(fileURLWithPath: database))))

        let delete = try Subprocess.run(
            Paths.sqlite3,
            [
                database, "DROP TRIGGER audit_never_deleted; DELETE FROM audit WHERE seq = 2",
            ])
        #expect(delete.status == 0, "\(delete.stderr)")
        let afterDelete = try Data(contentsOf: URL(fileURLWithPath: database))
        let gap = try Self.verify(database)
        #expect(gap.status == 1)
        #expect(gap.stdout.contains("broken at seq 2 (seqGap): 1 of"), "\(gap.stdout)")
        // Read-only: verify never writes the file.
        #expect(afterDelete == (try Data(contentsOf: URL(fileURLWithPath: database))))
    }
}
