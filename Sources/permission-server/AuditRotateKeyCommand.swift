import ArgumentParser
import AuditKeys
import Foundation
import Logging
import PostgresStore
import SQLiteStore

/// `permission-server audit rotate-key --new-key-file FILE`: replaces the audit server key
/// (SPEC §12). Every user's audit key is wrapped again under the new server key in one
/// transaction, with one `audit.key.rotated` entry; no entry changes, so the chain still
/// verifies. The current key comes from the usual settings (`--audit-key-file`,
/// `PERMISSION_AUDIT_KEY`, or `<database>.audit-key`).
///
/// A server still running on the old key could not read the keys wrapped again and would wrap
/// a new user's key under the old one, so the rotation runs with no server on the database: on
/// SQLite it takes the file's serve lock (a serving server makes it exit 69, and none can start
/// until it is done); on PostgreSQL it exits 69 while any connection of a running server is open
/// on the database (by the names their connections report), and a replica started meanwhile or
/// left running unseen refuses to make a new user's key afterwards (503) rather than make it
/// under the old key.
struct AuditRotateKeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-key",
        abstract: "Wrap every user's audit key under a new audit server key (no server may run on the database).",
        discussion: """
            Make the new key with `openssl rand -base64 32 > FILE; chmod 600 FILE`. The current key \
            comes from --audit-key-file, PERMISSION_AUDIT_KEY or <database>.audit-key, as for `serve`. \
            Afterwards start the server (every replica) with --audit-key-file FILE, and keep the old key \
            as long as you keep backups taken before: they still need it.

            Exit status: 0 rotated; 1 the database failed meanwhile or could not be opened (nothing \
            changed); 64 a bad setting; 65 the database is newer than this program; 66 no database file; \
            69 a server serves the file or (PostgreSQL) is connected to the database, or a PostgreSQL database that \
            cannot be reached or refuses the login; 73 the database path cannot be opened as a file (a \
            directory, no permission); 78 a key missing, malformed or unreadable, the \
            current key not the database's, or the new key the same.
            """
    )

    @Option(
        name: .customLong("new-key-file"),
        help: ArgumentHelp("The new audit server key: a file holding 32 random bytes in base64.", valueName: "file"))
    var newKeyFile: String

    @OptionGroup var options: SettingOptions<SettingsScopes.Store>

    func run() throws {
        let configuration = try ServerConfiguration.resolve(options)
        LoggingSetup.bootstrap(configuration)
        let logger = Logger(label: "permission-server.audit-rotate-key")
        let newKeyring = try AuditKeyLoading.read(newKeyFile, logger: logger)
        let progress: (Int64, Int64) -> Void = { done, total in
            logger.info("wrapping the users' audit keys again", metadata: ["done": "\(done)", "total": "\(total)"])
        }
        let rotated: Int64
        switch configuration.database {
        case .sqlite(let path):
            guard FileManager.default.fileExists(atPath: path) else {
                logger.critical("no database at --database", metadata: ["database": "\(path)"])
                throw ExitCode(ExitCodes.noInput)
            }
            let lock: ServeLock
            do {
                lock = try ServeLock(path: path)
                if let reason = lock.unsupported {
                    logger.warning(
                        "cannot lock the database file (\(reason)); make sure no server runs on it (one on the old key will refuse to make new users' keys)",
                        metadata: ["database": "\(path)"])
                }
            } catch {
                logger.critical("cannot rotate the audit key: \(error)", metadata: ["database": "\(path)"])
                // Held: worth retrying (69). Not openable (a directory, no permission): 73, as
                // every command that opens the file exits.
                throw ExitCode(error.isHeld ? ExitCodes.unavailable : ExitCodes.cannotCreate)
            }
            // The store is closed before the lock goes: closing the lock's descriptor first
            // would drop SQLite's own locks on the file.
            let store = try StoreOpening.open(path: path, keys: configuration.auditKeys, logger: logger)
            defer {
                StoreOpening.close(store, logger: logger)
                lock.release()
            }
            rotated = try Self.rotating(logger, database: configuration.database) {
                try store.rotateAuditServerKey(to: newKeyring, progress: progress)
            }
        case .postgres(let connectionString):
            // Replicas still running on the old key could read no user's key once it is done:
            // refused while their connections are open, as a serving file's lock refuses on SQLite.
            let running: Int
            do {
                running = try PostgresPermissionStore.runningServerConnections(connectionString: connectionString)
            } catch {
                logger.critical(
                    "cannot open the database: \(configuration.database.scrubbed(error))",
                    metadata: ["database": "\(configuration.database.described)"])
                throw StoreOpening.exitCode(openingPostgres: error)
            }
            guard running == 0 else {
                logger.critical(
                    "cannot rotate the audit key: permission-server replicas are connected to the database; stop every replica first (a replica on the old key could read no user's audit key afterwards)",
                    metadata: ["database": "\(configuration.database.described)", "connections": "\(running)"])
                throw ExitCode(ExitCodes.unavailable)
            }
            // 69 when it cannot be reached or refuses the login, 1 for any other failure (logged).
            let store = try StoreOpening.openPostgres(connectionString, keys: configuration.auditKeys, logger: logger)
            defer { store.close() }
            rotated = try Self.rotating(logger, database: configuration.database) {
                try store.rotateAuditServerKey(to: newKeyring, progress: progress)
            }
        }
        print(
            """
            audit server key rotated: \(rotated) users' keys wrapped under \(newKeyFile); start the server with \
            --audit-key-file \(newKeyFile), and keep the old key for the backups taken before
            """)
    }

    /// Runs `rotation`, mapping its failures to an exit status, the reason logged first.
    private static func rotating(
        _ logger: Logger, database: DatabaseLocation, _ rotation: () throws -> Int64
    ) throws -> Int64 {
        do {
            let rotated = try rotation()
            logger.notice(
                "the audit server key was rotated; the old key opens only backups taken before",
                metadata: ["database": "\(database.described)", "subjects": "\(rotated)"])
            return rotated
        } catch let error as KeyRotationOutcomeUnknown {
            logger.critical(
                "cannot tell whether the audit key was rotated: \(error)",
                metadata: ["database": "\(database.described)", "cause": "\(database.scrubbed(text: error.cause))"])
            throw ExitCode.failure
        } catch let error as AuditKeyError {
            logger.critical(
                "cannot rotate the audit key: \(error); nothing changed", metadata: ["database": "\(database.described)"])
            throw ExitCode(ExitCodes.configuration)
        } catch {
            logger.critical(
                "cannot rotate the audit key: \(database.scrubbed(error)); nothing changed",
                metadata: ["database": "\(database.described)"])
            throw ExitCode.failure
        }
    }
}
