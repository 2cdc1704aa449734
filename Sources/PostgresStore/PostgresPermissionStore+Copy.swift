import PermissionDomain

/// `permission-server copy` (and nothing else): filling an empty database with the rows of
/// another store, the audit log with its stored chain columns as they are.
extension PostgresPermissionStore {
    private static let rebindCheckValue = PreparedStatement("UPDATE audit_keyring SET check_value = $1 WHERE id = 1")

    /// Runs `body` in one writing transaction (the chain head locked) on a database that holds
    /// no data yet: no app, authorization, policy, user setting, prompt, API key or audit entry.
    /// The `services` table is emptied first: the source's rows replace built-in service rows
    /// an earlier start may have written; and the database's audit server key becomes this
    /// store's (the source's): a `migrate` or a failed copy before may have bound the empty
    /// database to another. Nothing is committed unless `body` returns.
    /// - Throws: ``PostgresCopyTargetNotEmpty`` naming the tables that hold rows; what `body`
    ///   throws; ``PermissionError/unavailable(why:cause:)`` when the database is lost.
    package func copyIn<T>(_ body: (PostgresCopySession) throws -> T) throws -> T {
        try run(begin: "BEGIN", lockHead: true) { session in
            let copy = PostgresCopySession(session: session)
            try copy.requireEmpty()
            try session.connection.execute("DELETE FROM services")  // cascades to service_levels
            if let keyring {
                // Empty: no user's key is wrapped under the key it was bound to.
                try session.connection.execute(Self.rebindCheckValue, [.text(keyring.newCheckValue())])
            }
            return try body(copy)
        }
    }
}
