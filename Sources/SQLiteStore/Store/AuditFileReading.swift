import Foundation

/// How `permission-server audit verify` reads a database file it must not change
/// (``SQLitePermissionStore/verifyAuditChain(path:reading:configuration:batchSize:progress:)``).
public enum AuditFileReading: Sendable, Equatable {
    /// Read-only connections that take part in the file's locks and write-ahead log, so a
    /// server may write the file meanwhile. A WAL-mode reader needs the `-shm` file beside the
    /// database, which it makes when it is missing.
    case shared
    /// The file taken as one nothing changes (`immutable=1`,
    /// https://www.sqlite.org/uri.html#uriimmutable): no locks, no `-shm`. For a file on
    /// read-only storage (a read-only mount, a snapshot), where no `-shm` can be made; a backup
    /// made by `backup` is checkpointed, so it has no `-wal` whose changes this would miss.
    case immutable

    /// The reading to try after ``shared`` failed with `error` on the file at `path`:
    /// ``immutable`` when the failure is the one read-only storage gives (SQLite could not open
    /// the file or make its `-shm`: `SQLITE_CANTOPEN`, `SQLITE_READONLY`) and the file or its
    /// directory indeed cannot be written; nil when neither holds (the error stands).
    /// - Throws: ``UnreadWriteAheadLog`` when the storage is read-only but a `-wal` with content
    ///   lies beside the file: read as immutable, the file would lack the changes in it;
    ///   ``ServedFile`` when a server holds the file's serve lock (a read-only mount of a live
    ///   volume): read without SQLite's locks, the copy could be torn by its next checkpoint.
    public static func onReadOnlyStorage(after error: any Error, path: String) throws -> AuditFileReading? {
        guard let error = error as? SQLiteError, error.isCannotOpen || error.isReadOnly else { return nil }
        let files = FileManager.default
        let directory = (path as NSString).deletingLastPathComponent
        guard !files.isWritableFile(atPath: path) || !files.isWritableFile(atPath: directory.isEmpty ? "." : directory)
        else { return nil }
        let wal = path + "-wal"
        if let size = try? files.attributesOfItem(atPath: wal)[.size] as? Int, size > 0 {
            throw UnreadWriteAheadLog(path: wal)
        }
        // SQLite could not open the file: this process holds none of its locks on it.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor >= 0 {
            defer { close(descriptor) }
            if ServeLockProbe.isServed(descriptor) { throw ServedFile(path: path) }
        }
        return .immutable
    }
}

/// A file on read-only storage that a running server holds: read as immutable, without the
/// locks that keep its checkpoints out, a copy or a verification could see the file half written.
public struct ServedFile: Error, CustomStringConvertible {
    /// The database file.
    public let path: String

    public var description: String {
        "a permission-server is serving \(path), and this mount is read-only, so it cannot be read with the locks that "
            + "keep the server's writes out: run the command where the file is writable (docker exec into the server's "
            + "container), or stop the server first"
    }
}

/// A file on read-only storage with a write-ahead log that holds changes: SQLite can read it
/// only where it may make the `-shm` file, and read without it the database would lack them.
public struct UnreadWriteAheadLog: Error, CustomStringConvertible {
    /// The `-wal` file.
    public let path: String

    public var description: String {
        "\(path) holds changes not yet in the database file, and read-only storage keeps SQLite from reading them: "
            + "copy the database with its -wal to writable storage and verify the copy"
    }
}

/// A file that SQLite reads but that holds no audit log with a hash chain: empty, another
/// SQLite database, or a permission-server database from before migration `3-audit-hash-chain`.
public struct NotAnAuditDatabase: Error, CustomStringConvertible {
    public var description: String {
        "the file has no audit log with a hash chain (not a permission-server database, or one from before migration 3-audit-hash-chain)"
    }
}
