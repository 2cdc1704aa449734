/// The client that wants access: a bundle id (SPEC §1), reverse-DNS with 2 or more
/// non-empty labels of `A-Z a-z 0-9 -`, at most 255 characters.
public struct AppID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Validates `raw` against SPEC §1.
    /// - Throws: `PermissionError.invalidArgument(field: "app", ...)`.
    public init(_ raw: String) throws(PermissionError) {
        guard Self.isValid(raw) else {
            throw .invalidArgument(
                field: "app", why: "must be a reverse-DNS bundle id: 2 or more labels of A-Z a-z 0-9 -, at most 255 characters")
        }
        rawValue = raw
    }

    /// Wraps a value already validated (read back from the store); not for input.
    package init(trusted raw: String) { rawValue = raw }

    public static func isValid(_ raw: String) -> Bool {
        IdentifierSyntax.bytes(of: raw) { isValid(utf8: $0) }
    }

    private static func isValid(utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        var count = 0
        var labels = 1
        var labelLength = 0
        for byte in utf8 {
            count += 1
            guard count <= 255 else { return false }
            if byte == 0x2E {  // "."
                guard labelLength > 0 else { return false }
                labels += 1
                labelLength = 0
            } else {
                guard byte == 0x2D || IdentifierSyntax.isAlphanumeric(byte) else { return false }
                labelLength += 1
            }
        }
        return labels >= 2 && labelLength > 0
    }

    public var description: String { rawValue }
    public static func < (lhs: AppID, rhs: AppID) -> Bool { lhs.rawValue < rhs.rawValue }
}
