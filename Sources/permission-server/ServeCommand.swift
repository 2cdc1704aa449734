import ArgumentParser
import Dispatch
import Foundation
import HTTPCore
import Logging
import PermissionAPI
import SQLiteStore

/// `permission-server serve` (the default): open and migrate the database, serve HTTP until
/// SIGTERM or SIGINT, then shut down gracefully within `--shutdown-grace`, stop the background
/// work, checkpoint and close the database, and exit 0.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the permission API (the default subcommand)."
    )

    @OptionGroup var options: SettingOptions

    /// Why `serve` refuses a PostgreSQL URI (exit 64); `migrate`, `keys`, `audit verify` and
    /// `copy` work there already.
    static let postgresNotServed = """
        serving from PostgreSQL is not supported yet: it needs the read model that keeps the event loops \
        from blocking on database reads, which is not built yet; serve from a SQLite file for now
        """

    func run() throws {
        let configuration = try ServerConfiguration.resolve(options)
        LoggingSetup.bootstrap(format: configuration.logFormat, level: configuration.logLevel)
        let logger = Logger(label: "permission-server")
        logger.info("starting with the effective configuration", metadata: configuration.startupMetadata)
        if case .postgres = configuration.database {
            logger.critical("\(Self.postgresNotServed)", metadata: ["database": "\(configuration.database.described)"])
            throw ExitCode(ExitCodes.usage)
        }

        let bootstrapSecret = try BootstrapKey.secret(configuration, logger: logger)
        // Held until the store is closed; on a refusal below, the exit releases it.
        let lock = try Self.lock(configuration.databasePath, logger: logger)
        let store = try StoreOpening.open(
            path: configuration.databasePath, readCacheEntries: configuration.readCacheEntries, logger: logger)
        let metrics = ServerMetrics(store: store)
        let exposure = Self.metricsExposure(configuration)
        let application = buildApplication(
            configuration: configuration.api, store: store, clock: SystemClock(),
            readiness: { try store.checkReady() }, logger: logger,
            metrics: APIMetrics(
                http: metrics.http, route: configuration.metricsPort == nil ? exposure : nil,
                render: { try metrics.render() }))
        metrics.attach(application)
        try BootstrapKey.apply(
            bootstrapSecret, service: application.service, databasePath: configuration.databasePath, logger: logger)
        let server = HTTPServer(configuration: configuration.http, responder: application.responder, logger: logger)
        try Self.start(server, host: configuration.host, port: configuration.port, logger: logger)
        metrics.attach(server, listener: "api")
        logger.notice("listening on \(Self.authority(host: configuration.host, port: server.localPort))")

        var metricsServer: HTTPServer?
        if let port = configuration.metricsPort, let exposure {
            var http = configuration.http
            http.port = port
            http.maxConnections = 64
            let responder = buildMetricsResponder(
                metrics: APIMetrics(http: metrics.http, route: exposure, render: { try metrics.render() }),
                access: exposure,
                authenticator: application.keys)
            let listener = HTTPServer(configuration: http, responder: responder, logger: logger)
            try Self.start(listener, host: configuration.host, port: port, logger: logger)
            metrics.attach(listener, listener: "metrics")
            logger.notice("metrics on \(Self.authority(host: configuration.host, port: listener.localPort))/metrics")
            metricsServer = listener
        }
        application.start()
        let warmer = ReadCacheWarmer(store: store, logger: logger)
        if configuration.readCacheEntries > 0 { warmer.start() }
        // Graceful shutdown: stop accepting, then end event streams and the sweeper at once
        // (streams would otherwise hold their connections until the grace deadline).
        let signals = ShutdownSignals { [metricsServer] number in
            logger.info("signal received; shutting down gracefully", metadata: ["signal": "\(number)"])
            server.shutdown()
            metricsServer?.shutdown()
            application.stop()
        }
        server.waitUntilStopped()
        metricsServer?.waitUntilStopped()
        signals.cancel()

        application.stop()
        if configuration.readCacheEntries > 0 { warmer.stop() }
        StoreOpening.close(store, logger: logger)
        lock.release()
        logger.notice("stopped")
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
            throw ExitCode(ExitCodes.unavailable)
        }
    }

    /// Starts `server`, logging and exiting 69 (EX_UNAVAILABLE) when it cannot listen.
    private static func start(_ server: HTTPServer, host: String, port: Int, logger: Logger) throws {
        do {
            try server.start()
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
