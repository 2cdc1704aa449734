import Foundation
import Testing

@testable import PermissionDomain

/// The sealing rule of the audit chain, without cryptography: what an entry about a user stores
/// in place of its personal fields, and what an erasure tells a read model.
@Suite struct PersonalFieldsTests {
    /// "Seals" by reversing the plaintext: enough to see what goes where.
    struct ReversingSealer: PersonalFieldSealer {
        func seal(_ fields: PersonalFields, seq: Int64) throws -> SealedPersonalFields {
            SealedPersonalFields(
                pseudonym: "p_" + String(repeating: "0", count: 32),
                ciphertext: "\(seq):" + String(decoding: fields.plaintext.reversed(), as: UTF8.self))
        }
    }

    struct Digest: AuditChainHasher {
        func sha256(_ bytes: [UInt8]) -> [UInt8] { Array(repeating: UInt8(bytes.count % 256), count: 32) }
    }

    @Test func plaintextRoundTripsAndRefusesOtherShapes() {
        let fields = PersonalFields(user: "u\"42", purpose: "Scan\n documents.", detail: #"{"policy":"deny-u42"}"#)
        #expect(PersonalFields(plaintext: fields.plaintext) == fields)
        #expect(
            PersonalFields(plaintext: PersonalFields(user: "u", purpose: nil).plaintext)
                == PersonalFields(user: "u", purpose: nil))
        #expect(PersonalFields(plaintext: Array(#"{"purpose":"x"}"#.utf8)) == nil, "no user")
        #expect(PersonalFields(plaintext: Array(#"{"user":"u","other":"x"}"#.utf8)) == nil, "an unknown field")
        #expect(PersonalFields(plaintext: Array("not json".utf8)) == nil)
    }

    @Test func anEntryAboutAUserStoresThePseudonymAndTheSealedFieldsOnly() throws {
        let chain = AuditChain(hasher: Digest())
        let entry = AuditEntry(
            at: Date(millisecondsSince1970: 1_000), actor: .system, action: .authorizationSet, user: try UserID("u42"),
            app: try AppID("com.example.maps"), service: .camera, purpose: try PurposeString("Scan."),
            detail: ["policy": "deny-u42"])
        let record = try chain.record(for: entry, after: AuditChainTip(seq: 6, hash: "h6"), sealer: ReversingSealer())
        #expect(record.seq == 7 && record.prevHash == "h6")
        #expect(record.user == "p_" + String(repeating: "0", count: 32) && record.purpose == nil)
        #expect(record.personal?.hasPrefix("7:") == true && record.purposeHash != nil, "the purpose hash stays")
        #expect(record.detail == nil, "the detail is sealed too")
        #expect(record.hash == chain.hash(of: record))
        #expect(AuditChain.encoding(of: record).starts(with: Array("permission-audit-v2".utf8)))
        #expect(AuditChain.encoding(of: record, format: .v1).starts(with: Array("permission-audit-v1".utf8)))
        #expect(AuditChain.Format.v1.columns.count == 23 && AuditChain.Format.v2.columns.count == 24)

        let unsealed = AuditEntry(at: Date(millisecondsSince1970: 1_000), actor: .system, action: .servicePut, service: .camera)
        let plain = try chain.record(for: unsealed, after: .empty, sealer: ReversingSealer())
        #expect(plain.user == nil && plain.personal == nil)
    }

    @Test func anErasureEmptiesWhatAReadModelKeepsAndAccountsForItsDeletes() {
        var changes = ReadModelChanges()
        changes.add(ChangeLogEntry(seq: 9, action: .userErased, user: nil, app: nil, service: nil))
        #expect(changes.everything && changes.catalogueChanged && !changes.isEmpty && changes.through == 9)
        var saved = ReadModelChanges()
        saved.everything = true
        #expect(ReadModelChanges.unaudited(saved: saved, appended: changes).isEmpty)
        #expect(!ReadModelChanges.unaudited(saved: saved, appended: ReadModelChanges()).isEmpty, "an erasure needs its entry")
    }
}
