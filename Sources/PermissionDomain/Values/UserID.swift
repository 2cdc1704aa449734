/// The user whose data is protected: an opaque id chosen by the caller (SPEC §1),
/// 1-128 characters of `A-Z a-z 0-9 . _ : @ + -`.
public struct UserID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Validates `raw` against SPEC §1.
    /// - Throws: `PermissionError.invalidArgument(field: "user", ...)`.
    public init(_ raw: String) throws(PermissionError) {
        guard Self.isValid(raw) else {
            throw .invalidArgument(field: "user", why: "must be 1-128 characters of A-Z a-z 0-9 . _ : @ + -")
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
        for byte in utf8 {
            count += 1
            guard count <= 128 else { return false }
            switch byte {
            case 0x2E, 0x5F, 0x3A, 0x40, 0x2B, 0x2D: continue  // . _ : @ + -
            default: guard IdentifierSyntax.isAlphanumeric(byte) else { return false }
            }
        }
        return count > 0
    }

    public var description: String { rawValue }
    public static func < (lhs: UserID, rhs: UserID) -> Bool { lhs.rawValue < rhs.rawValue }
}
