import ArgumentParser
import Logging
import PermissionDomain
import SQLiteStore

/// `permission-server migrate`: applies pending migrations to the database file and exits,
/// printing what was applied (one id a line) or that it was up to date.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply pending schema migrations to the database file and exit."
    )

    @OptionGroup var options: SettingOptions

    func run() throws {
        let configuration = try ServerConfiguration.resolve(options)
        LoggingSetup.bootstrap(format: configuration.logFormat, level: configuration.logLevel)
        let logger = Logger(label: "permission-server.migrate")
        let applied: [String]
        do {
            applied = try SQLitePermissionStore.migrate(path: configuration.databasePath) { message, done, total in
                logger.info("\(message)", metadata: ["done": "\(done)", "total": "\(total)"])
            }
        } catch let error as MigrationError {
            logger.critical("refusing to migrate: \(error)", metadata: ["database": "\(configuration.databasePath)"])
            throw ExitCode(ExitCodes.dataError)
        } catch {
            logger.critical("cannot migrate: \(error)", metadata: ["database": "\(configuration.databasePath)"])
            throw ExitCode.failure
        }
        if applied.isEmpty {
            print("\(configuration.databasePath): up to date (\(SQLitePermissionStore.knownMigrations.count) migrations)")
        } else {
            for id in applied { print("applied \(id)") }
            print("\(configuration.databasePath): \(applied.count) migration(s) applied")
        }
    }
}
