import ArgumentParser
import Foundation
import Logging
import SQLiteStore

/// `permission-server backup --to FILE`: a consistent online copy of the database
/// (https://www.sqlite.org/backup.html), safe while a server is serving the same file: the copy
/// is one read snapshot and never blocks the server's writer. Refuses to replace an existing
/// file unless `--force`, and even then replaces only an earlier backup (an SQLite database or
/// an empty file): never a directory, another file, a database a server is serving or whose
/// `-wal` holds pages, or a file of the deployment it copies (the database, its `-wal`, `-shm` or
/// `-journal`, the audit key file).
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the database to a file while it may be serving (a consistent snapshot)."
    )

    @Option(name: .customLong("to"), help: ArgumentHelp("The backup file to create.", valueName: "path"))
    var destination: String

    @Flag(
        help:
            "Replace the backup file if it exists (an earlier backup: an SQLite database no server serves, without a -wal, or an empty file)."
    )
    var force = false

    @OptionGroup var options: SettingOptions<SettingsScopes.Store>

    func run() throws {
        let configuration = try ServerConfiguration.resolve(options)
        LoggingSetup.bootstrap(configuration)
        let logger = Logger(label: "permission-server.backup")
        if case .postgres = configuration.database {
            logger.critical(
                """
                backup copies a SQLite file only; back up a PostgreSQL database with pg_dump \
                (https://www.postgresql.org/docs/15/app-pgdump.html)
                """, metadata: ["database": "\(configuration.database.described)"])
            throw ExitCode(ExitCodes.usage)
        }
        let source = configuration.databasePath
        let files = FileManager.default
        guard files.fileExists(atPath: source) else {
            logger.critical("no database to back up", metadata: ["database": "\(source)"])
            throw ExitCode(ExitCodes.noInput)
        }
        try StoreOpening.refuseUnopenable(source, writing: false, logger: logger)
        let parent = (destination as NSString).deletingLastPathComponent
        var parentIsDirectory: ObjCBool = false
        if !parent.isEmpty, !(files.fileExists(atPath: parent, isDirectory: &parentIsDirectory) && parentIsDirectory.boolValue) {
            logger.critical("cannot back up to --to: its directory does not exist", metadata: ["to": "\(destination)"])
            throw ExitCode(ExitCodes.cannotCreate)
        }
        let target = standardized(destination)
        let deployment =
            [source, source + "-wal", source + "-shm", source + "-journal"]
            + [configuration.auditKeys.file ?? AuditKeyLoading.defaultFile(forDatabase: source)]
        if let own = deployment.first(where: { standardized($0) == target }) {
            logger.critical(
                "--to names a file of the database it copies; name a file of its own",
                metadata: ["to": "\(destination)", "file": "\(own)"])
            throw ExitCode(ExitCodes.usage)
        }
        do {
            try DatabasePool.checkReplaceable(destination)
        } catch let refusal as DatabasePool.BackupRefusal {
            logger.critical("cannot back up to --to: \(refusal)", metadata: ["to": "\(destination)"])
            throw ExitCode(ExitCodes.cannotCreate)
        }
        if files.fileExists(atPath: destination), !force {
            logger.critical("the backup file exists; pass --force to replace it", metadata: ["to": "\(destination)"])
            throw ExitCode(ExitCodes.cannotCreate)
        }
        // At info, so that a long backup shows it is moving: the first step, then at most one
        // line every ``progressInterval``; every step at debug.
        let clock = ContinuousClock()
        var nextInfo = clock.now
        let progress: (DatabasePool.BackupProgress) -> Void = { step in
            let metadata: Logger.Metadata = [
                "copied": "\(step.copied)", "total": "\(step.total)",
                "percent": "\(step.total > 0 ? step.copied * 100 / step.total : 100)",
            ]
            guard clock.now >= nextInfo else {
                logger.debug("backup progress", metadata: metadata)
                return
            }
            nextInfo = clock.now.advanced(by: Self.progressInterval)
            logger.info("backup progress (pages)", metadata: metadata)
        }
        do {
            // The pool, not the store: a backup must not migrate (write) the source file.
            let pool: DatabasePool?
            do {
                pool = try DatabasePool(path: source)
            } catch {
                // A file on read-only storage (a read-only mount, a snapshot) cannot be opened
                // for the pool: read it as one nothing changes, when no -wal holds changes.
                guard try AuditFileReading.onReadOnlyStorage(after: error, path: source) == .immutable else { throw error }
                logger.notice("the file is on read-only storage; reading it as immutable", metadata: ["database": "\(source)"])
                pool = nil
            }
            if let pool {
                try pool.backup(to: destination, progress: progress)
            } else {
                try DatabasePool.backup(immutableFile: source, to: destination, progress: progress)
            }
        } catch let refusal as DatabasePool.BackupRefusal {
            logger.critical("cannot back up to --to: \(refusal)", metadata: ["to": "\(destination)"])
            if case .inProgress = refusal { throw ExitCode(ExitCodes.unavailable) }
            throw ExitCode(ExitCodes.cannotCreate)
        } catch let unread as UnreadWriteAheadLog {
            logger.critical("cannot back up: \(unread)", metadata: ["database": "\(source)"])
            throw ExitCode(ExitCodes.noInput)
        } catch let served as ServedFile {
            logger.critical("cannot back up: \(served)", metadata: ["database": "\(source)"])
            throw ExitCode(ExitCodes.unavailable)
        } catch {
            logger.critical("backup failed: \(error)", metadata: ["database": "\(source)", "to": "\(destination)"])
            throw ExitCode.failure
        }
        print("backed up \(source) to \(destination)")
    }

    /// The least time between two progress lines at info.
    static let progressInterval = Duration.seconds(5)

    private func standardized(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
