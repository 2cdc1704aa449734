import Foundation
import PermissionDomain
import TestSupport
import Testing

/// The stored values an export carries for each audit entry: one per hashed column, in the
/// order of ``AuditChain/columns``, and encoded with the tag they give exactly the bytes the
/// entry's hash is taken of, so a verifier that knows only the document's tag and column list
/// recomputes the hash.
@Suite struct AuditStoredValuesTests {
    let chain = AuditChain(hasher: AuditChainRuleTests.LaneHasher())

    /// Records with every kind of value: text (with non-ASCII), NULL, integers, a record edited
    /// outside the program (odd integers, NULLs where the program writes text).
    func records() -> [AuditRecord] {
        let sealer = AuditChainRuleTests.VisibleSealer()
        let decision = try! chain.record(for: AuditEntry.everyKindOfField, after: .empty, sealer: sealer)
        var german = try! chain.record(
            for: AuditEntry(
                at: Date(millisecondsSince1970: 1_800_000_000_123), actor: .system, action: .authorizationExpired,
                user: UserID(trusted: "ü@x"), purpose: PurposeString(trusted: "Zeigt, wo du bist. 🗺️")),
            after: AuditChainTip(linking: decision), sealer: sealer)
        german.detail = nil
        let edited = AuditRecord(seq: 9, at: -1, fromProvisional: Int64.max, toOnce: Int64.min, prevHash: nil)
        return [decision, german, edited]
    }

    @Test func oneValuePerColumnInOrder() {
        for record in records() {
            let values = AuditChain.storedValues(of: record)
            #expect(values.count == AuditChain.columns.count)
            #expect(values[AuditChain.columns.firstIndex(of: "seq")!] == .integer(record.seq))
            #expect(values[AuditChain.columns.firstIndex(of: "prev_hash")!] == (record.prevHash.map { .text($0) } ?? .null))
            #expect(values[AuditChain.columns.firstIndex(of: "user")!] == (record.user.map { .text($0) } ?? .null))
            #expect(values[AuditChain.columns.firstIndex(of: "personal")!] == (record.personal.map { .text($0) } ?? .null))
        }
    }

    @Test func theValuesEncodeToTheBytesTheHashIsTakenOf() {
        for record in records() {
            #expect(AuditChain.encoding(of: AuditChain.storedValues(of: record)) == AuditChain.encoding(of: record))
        }
        #expect(AuditChain.tagText == String(decoding: AuditChain.tag, as: UTF8.self))
        #expect(AuditChain.encoding(of: []) == AuditChain.tag)
    }
}
