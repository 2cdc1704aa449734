import Foundation
import PermissionWire
import TestProcesses
import Testing

/// `GET /v1/audit/verify` over a real database: intact after flows, pointing at the row an
/// attacker edited with the sqlite3 shell (plain SQL on PostgreSQL); audit entries carry their
/// links and purpose hashes.
@Suite struct AuditVerifyEndpointTests {
    private func sqlite3(_ file: String, _ sql: String) throws {
        let done = try ChildProcess.run("/usr/bin/sqlite3", [file, sql], timeout: 60)
        #expect(done.termination == .exited(0), "\(done.standardError)")
    }

    @Test func verifyReportsIntactThenTheEditedEntry() throws {
        let app = try TestApp()
        try app.registerApp()
        let prompt = try app.prompt("camera", "full")
        _ = try app.decide(prompt, "allow")
        _ = try app.grant("microphone", "full", "deny")
        let last = try app.lastSeq()
        #expect(last >= 5)

        let intact = try app.send(.get, "/v1/audit/verify")
        #expect(intact.status == 200)
        let report = try intact.decode(AuditVerification.self)
        #expect(report.valid)
        #expect(report.intactLength == last)
        #expect(report.total == last)
        #expect(report.lastSeq == last)
        let entries = try app.audit()
        #expect(report.headHash == entries.last?.hash)
        #expect(entries.first?.prevHash == String(repeating: "0", count: 64))
        for (earlier, later) in zip(entries, entries.dropFirst()) { #expect(later.prevHash == earlier.hash) }
        let decision = try #require(entries.last { $0.promptId == prompt.id && $0.to?.status == .authorized })
        #expect(decision.purpose == prompt.purpose)
        #expect(decision.purposeHash?.count == 64)

        if let sqlite = app.sqliteStore {
            try sqlite3(sqlite.path, "DROP TRIGGER audit_never_updated; UPDATE audit SET reason = 'userSet' WHERE seq = 3")
        } else {
            try app.executeOnPostgres(
                "ALTER TABLE audit DISABLE TRIGGER audit_never_updated; UPDATE audit SET reason = 'userSet' WHERE seq = 3")
        }
        let broken = try app.send(.get, "/v1/audit/verify").decode(AuditVerification.self)
        #expect(!broken.valid)
        #expect(broken.firstInvalidSeq == 3)
        #expect(broken.reason == .hashMismatch)
        #expect(broken.intactLength == 2)
        #expect(broken.total == last)
    }
}
