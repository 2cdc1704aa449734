import ArgumentParser
import Foundation
import Logging
import SQLiteStore

/// `permission-server backup --to FILE`: a consistent online copy of the database
/// (https://www.sqlite.org/backup.html), safe while a server is serving the same file: the copy
/// is one read snapshot and never blocks the server's writer. Refuses to replace an existing
/// file unless `--force`.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the database to a file while it may be serving (a consistent snapshot)."
    )

    @Option(name: .customLong("to"), help: ArgumentHelp("The backup file to create.", valueName: "path"))
    var destination: String

    @Flag(help: "Replace the backup file if it exists.")
    var force = false

    @OptionGroup var options: SettingOptions

    func run() throws {
        let configuration = try ServerConfiguration.resolve(options)
        LoggingSetup.bootstrap(format: configuration.logFormat, level: configuration.logLevel)
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
        if files.fileExists(atPath: destination), !force {
            logger.critical("the backup file exists; pass --force to replace it", metadata: ["to": "\(destination)"])
            throw ExitCode(ExitCodes.cannotCreate)
        }
        guard standardized(source) != standardized(destination) else {
            throw ValidationError("--to must name another file than the database")
        }
        do {
            // The pool, not the store: a backup must not migrate (write) the source file.
            let pool = try DatabasePool(path: source)
            try pool.backup(to: destination) { step in
                logger.debug("backup progress", metadata: ["copied": "\(step.copied)", "total": "\(step.total)"])
            }
        } catch {
            logger.critical("backup failed: \(error)", metadata: ["database": "\(source)", "to": "\(destination)"])
            throw ExitCode.failure
        }
        print("backed up \(source) to \(destination)")
    }

    private func standardized(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
