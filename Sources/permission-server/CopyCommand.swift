import ArgumentParser
import AuditKeys
import Foundation
import Logging
import PermissionDomain
import PostgresStore
import SQLiteStore

/// `permission-server copy --from FILE --to URI`: moves a SQLite deployment into an empty
/// PostgreSQL database: apps, services, policies, authorizations, user settings, prompts, API
/// keys (their hashes) and the audit log row by row with the same `seq`, `prev_hash` and `hash`
/// (the stored chain, not hashed again), all in one PostgreSQL transaction, so a failed copy
/// leaves the target as it was. The file is read through one read-only connection in one read
/// transaction: one consistent snapshot, even while a server serves the file. After the commit
/// the chain is verified on PostgreSQL and must end at the source's head.
struct CopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy a SQLite database file into an empty PostgreSQL database, audit chain intact.",
        discussion: """
            The target is migrated if needed and must hold no app, authorization, policy, user setting, \
            prompt, API key or audit entry. The password comes from the URI, PGPASSWORD or \
            --database-password-file. Exit status: 0 copied and verified, 1 failed (nothing copied) or the \
            copy's chain does not verify, 65 the file is not migrated to this version, 66 no such file, \
            69 the target cannot be reached or refuses the login, or the connection was lost (nothing copied; \
            lost during the commit, maybe copied: run audit verify on the target), 73 the target is not empty.
            """
    )

    @Option(name: .customLong("from"), help: ArgumentHelp("The SQLite database file to copy (read only).", valueName: "path"))
    var source: String

    @Option(
        name: .customLong("to"), help: ArgumentHelp("The PostgreSQL database: postgres://… or postgresql://….", valueName: "uri"))
    var target: String

    @Option(help: ArgumentHelp("Rows copied between two progress lines of a table.", valueName: "n"))
    var progressEvery = 10_000

    @OptionGroup var options: SettingOptions<SettingsScopes.Copy>

    func run() throws {
        let configuration = try ServerConfiguration.resolve(options, passwordForDatabase: false)
        LoggingSetup.bootstrap(configuration)
        let logger = Logger(label: "permission-server.copy")
        guard DatabaseLocation.isPostgresURI(target) else {
            throw ValidationError("--to must be a PostgreSQL URI (postgres://… or postgresql://…)")
        }
        guard !ConnectionString.hasAmbiguousUserInfo(target) else {
            throw ValidationError(
                "--to \(ConnectionString.redacted(target)): \(ConnectionString.ambiguousUserInfoAdvice)")
        }
        guard progressEvery > 0 else { throw ValidationError("--progress-every must be at least 1") }
        guard FileManager.default.fileExists(atPath: source) else {
            logger.critical("no database file to copy", metadata: ["from": "\(source)"])
            throw ExitCode(ExitCodes.noInput)
        }
        let destination = DatabaseLocation(target, password: configuration.databasePassword)
        guard case .postgres(let connectionString) = destination else { preconditionFailure("checked above") }

        let file: Database
        do {
            file = try Database(path: source, mode: .readOnly)
            try Self.requireMigrated(file)
        } catch let error as MigrationError {
            logger.critical("refusing to copy: \(error)", metadata: ["from": "\(source)"])
            throw ExitCode(ExitCodes.dataError)
        } catch {
            logger.critical("cannot read the database file: \(error)", metadata: ["from": "\(source)"])
            throw ExitCode.failure
        }
        // The file's users' keys are copied as they are, wrapped: the target takes the file's server key.
        let keyring = try AuditKeyLoading.keyring(sqlite: source, settings: configuration.auditKeys, logger: logger).keyring
        let checkValue = try? file.withStatement("SELECT check_value FROM audit_keyring WHERE id = 1") {
            try $0.step() ? $0.string(at: 0) : nil
        }
        guard let checkValue, keyring.matches(checkValue: checkValue) else {
            logger.critical("refusing to copy: \(AuditKeyError.wrongServerKey)", metadata: ["from": "\(source)"])
            throw ExitCode(ExitCodes.configuration)
        }
        // Whichever key an earlier `migrate` (or a failed copy) bound the target to: an empty
        // target takes the file's in the copy's transaction, and a non-empty one is refused there.
        let store = try StoreOpening.openPostgres(
            connectionString, keyring: keyring, checkingServerKey: false, logger: logger)
        let metadata: Logger.Metadata = ["from": "\(source)", "to": "\(destination.described)"]
        logger.info("copying", metadata: metadata)

        let copied: Copied
        do {
            // One read transaction: every table is read from the same snapshot of the file.
            try file.execute("BEGIN")
            defer { try? file.execute("COMMIT") }
            copied = try store.copyIn { session in try copyRows(from: file, to: session, logger: logger) }
        } catch let error as PostgresCopyTargetNotEmpty {
            logger.critical("refusing to copy: \(error)", metadata: metadata)
            throw ExitCode(ExitCodes.cannotCreate)
        } catch PermissionError.unavailable(let why, let cause) where why == PermissionError.commitOutcomeUnknown {
            // Run again, a copy that was made is refused (73) and one that was not is made.
            logger.critical(
                """
                the connection was lost during the copy's commit, so the rows may have been copied or not: run \
                `permission-server audit verify --database URI` on the target (it lists the file's entries if they were \
                copied), or run the copy again (refused with 73 if it was made)
                """,
                metadata: metadata.merging(["cause": "\(destination.scrubbed(text: cause ?? ""))"]) { $1 })
            throw ExitCode(ExitCodes.unavailable)
        } catch PermissionError.unavailable(let why, let cause) {
            // The database was lost or busy before the commit: worth running again.
            logger.critical(
                "copy failed, nothing was copied: \(why)",
                metadata: metadata.merging(["cause": "\(destination.scrubbed(text: cause ?? ""))"]) { $1 })
            throw ExitCode(ExitCodes.unavailable)
        } catch {
            logger.critical("copy failed, nothing was copied: \(destination.scrubbed(error))", metadata: metadata)
            throw ExitCode.failure
        }
        for (table, rows) in copied.rows { print("copied \(rows) row(s) of \(table)") }

        let report: AuditChainReport
        let keys: [UnauditedKey]
        do {
            report = try store.verifyAuditChain(batchSize: SQLitePermissionStore.defaultVerifyBatchSize) { checked, total in
                logger.info("verifying the audit chain", metadata: ["checked": "\(checked)", "total": "\(total)"])
            }
            keys = try store.unauditedKeys()
        } catch PermissionError.unavailable(let why, let cause) {
            logger.critical(
                "copied, but cannot verify the copy: \(why); run `permission-server audit verify --database URI` on the target",
                metadata: metadata.merging(["cause": "\(destination.scrubbed(text: cause ?? ""))"]) { $1 })
            throw ExitCode(ExitCodes.unavailable)
        } catch {
            logger.critical("cannot verify the copy: \(destination.scrubbed(error))", metadata: metadata)
            throw ExitCode.failure
        }
        try AuditVerifyCommand.printVerdict(report, unauditedKeys: keys)
        guard report.totalEntries == copied.auditEntries, report.lastIntactHash == copied.auditHead else {
            logger.critical(
                "the copy's audit chain does not end where the file's does",
                metadata: [
                    "head": "\(copied.auditHead ?? "none")", "copy-head": "\(report.lastIntactHash ?? "none")",
                ])
            throw ExitCode.failure
        }
    }

    /// What one copy wrote.
    struct Copied {
        /// Rows per table, in copy order (the audit log last).
        var rows: [(table: String, count: Int)] = []
        var auditEntries: Int64 = 0
        /// The last audit entry's hash at the source; nil for an empty log.
        var auditHead: String?
    }

    /// Copies every table of ``PostgresCopySession/tables``, then the audit log, logging progress.
    private func copyRows(from file: Database, to session: PostgresCopySession, logger: Logger) throws -> Copied {
        var copied = Copied()
        for (table, columns) in PostgresCopySession.tables {
            let sourceColumns = columns.map { $0 == "user_id" ? "user" : $0 }
            let total = try Self.count(table, file)
            var count = 0
            try file.withStatement("SELECT \(sourceColumns.joined(separator: ", ")) FROM \(table)") { statement in
                defer { statement.reset() }
                while try statement.step() {
                    try session.insert(into: table, (0..<Int32(columns.count)).map { Self.value(statement.value(at: $0)) })
                    count += 1
                    if count % progressEvery == 0 { Self.progress(logger, table, count, total) }
                }
            }
            Self.progress(logger, table, count, total)
            copied.rows.append((table, count))
        }
        let floor = try file.withStatement("SELECT version FROM version_floor WHERE id = 1") { statement in
            defer { statement.reset() }
            return try statement.step() ? statement.int64(at: 0) : 0
        }
        try session.copyVersionFloor(floor)
        logger.info("copied the version floor", metadata: ["version": "\(floor)"])
        let total = try Self.count("audit", file)
        var count = 0
        try file.withStatement("SELECT \(AuditRecord.selectList) FROM audit ORDER BY seq") { statement in
            defer { statement.reset() }
            while try statement.step() {
                let record = AuditRecord(row: statement)
                try session.appendCopied(record)
                copied.auditHead = record.hash
                count += 1
                if count % progressEvery == 0 { Self.progress(logger, "audit", count, total) }
            }
        }
        Self.progress(logger, "audit", count, total)
        copied.rows.append(("audit", count))
        copied.auditEntries = Int64(count)
        return copied
    }

    private static func progress(_ logger: Logger, _ table: String, _ copied: Int, _ total: Int64) {
        logger.info("copying rows", metadata: ["table": "\(table)", "copied": "\(copied)", "total": "\(total)"])
    }

    private static func count(_ table: String, _ file: Database) throws -> Int64 {
        try file.withStatement("SELECT count(*) FROM \(table)") { statement in
            defer { statement.reset() }
            return try statement.step() ? statement.int64(at: 0) : 0
        }
    }

    /// A SQLite value as a PostgreSQL text parameter (the target column gives it its type).
    private static func value(_ value: SQLValue) -> PostgresValue {
        switch value {
        case .null: .null
        case .integer(let integer): .int64(integer)
        case .real(let real): .text(String(real))
        case .text(let text): .text(text)
        case .blob(let bytes): .bytes(bytes)
        }
    }

    /// The file must have exactly the migrations this program knows: its columns are then the
    /// ones copied.
    /// - Throws: ``MigrationError``.
    private static func requireMigrated(_ file: Database) throws {
        let applied = try SQLitePermissionStore.appliedMigrations(file)
        let known = SQLitePermissionStore.knownMigrations
        let unknown = applied.filter { !known.contains($0) }
        if !unknown.isEmpty { throw MigrationError.databaseNewerThanCode(unknownIDs: unknown) }
        let pending = known.filter { !applied.contains($0) }
        if !pending.isEmpty { throw MigrationError.pending(ids: pending) }
    }
}
