/// A prompt's id: 1-64 characters of `A-Z a-z 0-9 _ -`. Ids the service makes start with the
/// creation time in milliseconds as 12 hex digits, so that ordering by id is creation order.
public struct PromptID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// - Throws: `PermissionError.invalidArgument(field: "prompt", ...)`.
    public init(_ raw: String) throws(PermissionError) {
        guard Self.isValid(raw) else {
            throw .invalidArgument(field: "prompt", why: "must be 1-64 characters of A-Z a-z 0-9 _ -")
        }
        rawValue = raw
    }

    /// Wraps a value already validated (made by the service or read back from the store).
    package init(trusted raw: String) { rawValue = raw }

    public static func isValid(_ raw: String) -> Bool {
        var count = 0
        for byte in raw.utf8 {
            count += 1
            guard count <= 64, byte == 0x5F || byte == 0x2D || IdentifierSyntax.isAlphanumeric(byte) else {
                return false
            }
        }
        return count > 0
    }

    public var description: String { rawValue }
    public static func < (lhs: PromptID, rhs: PromptID) -> Bool { lhs.rawValue < rhs.rawValue }
}
