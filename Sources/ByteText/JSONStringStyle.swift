/// Which characters of a JSON string (RFC 8259 §7) take which escape. Every style escapes `"`
/// and `\` and every control character below U+0020 (lowercase hex in `\u00XX`), and passes
/// everything else through as UTF-8; they differ in a few short forms, fixed by what each
/// output has always been. The styles are computed constants (no global to initialise), so an
/// inlined escaper folds its checks away.
public struct JSONStringStyle: Sendable, Equatable {
    /// Whether backspace and form feed take `\b` and `\f` (otherwise `\u0008` and `\u000c`).
    public let shortBackspaceAndFormFeed: Bool
    /// Whether U+2028 and U+2029 are escaped as `\u2028` and `\u2029` (JavaScript string
    /// literals before ES2019 end at them).
    public let escapesLineSeparators: Bool

    @inlinable
    init(shortBackspaceAndFormFeed: Bool, escapesLineSeparators: Bool) {
        self.shortBackspaceAndFormFeed = shortBackspaceAndFormFeed
        self.escapesLineSeparators = escapesLineSeparators
    }

    /// As Foundation's `JSONEncoder` writes strings (the wire shapes, byte for byte):
    /// `\b \t \n \f \r` short, U+2028 and U+2029 as they are.
    @inlinable public static var encoder: JSONStringStyle {
        JSONStringStyle(shortBackspaceAndFormFeed: true, escapesLineSeparators: false)
    }
    /// ``encoder`` with U+2028 and U+2029 escaped: problem+json bodies.
    @inlinable public static var scriptSafe: JSONStringStyle {
        JSONStringStyle(shortBackspaceAndFormFeed: true, escapesLineSeparators: true)
    }
    /// Only `\t \n \r` short: the audit detail (its bytes are hashed into the audit chain, so
    /// this must never change) and the server's JSON log lines.
    @inlinable public static var minimal: JSONStringStyle {
        JSONStringStyle(shortBackspaceAndFormFeed: false, escapesLineSeparators: false)
    }
}
