/// Why the audit keys cannot be used.
public enum AuditKeyError: Error, Equatable, CustomStringConvertible {
    /// The server key is not 32 bytes in base64.
    case malformedServerKey
    /// The database's keys were wrapped by another server key than the one given.
    case wrongServerKey
    /// A stored key or sealed field does not open: the database was changed outside the
    /// program, or belongs to another server key.
    case unreadable(String)
    /// A rotation was asked for to the server key already in use.
    case sameServerKey

    public var description: String {
        switch self {
        case .malformedServerKey:
            "the audit server key must be 32 random bytes in base64 (44 characters), e.g. from `openssl rand -base64 32`"
        case .wrongServerKey:
            "the audit server key does not match the one this database's audit keys were wrapped with"
        case .unreadable(let what): "cannot open \(what) with the audit server key"
        case .sameServerKey: "the new audit server key is the one the database's audit keys are wrapped with already"
        }
    }
}
