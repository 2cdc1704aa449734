import ArgumentParser
import AuditKeys
import Foundation
import Logging
import PermissionDomain
import PostgresStore
import SQLiteStore

/// `permission-server migrate`: applies pending migrations to the database (a SQLite file, or a
/// PostgreSQL database under the migrations' advisory lock) and exits, printing what was applied
/// (one id a line) or that it was up to date. A SQLite path with no file makes a new database
/// (and its audit key file), with a warning that names the path and the working directory.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply pending schema migrations to the database (SQLite file or PostgreSQL) and exit."
    )

    @OptionGroup var options: SettingOptions<SettingsScopes.Store>

    func run() throws {
        let configuration = try ServerConfiguration.resolve(options)
        LoggingSetup.bootstrap(configuration)
        let logger = Logger(label: "permission-server.migrate")
        let database = configuration.database
        let applied: [String]
        let known: Int
        var madeNew = false
        do {
            switch database {
            case .sqlite(let path):
                known = SQLitePermissionStore.knownMigrations.count
                try StoreOpening.refuseUnopenable(path, logger: logger)
                madeNew = !FileManager.default.fileExists(atPath: path)
                applied = try StoreOpening.reportingPrivateFiles(path, logger: logger) {
                    let keyring = try AuditKeyLoading.keyring(sqlite: path, settings: configuration.auditKeys, logger: logger)
                        .keyring
                    return try SQLitePermissionStore.migrate(path: path, keyring: keyring) { message, done, total in
                        logger.info("\(message)", metadata: ["done": "\(done)", "total": "\(total)"])
                    }
                }
            case .postgres(let connectionString):
                known = PostgresPermissionStore.knownMigrations.count
                let keyring = try AuditKeyLoading.keyring(postgres: configuration.auditKeys, logger: logger)
                applied = try PostgresPermissionStore.migrate(
                    connectionString: connectionString, keyring: keyring,
                    waiting: StoreOpening.migrationWaiting(database: database.described, logger))
            }
        } catch let error as MigrationError {
            logger.critical("refusing to migrate: \(error)", metadata: ["database": "\(database.described)"])
            throw ExitCode(ExitCodes.dataError)
        } catch let error as AuditKeyError {
            logger.critical("refusing to migrate: \(error)", metadata: ["database": "\(database.described)"])
            throw ExitCode(ExitCodes.configuration)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            logger.critical("cannot migrate: \(database.scrubbed(error))", metadata: ["database": "\(database.described)"])
            throw StoreOpening.exitCode(openingPostgres: error)
        }
        if madeNew {
            // Made, as a service manager's step before `serve` relies on, but said: a mistyped or
            // relative --database would otherwise have migrated a new, empty file in silence.
            logger.warning(
                "no database was at --database, so a new one was made: a server running on another file was not migrated (give --database the file it serves)",
                metadata: ["database": "\(database.described)", "directory": "\(KeysCommand.workingDirectory)"])
        }
        if applied.isEmpty {
            print("\(database.described): up to date (\(known) migrations)")
        } else {
            for id in applied { print("applied \(id)") }
            print("\(database.described): \(applied.count) migration(s) applied")
        }
    }
}
