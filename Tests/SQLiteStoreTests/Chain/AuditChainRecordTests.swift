import Foundation
import PermissionDomain
@testable import SQLiteStore
import Testing

/// The store's side of the audit hash chain: the domain's rule over swift-crypto gives the
/// SHA-256 values computed independently (Python's `hashlib` on the README's encoding), the
/// store persists the record the domain built, and the writer's tip cache follows rollbacks
/// and commits by other processes.
@Suite struct AuditChainRecordTests {
    /// `AuditChainRuleTests.decision`: every kind of field.
    static let decision = AuditEntry(
        at: Date(millisecondsSince1970: 1_700_000_000_000), actor: Actor(keyId: "consent-1", role: "consent"),
        action: .promptAnswered, user: UserID(trusted: "u1"), app: AppID(trusted: "com.example.scanner"),
        service: .camera, from: AuthorizationSnapshot(status: .notDetermined),
        to: AuthorizationSnapshot(status: .authorized, level: Level(trusted: "full"), once: true), reason: .userConsent,
        purpose: PurposeString(trusted: "Scan documents."), promptId: PromptID(trusted: "p-1"), requestId: "r-1",
        detail: ["kind": "camera", "choice": "allow"])

    /// Independently computed (see the suite's note).
    static let purposeHash = "0f04788e573725079c8ecbc39d6ebd6b0ac58364be84757a974da46c00a73cae"
    static let firstHash = "76af5398fb717ed43cd688b08181a650c9e7c7aa3661bafecd3857f9d4cbb777"
    static let secondHash = "6d7865f2bd68af99ae1cae99aa41d975f0d057255c0c4000e0da220a11c93a50"

    @Test func theHasherIsPlainSHA256() {
        let digest = SHA256AuditHasher().sha256(Array("abc".utf8))
        let hex = digest.map { String(format: "%02x", $0) }.joined()
        #expect(hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")  // FIPS 180-4 example
    }

    @Test func theDomainRuleGivesThePinnedHashes() {
        let first = AuditChain.sha256.record(for: Self.decision, after: .empty)
        #expect(first.purposeHash == Self.purposeHash)
        #expect(first.hash == Self.firstHash)
        let second = AuditChain.sha256.record(for: Self.decision, after: AuditChainTip(linking: first))
        #expect(second.hash == Self.secondHash)
    }

    @Test func theStorePersistsTheRecordTheDomainBuilt() throws {
        let fixture = try StoreFixture()
        _ = try fixture.store.write { try $0.append(Self.decision) }
        _ = try fixture.store.write { try $0.append(Self.decision) }
        let entries = try fixture.store.read { try $0.audit(query: AuditQuery(limit: 10)) }
        #expect(entries.map(\.hash) == [Self.firstHash, Self.secondHash])
        #expect(entries.map(\.prevHash) == [AuditChain.genesis, Self.firstHash])
        #expect(entries.first?.purposeHash == Self.purposeHash)
        #expect(entries.first?.detail == Self.decision.detail)
        #expect(fixture.store.auditChainTip?.tip == AuditChainTip(seq: 2, hash: Self.secondHash))
    }

    @Test func aRolledBackBodyPutsTheTipBack() throws {
        struct Refused: Error {}
        let fixture = try StoreFixture()
        _ = try fixture.store.write { try $0.append(Self.decision) }
        #expect(fixture.store.auditChainTip?.tip == AuditChainTip(seq: 1, hash: Self.firstHash))
        #expect(throws: Refused.self) {
            try fixture.store.write { writer -> Int in
                try writer.append(Self.decision)
                throw Refused()
            }
        }
        #expect(fixture.store.auditChainTip?.tip == AuditChainTip(seq: 1, hash: Self.firstHash))
        _ = try fixture.store.write { try $0.append(Self.decision) }
        #expect(fixture.store.auditChainTip?.tip == AuditChainTip(seq: 2, hash: Self.secondHash))
    }

    /// Another process's commit is seen by the writer's `data_version` check, which forgets the
    /// tip: the next append reads it from the file instead of failing on the stale one first.
    @Test func aCommitByAnotherProcessForgetsTheTip() throws {
        let fixture = try StoreFixture()
        _ = try fixture.store.write { try $0.append(Self.decision) }
        #expect(fixture.store.auditChainTip?.tip?.seq == 1)
        let other = try SQLitePermissionStore.open(path: fixture.store.path)
        _ = try other.write { try $0.append(Self.decision) }
        let deadline = Date().addingTimeInterval(10)
        while fixture.store.auditChainTip?.tip != nil && Date() < deadline { usleep(10_000) }
        #expect(fixture.store.auditChainTip?.tip == nil)
        #expect(try fixture.store.write { try $0.append(Self.decision) } == 3)
        #expect(fixture.store.auditChainTip?.tip?.seq == 3)
        #expect(try fixture.store.verifyAuditChain(batchSize: 2, progress: nil).intactLength == 3)
    }
}
