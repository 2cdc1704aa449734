import ArgumentParser
import Dispatch
import Foundation
import HTTPCore
import Logging
import PermissionAPI
import PermissionDomain
import PostgresStore
import SQLiteStore

/// `permission-server serve` (the default): open and migrate the database, serve HTTP until
/// SIGTERM or SIGINT, then shut down gracefully within `--shutdown-grace`, stop the background
/// work, close the database (checkpointed, on SQLite), and exit 0.
///
/// On SQLite one server owns the file (``ServeLock``); on PostgreSQL any number of replicas
/// serve one database, each with its read model following the change log.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the permission API (the default subcommand)."
    )

    @OptionGroup var options: SettingOptions<SettingsScopes.Serve>

    /// The opened store, with what only one kind has.
    private enum Opened {
        case sqlite(SQLitePermissionStore, ServeLock)
        case postgres(PostgresPermissionStore)

        var store: any PermissionStore {
            switch self {
            case .sqlite(let store, _): store
            case .postgres(let store): store
            }
        }

        var metrics: ServerMetrics.Database {
            switch self {
            case .sqlite(let store, _): .sqlite(store)
            case .postgres(let store): .postgres(store)
            }
        }

        /// `/readyz`: the database answers, is migrated (and, on SQLite, writable).
        var readiness: @Sendable () throws -> Void {
            switch self {
            case .sqlite(let store, _): { try store.checkReady() }
            case .postgres(let store): { try store.checkReady() }
            }
        }
    }

    func run() throws {
        // First, while the process has one thread: from here on SIGTERM and SIGINT wait for the
        // signal thread, and end the process until the server is ready to shut down gracefully.
        let signals = ShutdownSignals()
        let configuration = try ServerConfiguration.resolve(options)
        LoggingSetup.bootstrap(configuration)
        let logger = Logger(label: "permission-server")
        logger.info("starting with the effective configuration", metadata: configuration.startupMetadata)
        DescriptorLimit.raise(for: configuration.maxConnections + (configuration.metricsPort == nil ? 0 : 64), logger: logger)

        let bootstrapSecret = try BootstrapKey.secret(configuration, logger: logger)
        // Bound before the database is opened (which may create it and its key, or migrate it):
        // an address in use is refused with nothing made.
        let apiAddress = try Self.reserve(host: configuration.host, port: configuration.port, logger: logger)
        let metricsAddress =
            try configuration.metricsPort.map { try Self.reserve(host: configuration.host, port: $0, logger: logger) }
        let opened = try Self.open(configuration, logger: logger)
        let store = opened.store
        let metrics = ServerMetrics(store: opened.metrics)
        let exposure = Self.metricsExposure(configuration)
        // Replicas keep the database's time, so that they agree on every deadline whatever
        // their hosts' clocks say (``PostgresClockOffset``).
        let clock: any PermissionDomain.Clock =
            switch opened {
            case .sqlite: SystemClock()
            case .postgres(let store): store.clockOffset?.clock ?? SystemClock()
            }
        let application = buildApplication(
            configuration: configuration.api, store: store, clock: clock,
            readiness: opened.readiness, logger: logger,
            metrics: APIMetrics(
                http: metrics.http, route: configuration.metricsPort == nil ? exposure : nil,
                render: { metrics.render() }))
        metrics.attach(application)
        try BootstrapKey.apply(
            bootstrapSecret, service: application.service, database: configuration.database, logger: logger)
        let server = HTTPServer(configuration: configuration.http, responder: application.responder, logger: logger)
        try Self.start(server, on: apiAddress, host: configuration.host, port: configuration.port, logger: logger)
        metrics.attach(server, listener: "api")

        var metricsServer: HTTPServer?
        if let port = configuration.metricsPort, let exposure {
            var http = configuration.http
            http.port = port
            http.maxConnections = 64
            let responder = buildMetricsResponder(
                metrics: APIMetrics(http: metrics.http, route: exposure, render: { metrics.render() }),
                access: exposure,
                authenticator: application.keys)
            let listener = HTTPServer(configuration: http, responder: responder, logger: logger)
            try Self.start(listener, on: metricsAddress, host: configuration.host, port: port, logger: logger)
            metrics.attach(listener, listener: "metrics")
            metricsServer = listener
        }
        application.start()
        var warmer: ReadCacheWarmer?
        if case .sqlite(let sqlite, _) = opened, configuration.readCacheEntries > 0 {
            warmer = ReadCacheWarmer(store: sqlite, logger: logger)
            warmer?.start()
        }
        // Graceful shutdown: stop accepting, then end event streams and the sweeper at once
        // (streams would otherwise hold their connections until the grace deadline). Installed
        // before the server says it listens, so that a SIGTERM sent on that line is graceful.
        signals.serve { [metricsServer] number in
            logger.info("signal received; shutting down gracefully", metadata: ["signal": "\(number)"])
            server.shutdown()
            metricsServer?.shutdown()
            application.stop()
        }
        logger.notice("listening on \(Self.authority(host: configuration.host, port: server.localPort))")
        if let metricsServer {
            logger.notice("metrics on \(Self.authority(host: configuration.host, port: metricsServer.localPort))/metrics")
        }
        server.waitUntilStopped()
        metricsServer?.waitUntilStopped()
        signals.finish()

        application.stop()
        warmer?.stop()
        switch opened {
        case .sqlite(let sqlite, let lock):
            StoreOpening.close(sqlite, logger: logger)
            lock.release()
        case .postgres(let postgres):
            postgres.close()
        }
        logger.notice("stopped")
    }

    /// What the log says when an audit entry this server knew is found gone or changed.
    static let auditRewriteMessage =
        "the audit log lost or changed an entry this server wrote or read: the file was changed around its "
        + "append-only triggers, or restored under the running server; its next entries take the seqs after the "
        + "file's last entry. Keep this line as evidence, and check the log against the heads recorded elsewhere "
        + "(docs/audit-chain.md)"

    /// Opens the database: a SQLite file under its ``ServeLock`` (held until the store is
    /// closed; on a refusal, the exit releases it), or a PostgreSQL database with a read model.
    private static func open(_ configuration: ServerConfiguration, logger: Logger) throws -> Opened {
        switch configuration.database {
        case .sqlite(let path):
            let lock = try Self.lock(path, logger: logger)
            // What a process killed before its scrub left of an erased user's rows goes now.
            let store = try StoreOpening.open(
                path: path, keys: configuration.auditKeys, readCacheEntries: configuration.readCacheEntries,
                emptyingLeftoverLog: true, logger: logger)
            if store.leftoverLogBusy {
                logger.notice(
                    "the write-ahead log is busy (another process reads the database); emptying it later",
                    metadata: ["database": "\(path)"])
            }
            store.onAuditChainRewrite { rewrite in
                logger.critical(
                    "\(Self.auditRewriteMessage)",
                    metadata: [
                        "database": "\(path)", "seq": "\(rewrite.seq)", "hash": "\(rewrite.expectedHash)",
                        "found": "\(rewrite.foundHash ?? "no entry")", "last-seq": "\(rewrite.lastSeq)",
                    ])
            }
            return .sqlite(store, lock)
        case .postgres(let connectionString):
            let readModel = PostgresPermissionStore.ReadModelOptions(
                cacheEntries: configuration.readCacheEntries
            ) { message, failed in
                if failed {
                    logger.error("\(message)", metadata: ["database": "\(configuration.database.described)"])
                } else {
                    logger.notice("\(message)", metadata: ["database": "\(configuration.database.described)"])
                }
            }
            return .postgres(
                try StoreOpening.openPostgres(
                    connectionString, keys: configuration.auditKeys, poolSize: configuration.databasePoolSize,
                    readModel: readModel, retryingFor: .seconds(configuration.databaseStartTimeout), logger: logger))
        }
    }

    /// The database file's ``ServeLock``, logging and exiting 69 (EX_UNAVAILABLE) when another
    /// server holds it or the file cannot be opened.
    private static func lock(_ path: String, logger: Logger) throws -> ServeLock {
        do {
            let lock = try ServeLock(path: path)
            if let reason = lock.unsupported {
                logger.warning(
                    "cannot lock the database file (\(reason)); a second server on it will not be refused",
                    metadata: ["database": "\(path)"])
            }
            return lock
        } catch {
            logger.critical("refusing to start: \(error)", metadata: ["database": "\(path)"])
            // Held: worth retrying (69), the other server may stop. Not openable (a directory, a
            // missing parent, no permission): 73, not the 69 a supervisor may read as "try again".
            throw ExitCode(error.isHeld ? ExitCodes.unavailable : ExitCodes.cannotCreate)
        }
    }

    /// Binds `host`:`port` for a server to start on later, logging and exiting 69
    /// (EX_UNAVAILABLE) when it cannot.
    private static func reserve(host: String, port: Int, logger: Logger) throws -> ReservedAddress {
        do {
            return try ReservedAddress(host: host, port: port)
        } catch {
            logger.critical("cannot listen", metadata: ["host": "\(host)", "port": "\(port)", "error": "\(error)"])
            throw ExitCode(ExitCodes.unavailable)
        }
    }

    /// Starts `server` on `reserved`, logging and exiting 69 (EX_UNAVAILABLE) when it cannot listen.
    private static func start(
        _ server: HTTPServer, on reserved: consuming ReservedAddress?, host: String, port: Int, logger: Logger
    ) throws {
        do {
            try server.start(on: reserved)
        } catch {
            logger.critical("cannot listen", metadata: ["host": "\(host)", "port": "\(port)", "error": "\(error)"])
            throw ExitCode(ExitCodes.unavailable)
        }
    }

    /// The access of `/metrics`: `.open`, `.admin`, or nil when `--metrics off`.
    static func metricsExposure(_ configuration: ServerConfiguration) -> RouteAccess? {
        switch configuration.metrics {
        case "admin": .admin
        case "off": nil
        default: .open
        }
    }

    /// `host:port`, with an IPv6 address in brackets (RFC 3986 §3.2.2).
    static func authority(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
