internal import CSQLite
import Foundation

/// Online backup (https://www.sqlite.org/backup.html).
extension DatabasePool {
    /// Progress of a backup, in pages.
    package struct BackupProgress: Sendable, Equatable {
        /// Pages copied so far.
        package var copied: Int
        /// Pages in the source database.
        package var total: Int
    }

    /// Why a backup refused its destination (nothing was written or removed).
    package enum BackupRefusal: Error, Equatable, CustomStringConvertible {
        /// The path is a directory or another kind of file than a regular one.
        case notAFile(String)
        /// A regular file that is neither empty nor an SQLite database: not an earlier backup.
        case notADatabase(String)
        /// A database a server is serving (it holds the file's serve lock): not an earlier backup.
        case serving(String)
        /// A database whose `-wal` holds pages: one in use, or not closed cleanly, whose latest
        /// writes are only there. A backup leaves none (it is checkpointed and closed).
        case hasLog(String)
        /// The copy, or the lock, cannot be created beside the path (a directory this process
        /// may not write in, a read-only file system): the reason.
        case cannotCreate(String, reason: String)
        /// Another backup to the same path is running (it holds `<path>.lock`).
        case inProgress(String)
        /// The lock beside the path cannot be taken: a file system without `flock` (some
        /// network mounts): the reason.
        case cannotLock(String, reason: String)

        package var description: String {
            switch self {
            case .notAFile(let path): "\(path) is not a regular file (a directory?); name the backup file to create"
            case .notADatabase(let path):
                "\(path) is not an SQLite database; a backup replaces only an earlier backup (or an empty file)"
            case .serving(let path):
                "\(path) is a database a permission-server is serving, not an earlier backup; name another file"
            case .hasLog(let path):
                "\(path)-wal holds pages: \(path) is a database in use or not closed cleanly, not an earlier backup; name another file"
            case .cannotCreate(let path, let reason):
                "cannot create \(path) beside the backup (\(reason)); name a directory this user may write in"
            case .inProgress(let path):
                "another backup to \(path) is running (it holds \(path).lock); run this one again once it ended"
            case .cannotLock(let path, let reason):
                "cannot lock \(path) (\(reason)): this file system does not take locks; back up to a local directory and copy the file from there"
            }
        }
    }

    /// Copies the database to `destination` while it keeps serving.
    ///
    /// The copy is taken from a reader that holds one read transaction for the whole backup,
    /// so it is a consistent snapshot even though the writer keeps committing (WAL readers do not
    /// block the writer). Pages are copied `pagesPerStep` at a time with `sqlite3_backup_step`,
    /// reporting progress after each step. The copy is written next to `destination` and
    /// renamed over it when complete, so a failed backup never leaves a partial file there (and
    /// removes its own). The copy is checked with `PRAGMA quick_check` before it is moved into
    /// place (``checkIntact(_:)``): a damaged source makes no backup.
    ///
    /// What it replaces is checked first: `destination` may be missing, empty or an SQLite
    /// database (an earlier backup), and its `-wal` and `-shm` (and `destination.partial`'s) only
    /// regular files; anything else, a directory above all, is refused with ``BackupRefusal``
    /// before anything is written or removed.
    /// - Parameters:
    ///   - destination: the file to create or replace.
    ///   - pagesPerStep: pages per `sqlite3_backup_step` call.
    ///   - progress: called after each step (for logging large databases).
    package func backup(
        to destination: String, pagesPerStep: Int32 = 4_096, progress: ((BackupProgress) -> Void)? = nil
    ) throws {
        let configuration = self.configuration
        try Self.copy(to: destination, configuration: configuration) { target in
            try read { source in
                // The read transaction `read` opened pins one snapshot for every step; reading
                // the schema makes sure it has started.
                try source.withStatement("SELECT count(*) FROM sqlite_schema") { _ = try $0.step() }
                try Self.copy(from: source, to: target, pagesPerStep: pagesPerStep, progress: progress)
            }
        }
    }

    /// ``backup(to:pagesPerStep:progress:)`` of a file on read-only storage (a read-only mount,
    /// a snapshot), read as one nothing changes (``Database/Mode/immutable``): no pool, no
    /// locks, no `-shm`, which such storage cannot hold. The caller has checked that no `-wal`
    /// with content lies beside it (``AuditFileReading/onReadOnlyStorage(after:path:)``), whose
    /// changes the copy would lack.
    package static func backup(
        immutableFile path: String, to destination: String, configuration: DatabaseConfiguration = .init(),
        pagesPerStep: Int32 = 4_096, progress: ((BackupProgress) -> Void)? = nil
    ) throws {
        try copy(to: destination, configuration: configuration) { target in
            let source = try Database(path: path, mode: .immutable, configuration: configuration)
            defer { source.close() }
            try copy(from: source, to: target, pagesPerStep: pagesPerStep, progress: progress)
        }
    }

    /// Checks what `destination` replaces, has `fill` copy the database into a new file beside
    /// it, checks the copy, syncs it and renames it over `destination` (then syncs the
    /// directory); a failure leaves no partial file and the earlier backup as it was.
    private static func copy(
        to destination: String, configuration: DatabaseConfiguration, fill: (Database) throws -> Void
    ) throws {
        let temporary = destination + ".partial"
        try checkReplaceable(destination)
        for file in sidecars(of: destination) + [temporary] + sidecars(of: temporary) + [destination + ".lock"] {
            try checkRemovable(file)
        }
        // Held to the end: another backup to the same path would remove this one's copy, or
        // write into it, and one of them move the other's unfinished file into place.
        let lock = try BackupLock(destination)
        defer { lock.release() }
        try removeFiles(at: temporary)  // a leftover of a backup that was killed
        do {
            // Without a journal: the pages go into the copy itself, so a backup needs free space
            // for one copy of the database, not a second one for a `-wal` it would be checkpointed
            // from. A copy that fails is removed, never read.
            let target: Database
            do {
                target = try Database(path: temporary, mode: .unjournaled, configuration: configuration)
            } catch let error as SQLiteError {
                throw BackupRefusal.cannotCreate(temporary, reason: error.message)
            }
            defer { target.close() }
            try fill(target)
            try checkIntact(target)
            target.close()
            try PrivateFiles.sync(temporary)
        } catch {
            try? removeFiles(at: temporary)
            throw error
        }
        // rename(2) replaces an earlier backup in one step: at every moment the path holds the
        // old backup or the new one, never neither. Its sidecars (an empty `-wal`, a `-shm`,
        // checked above) are the old file's and go after; the directory is synced so that the
        // rename itself survives a power loss.
        guard rename(temporary, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            try? removeFiles(at: temporary)
            throw SQLiteError.cannotOpen("cannot move the backup into place at \(destination): \(reason)")
        }
        for file in sidecars(of: destination) where FileManager.default.fileExists(atPath: file) {
            try checkRemovable(file)
            do {
                try FileManager.default.removeItem(atPath: file)
            } catch {
                throw SQLiteError.cannotOpen("cannot remove \(file): \(error)")
            }
        }
        // A file system that cannot sync a directory (some network and FUSE mounts answer
        // EINVAL) leaves the rename to its own guarantees, as SQLite does with its journal's
        // directory: the backup is in place either way, and is not reported as failed.
        let directory = (destination as NSString).deletingLastPathComponent
        try? PrivateFiles.sync(directory.isEmpty ? "." : directory)
    }

    /// Throws ``SQLiteError/corrupt(_:)`` unless `PRAGMA quick_check` finds `database` intact
    /// (https://www.sqlite.org/pragma.html#pragma_quick_check: every page and record well
    /// formed, without comparing indexes to their tables): a copy of a damaged file would be a
    /// damaged backup, found out only when it is needed.
    static func checkIntact(_ database: Database) throws {
        var problems: [String] = []
        do {
            try database.withStatement("PRAGMA quick_check(10)") { statement in
                while try statement.step() { problems.append(statement.string(at: 0) ?? "") }
            }
        } catch {
            problems.append("\(error)")  // damage the check itself stops at
        }
        guard problems != ["ok"] else { return }
        throw SQLiteError.corrupt(
            "the copy is not intact (PRAGMA quick_check): " + problems.joined(separator: "; ")
                + "; the source database is damaged: restore it from an earlier backup")
    }

    /// The first 16 bytes of every SQLite database file (https://www.sqlite.org/fileformat.html).
    static let databaseHeader = Array("SQLite format 3\u{0}".utf8)

    /// Throws unless `path` is missing, or a regular file that is empty or an earlier backup: an
    /// SQLite database no server is serving (`flock`, as `serve` locks its file) with no pages in
    /// a `-wal` beside it.
    package static func checkReplaceable(_ path: String) throws {
        guard let kind = try fileKind(path) else { return }
        guard kind == .typeRegular else { throw BackupRefusal.notAFile(path) }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw BackupRefusal.notADatabase(path) }
        defer { try? handle.close() }
        let start = (try? handle.read(upToCount: databaseHeader.count)) ?? Data()
        guard start.isEmpty || Array(start) == databaseHeader else { throw BackupRefusal.notADatabase(path) }
        // This process has no SQLite connection to `path`: the probe drops no lock of its own.
        if ServeLockProbe.isServed(handle.fileDescriptor) { throw BackupRefusal.serving(path) }
        var log = stat()
        if lstat(path + "-wal", &log) == 0, log.st_mode & S_IFMT == S_IFREG, log.st_size > 0 {
            throw BackupRefusal.hasLog(path)
        }
    }

    /// Throws unless `path` is missing or a regular file.
    static func checkRemovable(_ path: String) throws {
        if let kind = try fileKind(path), kind != .typeRegular { throw BackupRefusal.notAFile(path) }
    }

    /// The type of the file at `path` itself (a symbolic link is one), nil when there is none.
    private static func fileKind(_ path: String) throws -> FileAttributeType? {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            if errno == ENOENT { return nil }
            throw SQLiteError.cannotOpen("cannot inspect \(path): \(String(cString: strerror(errno)))")
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return .typeRegular
        case S_IFDIR: return .typeDirectory
        case S_IFLNK: return .typeSymbolicLink
        default: return .typeUnknown
        }
    }

    /// An exclusive `flock(2)` on `<destination>.lock` (created `0600`, kept after the backup:
    /// removing it would let a third backup lock a new file while the second holds the old one).
    private struct BackupLock {
        private let descriptor: Int32

        /// - Throws: ``BackupRefusal/inProgress(_:)`` when another backup holds it;
        ///   ``BackupRefusal/cannotCreate(_:reason:)`` when it cannot be created;
        ///   ``BackupRefusal/cannotLock(_:reason:)`` when it cannot be locked.
        init(_ destination: String) throws {
            let path = destination + ".lock"
            let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, PrivateFiles.fileMode)
            guard descriptor >= 0 else {
                throw BackupRefusal.cannotCreate(path, reason: String(cString: strerror(errno)))
            }
            _ = fchmod(descriptor, PrivateFiles.fileMode)  // the umask may have taken bits off
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                let busy = errno == EWOULDBLOCK
                let reason = String(cString: strerror(errno))
                Glibc.close(descriptor)
                throw busy ? BackupRefusal.inProgress(destination) : BackupRefusal.cannotLock(path, reason: reason)
            }
            self.descriptor = descriptor
        }

        /// Closing the descriptor releases the lock.
        func release() { Glibc.close(descriptor) }
    }

    /// The files SQLite keeps beside a database in WAL mode.
    private static func sidecars(of path: String) -> [String] { [path + "-wal", path + "-shm"] }

    private static func copy(
        from source: Database, to target: Database, pagesPerStep: Int32, progress: ((BackupProgress) -> Void)?
    ) throws {
        guard let backup = sqlite3_backup_init(target.handle, "main", source.handle, "main") else {
            throw SQLiteError(connection: target.handle, resultCode: sqlite3_errcode(target.handle), sql: nil)
        }
        var code = SQLITE_OK
        repeat {
            code = sqlite3_backup_step(backup, pagesPerStep)
            let total = Int(sqlite3_backup_pagecount(backup))
            progress?(BackupProgress(copied: total - Int(sqlite3_backup_remaining(backup)), total: total))
            if code == SQLITE_BUSY || code == SQLITE_LOCKED { sqlite3_sleep(10) }
        } while code == SQLITE_OK || code == SQLITE_BUSY || code == SQLITE_LOCKED
        let finish = sqlite3_backup_finish(backup)
        if code != SQLITE_DONE {
            throw SQLiteError(connection: target.handle, resultCode: code, sql: nil)
        }
        try target.check(finish, sql: nil)
    }

    /// Removes `path` and its sidecars; each must be missing or a regular file (never a
    /// directory: `removeItem` would remove a whole tree).
    private static func removeFiles(at path: String) throws {
        for file in [path] + Self.sidecars(of: path) where FileManager.default.fileExists(atPath: file) {
            try Self.checkRemovable(file)
            do {
                try FileManager.default.removeItem(atPath: file)
            } catch {
                throw SQLiteError.cannotOpen("cannot remove \(file): \(error)")
            }
        }
    }
}
