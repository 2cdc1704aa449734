/// Persistence of the permission model, implemented over SQLite by `SQLiteStore`.
/// Small and concrete so that each method maps to one SQL statement. Errors thrown by a body propagate unchanged; the store adds its own errors.
public protocol PermissionStore: Sendable {
    /// Runs `body` on a consistent read snapshot; never waits for writers (WAL,
    /// https://sqlite.org/wal.html).
    func read<T>(_ body: (any PermissionReader) throws -> T) throws -> T

    /// Runs `body` as one atomic, durable transaction, serialized with every other write.
    /// The store may group-commit several concurrent bodies, each atomic on its own (a
    /// savepoint): a body that throws leaves no trace. Returns after the commit is durable.
    func write<T: Sendable>(_ body: @Sendable (any PermissionWriter) throws -> T) throws -> T
}
