import AuditKeys
import Foundation
import PermissionDomain
import StoreTestSupport
import TestSupport
import Testing

@testable import SQLiteStore

/// The store's side of the audit hash chain: the domain's rule over swift-crypto gives the
/// SHA-256 values computed independently (Python's `hashlib` on the encoding in docs/audit-chain.md, in the
/// format before sealing; sealed records carry a random nonce, so their hashes are checked
/// against the stored columns instead), the store persists the record the domain built, and
/// the writer's tip cache follows rollbacks and commits by other processes.
@Suite struct AuditChainRecordTests {
    // The entry hashed here is `AuditEntry.everyKindOfField` (TestSupport), as in the domain
    // rule's tests.

    /// Independently computed (see the suite's note).
    static let purposeHash = "0f04788e573725079c8ecbc39d6ebd6b0ac58364be84757a974da46c00a73cae"
    static let firstHash = "76af5398fb717ed43cd688b08181a650c9e7c7aa3661bafecd3857f9d4cbb777"
    static let secondHash = "6d7865f2bd68af99ae1cae99aa41d975f0d057255c0c4000e0da220a11c93a50"

    @Test func theHasherIsPlainSHA256() {
        // FIPS 180-4 example; the purpose hash is the digest of the text's bytes.
        #expect(AuditChain.sha256.purposeHash(of: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func theDomainRuleGivesThePinnedHashes() {
        let chain = AuditChain.sha256V1
        var first = AuditRecord(
            entry: AuditEntry.everyKindOfField, seq: 1, purposeHash: chain.purposeHash(of: "Scan documents."),
            prevHash: AuditChain.genesis)
        first.hash = chain.hash(of: first)
        #expect(first.purposeHash == Self.purposeHash)
        #expect(first.hash == Self.firstHash)
        var second = AuditRecord(
            entry: AuditEntry.everyKindOfField, seq: 2, purposeHash: Self.purposeHash, prevHash: Self.firstHash)
        second.hash = chain.hash(of: second)
        #expect(second.hash == Self.secondHash)
    }

    /// The stored records, as hashed.
    func storedRecords(_ fixture: StoreFixture) throws -> [AuditRecord] {
        try fixture.store.pool.read { database in
            try database.withStatement("SELECT \(AuditRecord.selectList) FROM audit ORDER BY seq") { statement in
                var records: [AuditRecord] = []
                while try statement.step() { records.append(AuditRecord(row: statement)) }
                return records
            }
        }
    }

    @Test func theStorePersistsTheRecordTheDomainBuilt() throws {
        let fixture = try StoreFixture()
        _ = try fixture.store.write { try $0.append(AuditEntry.everyKindOfField) }
        _ = try fixture.store.write { try $0.append(AuditEntry.everyKindOfField) }
        let entries = try fixture.store.read { try $0.audit(query: AuditQuery(limit: 10)) }
        let stored = try storedRecords(fixture)
        #expect(stored.map(\.hash) == stored.map { AuditChain.sha256.hash(of: $0) })
        #expect(entries.map(\.hash) == stored.map(\.hash))
        #expect(entries.map(\.prevHash) == [AuditChain.genesis, stored[0].hash])
        #expect(
            entries.allSatisfy {
                $0.user == AuditEntry.everyKindOfField.user && $0.purpose == AuditEntry.everyKindOfField.purpose
            })
        #expect(stored.allSatisfy { $0.user == entries[0].pseudonym && $0.purpose == nil && $0.personal != nil })
        #expect(stored[0].personal != stored[1].personal, "each seal has its own nonce")
        #expect(entries.first?.purposeHash == Self.purposeHash)
        #expect(entries.first?.detail == AuditEntry.everyKindOfField.detail)
        #expect(fixture.store.auditChainTip?.tip == AuditChainTip(seq: 2, hash: stored[1].hash!))
    }

    @Test func aRolledBackBodyPutsTheTipBack() throws {
        struct Refused: Error {}
        let fixture = try StoreFixture()
        _ = try fixture.store.write { try $0.append(AuditEntry.everyKindOfField) }
        let first = try #require(try storedRecords(fixture).first?.hash)
        #expect(fixture.store.auditChainTip?.tip == AuditChainTip(seq: 1, hash: first))
        #expect(throws: Refused.self) {
            try fixture.store.write { writer -> Int in
                try writer.append(AuditEntry.everyKindOfField)
                throw Refused()
            }
        }
        #expect(fixture.store.auditChainTip?.tip == AuditChainTip(seq: 1, hash: first))
        _ = try fixture.store.write { try $0.append(AuditEntry.everyKindOfField) }
        #expect(fixture.store.auditChainTip?.tip == AuditChainTip(seq: 2, hash: try storedRecords(fixture)[1].hash!))
    }

    /// Another process's commit is seen by the writer's `data_version` check, which forgets the
    /// tip: the next append reads it from the file instead of failing on the stale one first.
    @Test func aCommitByAnotherProcessForgetsTheTip() throws {
        let fixture = try StoreFixture()
        _ = try fixture.store.write { try $0.append(AuditEntry.everyKindOfField) }
        #expect(fixture.store.auditChainTip?.tip?.seq == 1)
        let other = try SQLitePermissionStore.open(path: fixture.store.path, keyring: .forTests)
        _ = try other.write { try $0.append(AuditEntry.everyKindOfField) }
        let deadline = Date().addingTimeInterval(10)
        while fixture.store.auditChainTip?.tip != nil && Date() < deadline { usleep(10_000) }
        #expect(fixture.store.auditChainTip?.tip == nil)
        #expect(try fixture.store.write { try $0.append(AuditEntry.everyKindOfField) } == 3)
        #expect(fixture.store.auditChainTip?.tip?.seq == 3)
        #expect(try fixture.store.verifyAuditChain(batchSize: 2, progress: nil).intactLength == 3)
    }
}
