import ArgumentParser
import AuditKeys
import Foundation
import Logging
import SQLiteStore

#if canImport(Glibc)
import Glibc
#endif

/// Where the audit server key comes from: `--audit-key-file`, or `PERMISSION_AUDIT_KEY`.
struct AuditKeySettings: Sendable {
    /// `--audit-key-file`.
    var file: String?
    /// `PERMISSION_AUDIT_KEY`, the key itself. Never logged.
    var key: String?
}

/// The audit server key (SPEC §12): it wraps each user's audit key, so it lives outside the
/// database, and a database is always opened with the key it was first opened with.
///
/// - `PERMISSION_AUDIT_KEY` (the key in base64) or `--audit-key-file`; never both
///   (``ServerConfiguration`` refuses the pair, exit 64).
/// - Neither on SQLite: the file `<database>.audit-key` beside the database, created (`0600`,
///   a new random key) when the database is new. A database that exists while its key file
///   does not is refused rather than given a new key its keys were not wrapped with.
/// - Neither on PostgreSQL: refused (every replica needs the same key, so the operator gives it).
enum AuditKeyLoading {
    /// The key file used beside the SQLite database `path` when none is named.
    static func defaultFile(forDatabase path: String) -> String { path + ".audit-key" }

    /// The keyring for the SQLite database at `path`, and the key file made for it now, if
    /// any (``forget(createdFile:logger:)`` removes it when the database turns out to have keys
    /// of another server key).
    /// - Throws: `ExitCode` 78 (EX_CONFIG) when the key is malformed or unreadable; the reason
    ///   is logged first.
    static func keyring(
        sqlite path: String, settings: AuditKeySettings, logger: Logger
    ) throws
        -> (keyring: AuditKeyring, createdFile: String?)
    {
        if let given = try given(settings, logger: logger) { return (given, nil) }
        let file = defaultFile(forDatabase: path)
        if FileManager.default.fileExists(atPath: file) {
            makePrivate(file, logger: logger)
            return (try read(file, logger: logger), nil)
        }
        // A new key only for a database that has none: one whose users' keys are wrapped already
        // needs its own key back, and a new file in its place would only hide that it is lost.
        let keeps: Bool
        do {
            keeps = try keepsAuditKeys(path)
        } catch {
            logger.critical("cannot read the database file: \(error)", metadata: ["database": "\(path)"])
            throw ExitCode.failure
        }
        if keeps {
            logger.critical(
                "the database's audit key file is missing; restore it from the backup you took with the database, or name it with --audit-key-file",
                metadata: ["audit-key-file": "\(file)"])
            throw ExitCode(ExitCodes.configuration)
        }
        let key = AuditKeyring.newServerKey()
        do {
            let directory = (file as NSString).deletingLastPathComponent
            if !directory.isEmpty {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            try writeNew(file, text: AuditKeyring.text(of: key) + "\n")
        } catch {
            logger.critical("cannot create the audit key file: \(error)", metadata: ["audit-key-file": "\(file)"])
            throw ExitCode(ExitCodes.configuration)
        }
        logger.notice(
            "created a new audit server key; back it up with the database (without it the audit log's personal fields cannot be read)",
            metadata: ["audit-key-file": "\(file)"])
        return (try AuditKeyring(serverKey: key), file)
    }

    /// Whether the SQLite file at `path` keeps audit keys already (its keyring's check value):
    /// false for a file that does not exist or is empty, or a database from before the keys.
    /// - Throws: when the file is there but is not an SQLite database.
    static func keepsAuditKeys(_ path: String) throws -> Bool {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size > 0 else { return false }
        // Read-write, though it only reads: a WAL database's last connection removes the `-wal`
        // and `-shm` it made only if it may write, so a refusal leaves the file as it found it.
        let database = try Database(path: path, mode: .readWrite)
        let table = "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'audit_keyring'"
        guard try database.withStatement(table, { try $0.step() && $0.int(at: 0) > 0 }) else { return false }
        return try database.withStatement("SELECT count(*) FROM audit_keyring") { try $0.step() && $0.int(at: 0) > 0 }
    }

    /// Removes the key file made for a database whose audit keys were wrapped by another server
    /// key (its own key file was lost), and says so: a new key is no substitute.
    static func forget(createdFile file: String, logger: Logger) {
        unlink(file)
        logger.critical(
            "the database's audit key file is missing; restore it from the backup you took with the database, or name it with --audit-key-file",
            metadata: ["audit-key-file": "\(file)"])
    }

    /// The keyring for a PostgreSQL database: the key must be given.
    /// - Throws: `ExitCode` 78 (EX_CONFIG) when it is not, or is malformed or unreadable.
    static func keyring(postgres settings: AuditKeySettings, logger: Logger) throws -> AuditKeyring {
        if let given = try given(settings, logger: logger) { return given }
        logger.critical(
            "a PostgreSQL database needs the audit server key: --audit-key-file FILE or PERMISSION_AUDIT_KEY, the same on every replica (make one with `openssl rand -base64 32`)"
        )
        throw ExitCode(ExitCodes.configuration)
    }

    private static func given(_ settings: AuditKeySettings, logger: Logger) throws -> AuditKeyring? {
        if let text = settings.key {
            do {
                return try AuditKeyring(serverKey: try AuditKeyring.serverKey(fromText: text))
            } catch {
                logger.critical("invalid PERMISSION_AUDIT_KEY: \(error)")
                throw ExitCode(ExitCodes.configuration)
            }
        }
        if let file = settings.file { return try read(file, logger: logger) }
        return nil
    }

    /// Makes the key file the server keeps beside its database (`<database>.audit-key`) private
    /// to its owner, as it does the database: the key undoes every erasure of a copy of the
    /// file. A file named with `--audit-key-file` is the operator's to arrange (a secret mounted
    /// for the server may need to stay readable to others), so only its write bits are warned
    /// about, in ``read(_:logger:)``.
    private static func makePrivate(_ file: String, logger: Logger) {
        var info = stat()
        guard lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o077 != 0 else { return }
        let was = info.st_mode & 0o7777
        guard chmod(file, was & 0o700) == 0 else {
            logger.warning(
                "the audit key file is readable or writable by others and cannot be made private: \(String(cString: strerror(errno)))",
                metadata: ["audit-key-file": "\(file)", "mode": "\(String(was, radix: 8))"])
            return
        }
        logger.notice(
            "the audit key file was readable or writable by others; made it private to its owner",
            metadata: ["audit-key-file": "\(file)", "was": "\(String(was, radix: 8))", "now": "\(String(was & 0o700, radix: 8))"])
    }

    static func read(_ file: String, logger: Logger) throws -> AuditKeyring {
        do {
            let text = try PlainFile.text(at: file)
            var info = stat()
            // Read bits may be needed (a secret file mounted for another uid, inside a private
            // folder); a key others may replace is a mistake to say.
            if stat(file, &info) == 0, info.st_mode & 0o022 != 0 {
                logger.warning(
                    "the audit key file is writable by others; make it private (chmod 600 or 400)",
                    metadata: ["audit-key-file": "\(file)", "mode": "\(String(info.st_mode & 0o777, radix: 8))"])
            }
            return try AuditKeyring(serverKey: try AuditKeyring.serverKey(fromText: text))
        } catch {
            logger.critical("cannot use the audit key file: \(error)", metadata: ["audit-key-file": "\(file)"])
            throw ExitCode(ExitCodes.configuration)
        }
    }

    /// Creates `file` (`0600`, failing if it exists) holding `text`, on disk before it returns.
    private static func writeNew(_ file: String, text: String) throws {
        let fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw PlainFile.Failure(description: String(cString: strerror(errno))) }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(fd) == 0 else {
            unlink(file)
            throw PlainFile.Failure(description: String(cString: strerror(errno)))
        }
    }
}
