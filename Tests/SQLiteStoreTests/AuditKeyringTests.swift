import AuditKeys
import Foundation
import PermissionDomain
import Testing

/// The audit keys themselves (AES-256-GCM through swift-crypto): what opens, what does not, and
/// the pseudonyms' order.
@Suite struct AuditKeyringTests {
    @Test func sealedFieldsOpenOnlyForTheirUserKeyAndEntry() throws {
        let keyring = AuditKeyring.random()
        let (pseudonym, wrapped) = keyring.newSubject()
        let fields = PersonalFields(user: "u42", purpose: "Scan documents.", detail: #"{"policy":"deny-u42"}"#)
        let sealed = try keyring.seal(fields, wrappedKey: wrapped, pseudonym: pseudonym, seq: 7)
        #expect(sealed.hasPrefix("v1.") && !sealed.contains("u42"))
        #expect(try keyring.open(sealed, wrappedKey: wrapped, pseudonym: pseudonym, seq: 7) == fields)
        #expect(try keyring.seal(fields, wrappedKey: wrapped, pseudonym: pseudonym, seq: 7) != sealed, "a fresh nonce")
        // Moved to another entry, another user's key, or opened with another server key: refused.
        #expect(throws: AuditKeyError.self) { try keyring.open(sealed, wrappedKey: wrapped, pseudonym: pseudonym, seq: 8) }
        let (otherPseudonym, otherWrapped) = keyring.newSubject()
        #expect(throws: AuditKeyError.self) {
            try keyring.open(sealed, wrappedKey: otherWrapped, pseudonym: otherPseudonym, seq: 7)
        }
        #expect(throws: AuditKeyError.self) { try keyring.open(sealed, wrappedKey: wrapped, pseudonym: otherPseudonym, seq: 7) }
        #expect(throws: AuditKeyError.self) {
            try AuditKeyring.random().open(sealed, wrappedKey: wrapped, pseudonym: pseudonym, seq: 7)
        }
        var tampered = Array(sealed.utf8)
        tampered[10] = tampered[10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: AuditKeyError.self) {
            try keyring.open(String(decoding: tampered, as: UTF8.self), wrappedKey: wrapped, pseudonym: pseudonym, seq: 7)
        }
    }

    @Test func theCheckValueTellsTheServerKey() throws {
        let key = AuditKeyring.newServerKey()
        let keyring = try AuditKeyring(serverKey: key)
        let check = keyring.newCheckValue()
        #expect(try AuditKeyring(serverKey: key).matches(checkValue: check))
        #expect(!AuditKeyring.random().matches(checkValue: check))
        #expect(try AuditKeyring.serverKey(fromText: AuditKeyring.text(of: key) + "\n") == key)
        #expect(throws: AuditKeyError.malformedServerKey) { try AuditKeyring.serverKey(fromText: "c2hvcnQ=") }
        #expect(throws: AuditKeyError.malformedServerKey) { try AuditKeyring(serverKey: [1, 2, 3]) }
    }

    @Test func pseudonymsAreTimeOrderedAndUnique() {
        let keyring = AuditKeyring.random()
        let pseudonyms = (0..<200).map {
            keyring.newSubject(now: Date(millisecondsSince1970: 1_795_000_000_000 + Int64($0 / 2))).pseudonym
        }
        #expect(pseudonyms.allSatisfy { $0.range(of: #"^p_[0-9a-f]{32}$"#, options: .regularExpression) != nil })
        #expect(Set(pseudonyms).count == pseudonyms.count)
        for (earlier, later) in zip(pseudonyms, pseudonyms.dropFirst(2)) { #expect(earlier < later) }
        #expect(pseudonyms[0].hasPrefix("p_" + String(1_795_000_000_000, radix: 16).leftPadded(to: 12)))
    }
}

extension String {
    fileprivate func leftPadded(to count: Int) -> String { String(repeating: "0", count: max(0, count - self.count)) + self }
}
