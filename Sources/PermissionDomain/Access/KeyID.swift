/// The public id of an API key (SPEC §6): 16 lowercase hex digits. It is the second part of
/// a `pk_<id>_<random>` secret, so the server finds the key's row without a scan.
public struct KeyID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Validates `raw`.
    /// - Throws: `PermissionError.invalidArgument(field: "id", ...)`.
    public init(_ raw: String) throws(PermissionError) {
        guard Self.isValid(raw) else {
            throw .invalidArgument(field: "id", why: "must be a key id: 16 lowercase hex digits")
        }
        rawValue = raw
    }

    /// Wraps a value already validated (read back from the store); not for input.
    package init(trusted raw: String) { rawValue = raw }

    /// Exactly 16 of `0-9 a-f`; byte-wise, no allocation.
    public static func isValid<Bytes: Collection<UInt8>>(utf8 bytes: Bytes) -> Bool {
        var count = 0
        for byte in bytes {
            guard (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) else { return false }
            count += 1
            guard count <= 16 else { return false }
        }
        return count == 16
    }

    public static func isValid(_ raw: String) -> Bool { isValid(utf8: raw.utf8) }

    public var description: String { rawValue }
    public static func < (lhs: KeyID, rhs: KeyID) -> Bool { lhs.rawValue < rhs.rawValue }
}
