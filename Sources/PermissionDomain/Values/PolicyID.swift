/// An operator's name for a policy (`PUT /v1/policies/{id}`): 1-128 characters of
/// `A-Z a-z 0-9 . _ : @ + -`, the user id alphabet.
public struct PolicyID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// - Throws: `PermissionError.invalidArgument(field: "policy", ...)`.
    public init(_ raw: String) throws(PermissionError) {
        guard UserID.isValid(raw) else {
            throw .invalidArgument(field: "policy", why: "must be 1-128 characters of A-Z a-z 0-9 . _ : @ + -")
        }
        rawValue = raw
    }

    /// Wraps a value already validated (read back from the store); not for input.
    package init(trusted raw: String) { rawValue = raw }

    public var description: String { rawValue }
    public static func < (lhs: PolicyID, rhs: PolicyID) -> Bool { lhs.rawValue < rhs.rawValue }
}
