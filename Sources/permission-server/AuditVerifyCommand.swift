import ArgumentParser
import Foundation
import Logging
import PermissionDomain
import PostgresStore
import SQLiteStore

/// `permission-server audit verify`: walks the audit hash chain of the database file through
/// read-only connections (it never migrates or writes the file, and may run while a server
/// serves it), or of a PostgreSQL database in read-only transactions (never migrating it), and
/// prints the intact length. Exits 0 when the chain is intact, 1 with the first
/// failing seq and the reason when it is not, 66 when the file is missing.
struct AuditVerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the audit hash chain of the database (read-only).",
        discussion: "Exit status: 0 intact, 1 broken (the first failing seq is printed), 66 no database file."
    )

    @Option(help: ArgumentHelp("Entries read per query.", valueName: "count"))
    var batchSize = SQLitePermissionStore.defaultVerifyBatchSize

    @OptionGroup var options: SettingOptions

    func run() throws {
        let configuration = try ServerConfiguration.resolve(options)
        LoggingSetup.bootstrap(format: configuration.logFormat, level: configuration.logLevel)
        let logger = Logger(label: "permission-server.audit-verify")
        guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1") }
        let progress: @Sendable (Int64, Int64) -> Void = { checked, total in
            logger.info("verifying the audit chain", metadata: ["checked": "\(checked)", "total": "\(total)"])
        }
        let database = configuration.database
        let report: AuditChainReport
        switch database {
        case .sqlite(let path):
            guard FileManager.default.fileExists(atPath: path) else {
                logger.critical("no database to verify", metadata: ["database": "\(path)"])
                throw ExitCode(ExitCodes.noInput)
            }
            do {
                report = try SQLitePermissionStore.verifyAuditChain(path: path, batchSize: batchSize, progress: progress)
            } catch {
                logger.critical("cannot verify: \(error)", metadata: ["database": "\(path)"])
                throw ExitCode.failure
            }
        case .postgres(let connectionString):
            // The chain hashes what is stored: verifying needs no audit key.
            let store = try StoreOpening.openPostgres(connectionString, keyring: nil, migrating: false, logger: logger)
            do {
                report = try store.verifyAuditChain(batchSize: batchSize, progress: progress)
            } catch {
                logger.critical("cannot verify: \(database.scrubbed(error))", metadata: ["database": "\(database.described)"])
                throw ExitCode.failure
            }
        }
        try Self.printVerdict(report)
    }

    /// Prints the verdict; throws exit 1 when the chain is broken.
    static func printVerdict(_ report: AuditChainReport) throws {
        guard let seq = report.firstFailingSeq, let failure = report.failure else {
            print(
                "audit chain intact: \(report.intactLength) of \(report.totalEntries) entries, head \(report.lastIntactHash ?? "none")"
            )
            return
        }
        print(
            """
            audit chain broken at seq \(seq) (\(failure.rawValue)): \(report.intactLength) of \(report.totalEntries) \
            entries intact
            """)
        throw ExitCode.failure
    }
}
