/// The public id of a consent session (SPEC §10): `cs_` and 16 lowercase hex digits. It names
/// the session in `DELETE /v1/consent-sessions/{id}` and as the actor's key id of the changes
/// made through it; it is no secret and opens nothing by itself.
public struct ConsentSessionID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Validates `raw`.
    /// - Throws: `PermissionError.invalidArgument(field: "id", ...)`.
    public init(_ raw: String) throws(PermissionError) {
        guard Self.isValid(raw) else {
            throw .invalidArgument(field: "id", why: "must be a consent session id: cs_ and 16 lowercase hex digits")
        }
        rawValue = raw
    }

    /// Wraps a value already validated (made by the API or read back from the store).
    package init(trusted raw: String) { rawValue = raw }

    /// `cs_` followed by exactly 16 of `0-9 a-f`.
    public static func isValid(_ raw: String) -> Bool {
        let bytes = raw.utf8
        guard bytes.starts(with: "cs_".utf8) else { return false }
        return KeyID.isValid(utf8: bytes.dropFirst(3))
    }

    public var description: String { rawValue }
    public static func < (lhs: ConsentSessionID, rhs: ConsentSessionID) -> Bool { lhs.rawValue < rhs.rawValue }
}
