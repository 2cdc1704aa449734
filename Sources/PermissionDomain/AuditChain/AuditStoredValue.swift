/// One hashed value of an ``AuditRecord`` as the store keeps it: what an export hands over for
/// each of ``AuditChain/columns``, so that a reader can recompute the entry's hash without
/// knowing how the fields are stored.
public enum AuditStoredValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case text(String)
}
