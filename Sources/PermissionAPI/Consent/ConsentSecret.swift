import Crypto
import PermissionDomain

/// The secrets of consent sessions (SPEC §10), each 32 random bytes from the system generator
/// (`getrandom(2)` on Linux) as 43 base64url characters (RFC 4648 §5): the link's one-time
/// token and the cookie's session secret. Only their SHA-256 is stored. The CSRF token is
/// derived from the session secret (SHA-256 of a label and the secret), so the pages can put
/// it in every form without storing it, and it tells nothing about the cookie.
enum ConsentSecret {
    /// Characters of a token or secret.
    static let length = 43

    /// A new session id: `cs_` and 16 random hex digits.
    static func makeID() -> ConsentSessionID {
        ConsentSessionID(trusted: "cs_" + KeySecret.hex(random(count: 8)))
    }

    /// A new token or session secret.
    static func make() -> String { KeySecret.base64URL(random(count: 32)) }

    /// The CSRF token of the session whose cookie holds `secret`.
    static func csrfToken(forSecret secret: String) -> String {
        KeySecret.base64URL(hash("permission-consent-csrf\u{0}" + secret))
    }

    /// SHA-256 of `text`'s UTF-8.
    static func hash(_ text: String) -> [UInt8] { KeySecret.hash(text.utf8) }

    /// Whether `text` can be a token, secret or CSRF token: 43 base64url characters. Checked
    /// before anything is hashed or looked up.
    static func isWellFormed(_ text: Substring) -> Bool {
        text.utf8.count == length && text.utf8.allSatisfy(isBase64URL)
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    private static func random(count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in generator.next() }
    }
}
