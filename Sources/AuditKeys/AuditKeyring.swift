package import Crypto
package import Foundation
package import PermissionDomain
import Synchronization

/// The keys that keep the personal fields of the audit log (SPEC §12; crypto-shredding for
/// GDPR Art. 17): one random 256-bit key per user, stored wrapped (AES-256-GCM) under a key
/// derived from the server key, which lives outside the database (a file or the environment).
/// An entry about a user stores its ``PersonalFields`` sealed with AES-256-GCM under that user's
/// key; deleting the user's wrapped key makes them unreadable for good, also in backups taken
/// afterwards, while the hash chain, which hashes the sealed form, still verifies.
///
/// Every seal binds its context as associated data: a wrapped key its pseudonym, a sealed field
/// its pseudonym and the entry's seq, so neither can be moved to another user or entry.
/// Unwrapped keys are remembered by their wrapped form (a bounded map), so a read of many
/// entries of one user unwraps once.
public final class AuditKeyring: Sendable {
    /// Derived from the server key with HKDF-SHA256 (RFC 5869): wraps the users' keys.
    private let wrappingKey: SymmetricKey
    private let unwrapped = Mutex([String: SymmetricKey]())
    /// The last check value ``matches(checkValue:)`` opened: a store that checks it before each
    /// new user's key reads the same one every time.
    private let matchedCheckValue = Mutex<String?>(nil)
    /// Where random bytes come from: ``SystemRandom/bytes(_:)`` but in tests.
    private let random: @Sendable (Int) -> [UInt8]

    /// The most unwrapped keys remembered; the map starts over when full.
    static let rememberedKeys = 4_096
    /// The prefix of a sealed field's stored form (the version of the seal).
    static let sealedPrefix = "v1."

    /// - Parameter serverKey: 32 random bytes.
    /// - Throws: ``AuditKeyError/malformedServerKey`` for any other length.
    public convenience init(serverKey: [UInt8]) throws {
        try self.init(serverKey: serverKey, random: SystemRandom.bytes)
    }

    /// - Parameter random: `count` random bytes a call (tests count the draws).
    package init(serverKey: [UInt8], random: @escaping @Sendable (_ count: Int) -> [UInt8]) throws {
        guard serverKey.count == 32 else { throw AuditKeyError.malformedServerKey }
        wrappingKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: serverKey), info: Array("permission-audit-key-wrapping".utf8),
            outputByteCount: 32)
        self.random = random
    }

    /// A keyring over a new random server key (tests, and a first start without a key file).
    public static func random() -> AuditKeyring {
        // A 32-byte key can never be malformed.
        try! AuditKeyring(serverKey: newServerKey())
    }

    /// 32 random bytes from the system's generator.
    public static func newServerKey() -> [UInt8] {
        SystemRandom.bytes(32)
    }

    /// The server key in its text form: base64 of the 32 bytes.
    public static func text(of serverKey: [UInt8]) -> String {
        Data(serverKey).base64EncodedString()
    }

    /// The server key `text` holds (base64 of 32 bytes; surrounding whitespace ignored).
    /// - Throws: ``AuditKeyError/malformedServerKey``.
    public static func serverKey(fromText text: String) throws -> [UInt8] {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let data = Data(base64Encoded: trimmed), data.count == 32 else { throw AuditKeyError.malformedServerKey }
        return Array(data)
    }

    // MARK: The check value

    private static let checkPlaintext = Array("permission-audit-keyring".utf8)

    /// A value a database keeps to tell later whether it is opened with the same server key.
    package func newCheckValue() -> String {
        seal(Self.checkPlaintext, with: wrappingKey, context: "check", nonce: random(Self.nonceCount))
    }

    /// Whether `checkValue` was made by this server key.
    package func matches(checkValue: String) -> Bool {
        if matchedCheckValue.withLock({ $0 == checkValue }) { return true }
        guard (try? open(checkValue, with: wrappingKey, context: "check")) == Self.checkPlaintext else { return false }
        matchedCheckValue.withLock { $0 = checkValue }
        return true
    }

    // MARK: Users' keys

    /// A new user key: a pseudonym and the key, wrapped.
    ///
    /// The pseudonym is `p_` and 32 hex digits: the creation time in milliseconds (12 digits),
    /// then 80 random bits. Time first keeps the indexes on pseudonyms (the key table's, the
    /// audit's by user) growing at their end, as the audit itself does, instead of touching a
    /// random page of each for every new user; the time says no more than the user's first entry
    /// does. The pseudonym's random bits, the key and the wrapping's nonce are one draw.
    package func newSubject(now: Date = Date()) -> (pseudonym: String, wrappedKey: String) {
        let drawn = random(Self.pseudonymRandomCount + Self.keyCount + Self.nonceCount)
        precondition(drawn.count == Self.pseudonymRandomCount + Self.keyCount + Self.nonceCount, "a short draw")
        let milliseconds = UInt64(max(0, now.millisecondsSince1970)) & 0xFFFF_FFFF_FFFF
        var bytes: [UInt8] = (0..<6).reversed().map { UInt8(truncatingIfNeeded: milliseconds >> UInt64($0 * 8)) }
        bytes += drawn[0..<Self.pseudonymRandomCount]
        let pseudonym = "p_" + Self.hex(bytes)
        let keyBytes = drawn[Self.pseudonymRandomCount..<(Self.pseudonymRandomCount + Self.keyCount)]
        let key = SymmetricKey(data: keyBytes)
        let wrapped = seal(
            Array(keyBytes), with: wrappingKey, context: "subject|" + pseudonym,
            nonce: Array(drawn.suffix(Self.nonceCount)))
        remember(key, wrappedAs: wrapped)  // the entry that made it is sealed next
        return (pseudonym, wrapped)
    }

    /// Random bytes in a pseudonym (80 bits), in a user key (256 bits), in an AES-GCM nonce (96 bits).
    static let pseudonymRandomCount = 10
    static let keyCount = 32
    static let nonceCount = 12

    private func remember(_ key: SymmetricKey, wrappedAs wrappedKey: String) {
        unwrapped.withLock { keys in
            if keys.count >= Self.rememberedKeys { keys.removeAll(keepingCapacity: true) }
            keys[wrappedKey] = key
        }
    }

    /// Forgets every unwrapped key it remembers: after an erasure, whose user's key must not
    /// stay in memory (a core dump, a read of the process's memory) once the database has
    /// destroyed it. The others are unwrapped again as they are read.
    /// - Parameter pseudonym: the erased user's, when known (the process that erased them): a
    ///   read of a snapshot from before the erasure (an export still being downloaded) that
    ///   unwraps their key again uses it without remembering it.
    package func forgetUnwrappedKeys(erasing pseudonym: String? = nil) {
        if let pseudonym {
            erased.withLock { erased in
                if erased.order.count >= Self.rememberedErasures { erased.forgetOldest() }
                if erased.set.insert(pseudonym).inserted { erased.order.append(pseudonym) }
            }
        }
        unwrapped.withLock { $0.removeAll() }
    }

    /// The pseudonyms of the users erased most recently by this process (at most
    /// ``rememberedErasures``), whose keys are never remembered unwrapped.
    private struct Erased {
        var order: [String] = []
        var set: Set<String> = []
        mutating func forgetOldest() {
            set.remove(order.removeFirst())
        }
    }
    private let erased = Mutex(Erased())
    /// The erasures ``forgetUnwrappedKeys(erasing:)`` keeps in mind.
    static let rememberedErasures = 4_096

    /// Whether the key wrapped as `wrappedKey` is remembered unwrapped (tests).
    package func remembers(wrappedKey: String) -> Bool {
        unwrapped.withLock { $0[wrappedKey] != nil }
    }

    /// The user key `wrappedKey` holds.
    /// - Throws: ``AuditKeyError/unreadable(_:)`` when it was not wrapped by this server key
    ///   for `pseudonym`.
    package func unwrap(_ wrappedKey: String, pseudonym: String) throws -> SymmetricKey {
        if let known = unwrapped.withLock({ $0[wrappedKey] }) { return known }
        guard let bytes = try? open(wrappedKey, with: wrappingKey, context: "subject|" + pseudonym), bytes.count == 32
        else { throw AuditKeyError.unreadable("the audit key of \(pseudonym)") }
        let key = SymmetricKey(data: bytes)
        if !erased.withLock({ $0.set.contains(pseudonym) }) { remember(key, wrappedAs: wrappedKey) }
        return key
    }

    /// The user key `wrappedKey` holds for `pseudonym`, wrapped again under `other`'s server
    /// key (a fresh nonce, the same pseudonym bound): server key rotation. The user key itself
    /// does not change, so every entry sealed under it stays readable, and the chain, which
    /// hashes the sealed entries, is untouched.
    /// - Throws: ``AuditKeyError/unreadable(_:)`` when `wrappedKey` was not wrapped by this
    ///   server key for `pseudonym`.
    package func rewrap(_ wrappedKey: String, pseudonym: String, under other: AuditKeyring) throws -> String {
        let key = try unwrap(wrappedKey, pseudonym: pseudonym)
        let bytes = key.withUnsafeBytes { Array($0) }
        return other.seal(bytes, with: other.wrappingKey, context: "subject|" + pseudonym, nonce: other.random(Self.nonceCount))
    }

    private static let digits = Array("0123456789abcdef".utf8)

    /// Lowercase hex of `bytes`.
    private static func hex(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Personal fields

    /// `fields` sealed under the user key `wrappedKey` holds, for entry `seq`.
    package func seal(_ fields: PersonalFields, wrappedKey: String, pseudonym: String, seq: Int64) throws -> String {
        let key = try unwrap(wrappedKey, pseudonym: pseudonym)
        return seal(fields.plaintext, with: key, context: "personal|\(pseudonym)|\(seq)", nonce: random(Self.nonceCount))
    }

    /// The fields `sealed` holds.
    /// - Throws: ``AuditKeyError/unreadable(_:)``.
    package func open(_ sealed: String, wrappedKey: String, pseudonym: String, seq: Int64) throws -> PersonalFields {
        let key = try unwrap(wrappedKey, pseudonym: pseudonym)
        guard let plaintext = try? open(sealed, with: key, context: "personal|\(pseudonym)|\(seq)"),
            let fields = PersonalFields(plaintext: plaintext)
        else { throw AuditKeyError.unreadable("the personal fields of audit entry \(seq)") }
        return fields
    }

    // MARK: AES-256-GCM

    /// `v1.` and base64 of nonce (12 bytes), ciphertext and tag (16 bytes).
    /// - Parameter nonce: 12 fresh random bytes (a nonce never repeats under one key).
    private func seal(_ plaintext: [UInt8], with key: SymmetricKey, context: String, nonce: [UInt8]) -> String {
        precondition(nonce.count == Self.nonceCount, "an AES-GCM nonce is 12 bytes")
        // A 12-byte nonce and a 256-bit key: AES-GCM cannot fail.
        let box = try! AES.GCM.seal(
            plaintext, using: key, nonce: try! AES.GCM.Nonce(data: nonce), authenticating: Array(context.utf8))
        return Self.sealedPrefix + box.combined!.base64EncodedString()
    }

    private func open(_ sealed: String, with key: SymmetricKey, context: String) throws -> [UInt8] {
        guard sealed.hasPrefix(Self.sealedPrefix), let data = Data(base64Encoded: String(sealed.dropFirst(3))) else {
            throw AuditKeyError.unreadable("a sealed value")
        }
        let box = try AES.GCM.SealedBox(combined: data)
        return Array(try AES.GCM.open(box, using: key, authenticating: Array(context.utf8)))
    }
}
