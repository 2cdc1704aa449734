import ArgumentParser
import Foundation
import Logging
import PermissionDomain
import SQLiteStore

/// `permission-server audit verify`: walks the audit hash chain of the database file through
/// read-only connections (it never migrates or writes the file, and may run while a server
/// serves it) and prints the intact length. Exits 0 when the chain is intact, 1 with the first
/// failing seq and the reason when it is not, 66 when the file is missing.
struct AuditVerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the audit hash chain of the database file (read-only).",
        discussion: "Exit status: 0 intact, 1 broken (the first failing seq is printed), 66 no database file."
    )

    @Option(help: ArgumentHelp("Entries read per query.", valueName: "count"))
    var batchSize = SQLitePermissionStore.defaultVerifyBatchSize

    @OptionGroup var options: SettingOptions

    func run() throws {
        let configuration = try ServerConfiguration.resolve(options)
        LoggingSetup.bootstrap(format: configuration.logFormat, level: configuration.logLevel)
        let logger = Logger(label: "permission-server.audit-verify")
        let path = configuration.databasePath
        guard FileManager.default.fileExists(atPath: path) else {
            logger.critical("no database to verify", metadata: ["database": "\(path)"])
            throw ExitCode(ExitCodes.noInput)
        }
        guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1") }
        let report: AuditChainReport
        do {
            report = try SQLitePermissionStore.verifyAuditChain(path: path, batchSize: batchSize) { checked, total in
                logger.info("verifying the audit chain", metadata: ["checked": "\(checked)", "total": "\(total)"])
            }
        } catch {
            logger.critical("cannot verify: \(error)", metadata: ["database": "\(path)"])
            throw ExitCode.failure
        }
        guard let seq = report.firstFailingSeq, let failure = report.failure else {
            print("audit chain intact: \(report.intactLength) of \(report.totalEntries) entries, head \(report.lastIntactHash ?? "none")")
            return
        }
        print("""
            audit chain broken at seq \(seq) (\(failure.rawValue)): \(report.intactLength) of \(report.totalEntries) \
            entries intact
            """)
        throw ExitCode.failure
    }
}
