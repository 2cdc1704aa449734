import Crypto
package import PermissionDomain

/// API key secrets (SPEC §6): `pk_<id>_<43 base64url characters>`, 32 random bytes from the
/// system generator (`getrandom(2)` on Linux). The id lets the server find the key's row; only
/// the SHA-256 of the whole secret is stored (FIPS 180-4), compared in constant time
/// (`ConstantTime.equal`).
///
/// An operator-chosen bootstrap secret may instead be any bearer token (RFC 6750 §2.1
/// `b64token` characters) of 32 to 256 characters: its id is then the first 16 hex digits of
/// its hash.
package enum KeySecret {
    /// Shortest operator-chosen secret accepted.
    package static let minimumLength = 32
    /// Longest token looked at; longer ones are refused without hashing.
    package static let maximumLength = 256

    /// A new key id and its secret.
    package static func generate() -> (id: KeyID, secret: String) {
        var generator = SystemRandomNumberGenerator()
        var idBytes = [UInt8](repeating: 0, count: 8)
        for index in idBytes.indices { idBytes[index] = generator.next() }
        var random = [UInt8](repeating: 0, count: 32)
        for index in random.indices { random[index] = generator.next() }
        let id = KeyID(trusted: hex(idBytes))
        return (id, "pk_\(id.rawValue)_\(base64URL(random))")
    }

    /// The id a presented token names, or nil when it cannot be a key (wrong characters or
    /// length). `pk_` tokens carry it; other tokens take it from `hash`.
    package static func keyID(of token: Substring.UTF8View, hash: [UInt8]) -> KeyID? {
        guard token.count >= minimumLength, token.count <= maximumLength, token.allSatisfy(isTokenByte) else {
            return nil
        }
        if token.starts(with: "pk_".utf8) {
            let rest = token.dropFirst(3)
            guard let end = rest.firstIndex(of: UInt8(ascii: "_")), KeyID.isValid(utf8: rest[..<end]) else { return nil }
            return KeyID(trusted: String(decoding: rest[..<end], as: UTF8.self))
        }
        return KeyID(trusted: hex(hash.prefix(8)))
    }

    /// Whether `secret` is acceptable as an operator-chosen (bootstrap) secret.
    package static func isAcceptable(_ secret: String) -> Bool {
        keyID(of: Substring(secret).utf8, hash: hash(Substring(secret).utf8)) != nil
    }

    /// SHA-256 of the token's bytes.
    package static func hash<Bytes: Sequence<UInt8>>(_ token: Bytes) -> [UInt8] {
        var hasher = SHA256()
        // Hashed in place when the bytes are contiguous (a native string's UTF-8): no copy.
        let hashed: Void? = token.withContiguousStorageIfAvailable { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        if hashed == nil { hasher.update(data: Array(token)) }
        return hasher.finalize().withUnsafeBytes { Array($0) }
    }

    /// RFC 6750 §2.1 `b64token`: `A-Z a-z 0-9 - . _ ~ + / =`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"),
            UInt8(ascii: "/"), UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }

    static func hex<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 4648 §5 base64url without padding.
    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value: UInt32 = 0
            for byte in chunk { value = value << 8 | UInt32(byte) }
            value <<= UInt32(8 * (3 - chunk.count))
            for position in 0...chunk.count { out.append(alphabet[Int((value >> UInt32(18 - 6 * position)) & 0x3F)]) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
