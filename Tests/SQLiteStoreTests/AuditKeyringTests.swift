import AuditKeys
import Foundation
import PermissionDomain
import Synchronization
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
        // The match remembered spares opening it again, and answers for that value alone.
        #expect(keyring.matches(checkValue: check) && keyring.matches(checkValue: check))
        #expect(!keyring.matches(checkValue: AuditKeyring.random().newCheckValue()))
        #expect(keyring.matches(checkValue: keyring.newCheckValue()), "another value of the same key")
        #expect(try AuditKeyring.serverKey(fromText: AuditKeyring.text(of: key) + "\n") == key)
        #expect(throws: AuditKeyError.malformedServerKey) { try AuditKeyring.serverKey(fromText: "c2hvcnQ=") }
        #expect(throws: AuditKeyError.malformedServerKey) { try AuditKeyring(serverKey: [1, 2, 3]) }
    }

    /// Rotation: a user's key wrapped again under another server key is the same key (what was
    /// sealed under it opens with the new keyring), bound to the same pseudonym, and no longer
    /// opens with the old server key, nor under another pseudonym.
    @Test func aKeyWrappedAgainUnderAnotherServerKeyIsTheSameKey() throws {
        let old = AuditKeyring.random()
        let (pseudonym, wrapped) = old.newSubject()
        let fields = PersonalFields(user: "u42", purpose: "Scan documents.", detail: nil)
        let sealed = try old.seal(fields, wrappedKey: wrapped, pseudonym: pseudonym, seq: 3)
        let newKey = AuditKeyring.newServerKey()
        let new = try AuditKeyring(serverKey: newKey)
        let rewrapped = try old.rewrap(wrapped, pseudonym: pseudonym, under: new)
        #expect(rewrapped != wrapped)
        // Fresh keyrings: one that unwrapped a key remembers it by its wrapped form.
        #expect(try AuditKeyring(serverKey: newKey).open(sealed, wrappedKey: rewrapped, pseudonym: pseudonym, seq: 3) == fields)
        #expect(throws: AuditKeyError.self) { try old.unwrap(rewrapped, pseudonym: pseudonym) }
        #expect(throws: AuditKeyError.self) {
            try AuditKeyring(serverKey: newKey).unwrap(rewrapped, pseudonym: new.newSubject().pseudonym)
        }
        #expect(throws: AuditKeyError.self) { try new.rewrap(wrapped, pseudonym: pseudonym, under: old) }
    }

    /// A first write about a user draws its pseudonym's bits, its key and the wrapping's nonce
    /// at once, and its entry's nonce once more: two system calls, where 8 bytes a call took ten.
    @Test func aNewUserAndItsFirstEntryTakeTwoDraws() throws {
        let draws = Mutex([[UInt8]]())
        let keyring = try AuditKeyring(serverKey: AuditKeyring.newServerKey()) { count in
            let bytes = SystemRandom.bytes(count)
            draws.withLock { $0.append(bytes) }
            return bytes
        }
        let (pseudonym, wrapped) = keyring.newSubject()
        let fields = PersonalFields(user: "u7", purpose: "Find friends.", detail: nil)
        let sealed = try keyring.seal(fields, wrappedKey: wrapped, pseudonym: pseudonym, seq: 1)
        let drawn = draws.withLock { $0 }
        #expect(drawn.map(\.count) == [10 + 32 + 12, 12])
        // The pseudonym ends in the first draw's 10 bytes; each seal starts with the nonce it drew.
        #expect(pseudonym.hasSuffix(drawn[0].prefix(10).map { String(format: "%02x", $0) }.joined()))
        #expect(Self.nonce(of: wrapped) == Array(drawn[0].suffix(12)))
        #expect(Self.nonce(of: sealed) == drawn[1])
        #expect(try keyring.open(sealed, wrappedKey: wrapped, pseudonym: pseudonym, seq: 1) == fields)
        // A known user's next entry draws only its nonce.
        _ = try keyring.seal(fields, wrappedKey: wrapped, pseudonym: pseudonym, seq: 2)
        #expect(draws.withLock { $0.map(\.count) } == [54, 12, 12])
    }

    @Test func systemRandomDrawsAsManyBytesAsAsked() {
        #expect(SystemRandom.bytes(0).isEmpty)
        #expect(SystemRandom.bytes(SystemRandom.maxCount).count == SystemRandom.maxCount)
        #expect(SystemRandom.bytes(32) != SystemRandom.bytes(32))
    }

    /// The 12-byte nonce a sealed value (`v1.` and base64) starts with.
    private static func nonce(of sealed: String) -> [UInt8]? {
        Data(base64Encoded: String(sealed.dropFirst(3))).map { Array($0.prefix(12)) }
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
