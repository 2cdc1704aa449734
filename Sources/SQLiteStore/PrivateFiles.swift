import Foundation

/// The database's files are private to the user the server runs as (SPEC §12 "Data at rest"):
/// the file is created `0600` and its data directory `0700`, whatever the umask. SQLite gives
/// the `-wal` and `-shm` files it creates the database file's mode
/// (https://www.sqlite.org/tempfiles.html), and a backup is a database file created here too.
/// An existing file (or `-wal`, `-shm`) that others may read or write is tightened to its
/// owner's bits when opened for writing; where that is impossible (a file of another owner, a
/// read-only mount) it is left as it is.
enum PrivateFiles {
    /// Owner read and write.
    static let fileMode: mode_t = 0o600
    /// Owner read, write and search.
    static let directoryMode: mode_t = 0o700

    /// Creates the database file at `path` with ``fileMode`` when it is missing, and takes the
    /// group's and others' bits off it and its `-wal` and `-shm` when present.
    /// - Throws: `SQLiteError` (`SQLITE_CANTOPEN`) when the file cannot be created.
    static func prepareDatabase(at path: String) throws {
        if path.isEmpty || path == ":memory:" || path.hasPrefix("file:") { return }  // no file of its own
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        if descriptor >= 0 {
            _ = fchmod(descriptor, fileMode)  // the umask may have taken bits off
            close(descriptor)
        } else if errno != EEXIST {
            throw SQLiteError.cannotOpen("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        for file in [path, path + "-wal", path + "-shm"] { tighten(file) }
    }

    /// Creates the missing directories of `path` with ``directoryMode``, whatever the umask.
    /// - Throws: `SQLiteError` (`SQLITE_CANTOPEN`) when one cannot be created.
    static func createDirectory(_ path: String) throws {
        var missing: [String] = []
        var current = path
        while !current.isEmpty, current != "/", !FileManager.default.fileExists(atPath: current) {
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        for directory in missing.reversed() {
            if mkdir(directory, directoryMode) != 0 && errno != EEXIST {
                throw SQLiteError.cannotOpen(
                    "cannot create directory \(directory): \(String(cString: strerror(errno)))")
            }
            _ = chmod(directory, directoryMode)  // the umask may have taken bits off
        }
    }

    /// fsync(2)s `path` (a file, or a directory for the names in it): what is written or renamed
    /// there survives a power loss once it returns.
    static func sync(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw SQLiteError.cannotOpen("cannot open \(path) to sync it: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw SQLiteError.cannotOpen("cannot sync \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Takes the group's and others' bits off `file` when it exists and has any.
    private static func tighten(_ file: String) {
        var info = stat()
        guard stat(file, &info) == 0, info.st_mode & 0o077 != 0 else { return }
        _ = chmod(file, info.st_mode & 0o700)  // best effort: see PrivateFiles
    }
}
