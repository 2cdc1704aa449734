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

    func run() throws {
        let configuration = try ServerConfiguration.resolve(options)
        LoggingSetup.bootstrap(format: configuration.logFormat, level: configuration.logLevel)
        let logger = Logger(label: "permission-server")
        logger.info("starting with the effective configuration", metadata: configuration.startupMetadata)

        let store = try StoreOpening.open(path: configuration.databasePath, logger: logger)
        let application = buildApplication(
            configuration: configuration.api, store: store, clock: SystemClock(),
            readiness: { try store.checkReady() }, logger: logger)
        try BootstrapKey.apply(application.service, environment: ProcessInfo.processInfo.environment, logger: logger)
        let server = HTTPServer(configuration: configuration.http, responder: application.responder, logger: logger)
        do {
            try server.start()
        } catch {
            logger.critical("cannot listen", metadata: [
                "host": "\(configuration.host)", "port": "\(configuration.port)", "error": "\(error)",
            ])
            throw ExitCode(ExitCodes.unavailable)
        }
        logger.notice("listening on \(Self.authority(host: configuration.host, port: server.localPort))")
        application.start()
        server.installSignalHandlers()
        server.waitUntilStopped()

        application.stop()
        StoreOpening.close(store, logger: logger)
        logger.notice("stopped")
    }

    /// `host:port`, with an IPv6 address in brackets (RFC 3986 §3.2.2).
    static func authority(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
