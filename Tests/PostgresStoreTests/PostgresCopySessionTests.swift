import Crypto
import Foundation
import PermissionDomain
import PostgresStore
import PostgresTestServer
import StoreTestSupport
import Testing

/// Live: ``PostgresPermissionStore/copyIn(_:)``, what `permission-server copy` writes through,
/// on a real PostgreSQL: audit rows keep their stored chain columns, a row that does not follow
/// the head rolls the whole copy back, and a database holding data is refused.
@Suite struct PostgresCopySessionTests {
    /// SHA-256 as the stores hash the chain, to write records as a source store did.
    private struct Hasher: AuditChainHasher {
        func sha256(_ bytes: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: bytes)) }
    }

    /// Entries about no user are stored as they are: nothing to seal.
    private struct Unsealed: PersonalFieldSealer {
        func seal(_ fields: PersonalFields, seq: Int64) throws -> SealedPersonalFields {
            preconditionFailure("no entry here is about a user")
        }
    }

    /// `count` chained records as a source store wrote them.
    private func chain(_ count: Int) -> [AuditRecord] {
        var tip = AuditChainTip.empty
        return (1...count).map { index in
            let entry = AuditEntry(
                at: Date(millisecondsSince1970: 1_795_000_000_000 + Int64(index)), actor: Actor(keyId: nil, role: "admin"),
                action: AuditAction("test.copy"), app: try? AppID("com.example.a\(index)"), detail: ["b": "2", "a": "1"])
            let record = try! AuditChain(hasher: Hasher()).record(for: entry, after: tip, sealer: Unsealed())
            tip = AuditChainTip(linking: record)
            return record
        }
    }

    @Test func copiedRowsKeepTheirChainAndTheHeadFollowsThem() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let store = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests)
        let records = chain(3)
        try store.copyIn { session in
            try session.insert(into: "apps", [.text("com.example.a"), .text("A"), .int64(1), .null, .null])
            for record in records { try session.appendCopied(record) }
        }
        let report = try store.verifyAuditChain(batchSize: 2, progress: nil)
        #expect(report.failure == nil && report.totalEntries == 3)
        #expect(report.lastIntactHash == records[2].hash)
        // The head moved with the copy: the next append chains to the last copied row.
        let seq = try store.write { try $0.append(AuditEntry(at: Date(), actor: .system, action: AuditAction("after"))) }
        #expect(seq == 4)
        #expect(try store.verifyAuditChain(batchSize: 10, progress: nil).intactLength == 4)
    }

    @Test func aRowThatDoesNotFollowTheHeadRollsTheCopyBack() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let store = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests)
        var records = chain(3)
        records[2].prevHash = records[0].hash  // linked past its predecessor
        #expect(throws: PostgresCopyChainBroken.self) {
            try store.copyIn { session in
                try session.insert(into: "apps", [.text("com.example.a"), .text("A"), .int64(1), .null, .null])
                for record in records { try session.appendCopied(record) }
            }
        }
        #expect(try store.read { try $0.apps(after: nil, limit: 10) }.isEmpty)
        #expect(try store.verifyAuditChain(batchSize: 10, progress: nil).totalEntries == 0)
        // A gap in seq is refused too.
        let gapped = chain(3)
        #expect(throws: PostgresCopyChainBroken.self) {
            try store.copyIn { session in
                try session.appendCopied(gapped[0])
                try session.appendCopied(gapped[2])
            }
        }
        // And an entry edited at the source (its columns no longer give its stored hash), even
        // with every link intact.
        var edited = chain(3)
        edited[1].reason = "edited behind the chain's back"
        #expect(throws: PostgresCopyChainBroken.self) {
            try store.copyIn { session in
                for record in edited { try session.appendCopied(record) }
            }
        }
        #expect(try store.verifyAuditChain(batchSize: 10, progress: nil).totalEntries == 0)
    }

    @Test func aDatabaseHoldingDataIsRefused() throws {
        let database = try PostgresServer.shared.get().freshDatabase()
        let store = try PostgresPermissionStore.open(connectionString: database, keyring: .forTests)
        _ = try store.write { try $0.append(AuditEntry(at: Date(), actor: .system, action: AuditAction("first"))) }
        let error = #expect(throws: PostgresCopyTargetNotEmpty.self) { try store.copyIn { _ in } }
        #expect(error?.tables == ["audit"])
    }
}
