import ArgumentParser
import Foundation
import Logging
import PermissionDomain
import PostgresStore
import SQLiteStore

/// `permission-server audit verify`: walks the audit hash chain of the database file through
/// read-only connections (it never migrates or writes the file, and may run while a server
/// serves it; a file on read-only storage is read as immutable), or of a PostgreSQL database in
/// read-only transactions (never migrating it), and prints the intact length, and the API keys
/// the log does not account for (``UnauditedKey``). Exits 0 when the chain is intact and every
/// key accounted for, and 1 with the first failing seq and the reason, or the keys, when not: 1
/// means broken and nothing else. A file that cannot be read is 66, one that is not a permission-server
/// database, or whose log this version cannot read (a newer version's, or one from before the
/// current entry format), 65, a PostgreSQL database that cannot be reached 69.
struct AuditVerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the audit hash chain of the database (read-only).",
        discussion: """
            A file on read-only storage (a read-only mount, a snapshot) is read as immutable.

            Also lists the API keys the log does not account for (a key with no key.created entry, or \
            another role, app or secret hash than its entry's: written into the database around the API).

            Exit status: 0 intact; 1 broken (the first failing seq is printed) or a key not accounted \
            for (each printed); 65 the file is not a \
            permission-server database (not SQLite, empty, damaged, or without the audit chain), or one \
            whose log this version cannot read (migrated by a newer version: verify with that version; from \
            before 8-sealed-personal-fields: verify a migrated copy); 66 no \
            database file, or it cannot be read; 69 a PostgreSQL database that cannot be reached.
            """
    )

    @Option(help: ArgumentHelp("Entries read per query.", valueName: "count"))
    var batchSize = SQLitePermissionStore.defaultVerifyBatchSize

    @OptionGroup var options: SettingOptions<SettingsScopes.Verify>

    func run() throws {
        let configuration = try ServerConfiguration.resolve(options)
        LoggingSetup.bootstrap(configuration)
        let logger = Logger(label: "permission-server.audit-verify")
        guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1") }
        let progress: @Sendable (Int64, Int64) -> Void = { checked, total in
            logger.info("verifying the audit chain", metadata: ["checked": "\(checked)", "total": "\(total)"])
        }
        let database = configuration.database
        let report: AuditChainReport
        let keys: [UnauditedKey]
        switch database {
        case .sqlite(let path):
            guard FileManager.default.fileExists(atPath: path) else {
                logger.critical("no database to verify", metadata: ["database": "\(path)"])
                throw ExitCode(ExitCodes.noInput)
            }
            (report, keys) = try Self.verifyFile(path, batchSize: batchSize, progress: progress, logger: logger)
        case .postgres(let connectionString):
            // The chain hashes what is stored: verifying needs no audit key.
            let store: PostgresPermissionStore
            do {
                store = try StoreOpening.openPostgres(connectionString, keyring: nil, migrating: false, logger: logger)
            } catch let code as ExitCode where code == .failure {
                throw ExitCode(ExitCodes.unavailable)  // logged; 1 would read as a broken chain
            }
            do {
                report = try store.verifyAuditChain(batchSize: batchSize, progress: progress)
                keys = try store.unauditedKeys()
            } catch {
                logger.critical("cannot verify: \(database.scrubbed(error))", metadata: ["database": "\(database.described)"])
                throw ExitCode(ExitCodes.unavailable)
            }
        }
        try Self.printVerdict(report, unauditedKeys: keys)
    }

    /// The report on the file at `path`: read shared, else as immutable where read-only storage
    /// keeps a shared reader out (``AuditFileReading/onReadOnlyStorage(after:path:)``).
    /// - Throws: `ExitCode` 65 when the file is not a permission-server database, 66 when it
    ///   cannot be read; the reason is logged first.
    static func verifyFile(
        _ path: String, batchSize: Int, progress: @escaping @Sendable (Int64, Int64) -> Void, logger: Logger
    ) throws -> (AuditChainReport, [UnauditedKey]) {
        do {
            do {
                let report = try SQLitePermissionStore.verifyAuditChain(path: path, batchSize: batchSize, progress: progress)
                return (report, try SQLitePermissionStore.unauditedKeys(path: path))
            } catch {
                guard let reading = try AuditFileReading.onReadOnlyStorage(after: error, path: path) else { throw error }
                logger.notice(
                    "the file is on read-only storage; reading it as immutable", metadata: ["database": "\(path)"])
                let report = try SQLitePermissionStore.verifyAuditChain(
                    path: path, reading: reading, batchSize: batchSize, progress: progress)
                return (report, try SQLitePermissionStore.unauditedKeys(path: path, reading: reading))
            }
        } catch let error as MigrationError {
            switch error {
            case .databaseNewerThanCode:
                logger.critical("cannot verify: \(error)", metadata: ["database": "\(path)"])
            case .pending:
                logger.critical(
                    """
                    cannot verify: the file is from a version older than the audit log this program reads (\(error)); \
                    verify a migrated copy: cp FILE COPY; permission-server migrate --database COPY (with the file's \
                    audit key); permission-server audit verify --database COPY
                    """,
                    metadata: ["database": "\(path)"])
            }
            throw ExitCode(ExitCodes.dataError)
        } catch let error as NotAnAuditDatabase {
            logger.critical("cannot verify: \(error)", metadata: ["database": "\(path)"])
            throw ExitCode(ExitCodes.dataError)
        } catch let error as ServedFile {
            logger.critical("cannot verify: \(error)", metadata: ["database": "\(path)"])
            throw ExitCode(ExitCodes.unavailable)
        } catch let error as SQLiteError where error.isNotADatabase {
            logger.critical(
                "cannot verify: the file is not an SQLite database, or a damaged one (\(error))",
                metadata: ["database": "\(path)"])
            throw ExitCode(ExitCodes.dataError)
        } catch {
            logger.critical("cannot verify: cannot read the file: \(error)", metadata: ["database": "\(path)"])
            throw ExitCode(ExitCodes.noInput)
        }
    }

    /// Prints the verdict, and a line for each key the log does not account for; throws exit 1
    /// when the chain is broken or such a key exists.
    static func printVerdict(_ report: AuditChainReport, unauditedKeys: [UnauditedKey]) throws {
        if let seq = report.firstFailingSeq, let failure = report.failure {
            print(
                """
                audit chain broken at seq \(seq) (\(failure.rawValue)): \(report.intactLength) of \(report.totalEntries) \
                entries intact
                """)
        } else {
            print(
                "audit chain intact: \(report.intactLength) of \(report.totalEntries) entries, head \(report.lastIntactHash ?? "none")"
            )
        }
        for key in unauditedKeys {
            print("API key \(key.id) (\(key.role.rawValue)) is not accounted for by the audit log: \(key.reason.rawValue)")
        }
        if !report.isIntact || !unauditedKeys.isEmpty { throw ExitCode.failure }
    }
}
