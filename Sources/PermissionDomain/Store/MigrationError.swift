/// Why a store refuses a database (the same for every store: SQLite and PostgreSQL keep
/// their own lists of migration ids, and refuse alike).
public enum MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database has applied migrations this code does not know: it was written by a newer
    /// version, and running older code on it could corrupt it.
    case databaseNewerThanCode(unknownIDs: [String])
    /// The database still has migrations to apply (for readiness checks).
    case pending(ids: [String])

    public var description: String {
        switch self {
        case .databaseNewerThanCode(let ids):
            """
            the database is newer than this program: unknown applied migrations \(ids.joined(separator: ", ")). \
            Run the newer version that migrated it; to go back to this version, restore the backup taken \
            before the upgrade (a migrated database cannot be migrated back)
            """
        case .pending(let ids):
            "the database is not migrated: pending migrations \(ids.joined(separator: ", "))"
        }
    }
}
