import PermissionDomain
import StoredRows

/// The change log a replica follows: the audit log itself, read as ``ChangeLogEntry``s, and the
/// catalogue the read model keeps in memory.
extension PostgresSession {
    private static let changesAfter = PreparedStatement(
        """
        SELECT a.seq, a.action, s.user_id, a.app, a.service, a.user_id IS NOT NULL AND s.user_id IS NULL
        FROM audit a LEFT JOIN audit_subjects s ON s.pseudonym = a.user_id
        WHERE a.seq > $1 ORDER BY a.seq LIMIT $2
        """)
    private static let policyServices = PreparedStatement("SELECT DISTINCT service FROM policies")

    /// The entries after `seq`, at most `limit` of them, in order. An entry names its user by
    /// the user's key (the `user` column holds a pseudonym); one whose user was erased since
    /// names none and says so (``ChangeLogEntry/userErased``), which empties the read model as
    /// the erasure's own entry does: that entry may lie past the head the follower read before
    /// the erasure committed.
    ///
    /// They follow each other without a gap from `seq + 1`: every write locks the chain head,
    /// so commits take turns, and a writer gets the lock only once its predecessor's commit is
    /// visible to every new snapshot; whatever a query sees is a prefix of the log. The store
    /// checks that (``PostgresReadModel``).
    func changes(after seq: Int64, limit: Int) throws -> [ChangeLogEntry] {
        try rows(Self.changesAfter, [.int64(seq), Self.limit(limit)]) { try Self.decodeChange($0) }
    }

    /// The custom services and the services that some policy names.
    func catalogue() throws -> PostgresCatalogue {
        var services: [ServiceID: ServiceDefinition] = [:]
        for service in try self.services() { services[service.id] = service }
        let named = try rows(Self.policyServices) { ServiceID(trusted: try $0.required(0, "policies", "service")) }
        return PostgresCatalogue(services: services, policyServices: Set(named))
    }

    private static func decodeChange(_ row: PostgresRow) throws -> ChangeLogEntry {
        ChangeLogEntry(
            seq: try row.int64(at: 0), action: AuditAction(try row.required(1, "audit", "action")),
            user: row.optionalString(at: 2).map(UserID.init(trusted:)),
            app: row.optionalString(at: 3).map(AppID.init(trusted:)),
            service: row.optionalString(at: 4).map(ServiceID.init(trusted:)), userErased: try row.bool(at: 5))
    }
}
