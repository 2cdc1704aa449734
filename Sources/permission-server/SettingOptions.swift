import ArgumentParser

/// The settings a subcommand reads, the ones its `--help` lists.
protocol SettingsScope {
    /// The flags (``Setting/flag``) of the settings read; nil: every one (`serve`).
    static var read: Set<String>? { get }
}

extension SettingsScope {
    static func reads(_ setting: Setting) -> Bool { read?.contains(setting.flag) ?? true }
}

/// The subcommands' ``SettingsScope``s.
enum SettingsScopes {
    /// Every setting: `serve`.
    enum Serve: SettingsScope { static let read: Set<String>? = nil }
    /// A database and its audit keys, and the logs: `migrate`, `backup`, `keys`, `audit rotate-key`.
    enum Store: SettingsScope {
        static let read: Set<String>? = flags(
            logging + [Settings.database, Settings.databasePasswordFile, Settings.auditKeyFile])
    }
    /// A database without its audit keys (the chain hashes what is stored): `audit verify`.
    enum Verify: SettingsScope {
        static let read: Set<String>? = flags(logging + [Settings.database, Settings.databasePasswordFile])
    }
    /// The target's password and the file's audit key (the database is `--from` and `--to`): `copy`.
    enum Copy: SettingsScope {
        static let read: Set<String>? = flags(logging + [Settings.databasePasswordFile, Settings.auditKeyFile])
    }
    /// The address of the server asked: `healthcheck` (which logs nothing).
    enum Healthcheck: SettingsScope {
        static let read: Set<String>? = flags([Settings.host, Settings.port, Settings.config])
    }

    private static let logging = [Settings.logFormat, Settings.logLevel, Settings.config]

    private static func flags(_ settings: [Setting]) -> Set<String> { Set(settings.map(\.flag)) }
}

/// The flags of ``Settings/all``, accepted by every subcommand: one environment or config file
/// serves them all, and each checks every setting in it. `--help` lists those `Scope` reads, and
/// `--help-hidden` the others too. Each is an optional string so that ``SettingsResolver``
/// alone decides precedence (flags > environment > config file > default) and validation; the
/// help text of each names its environment variable and default.
struct SettingOptions<Scope: SettingsScope>: ParsableArguments {
    @Option(name: .customLong(Settings.host.flag), help: Settings.host.argumentHelp(Scope.self))
    var host: String?
    @Option(name: .customLong(Settings.port.flag), help: Settings.port.argumentHelp(Scope.self))
    var port: String?
    @Option(name: .customLong(Settings.database.flag), help: Settings.database.argumentHelp(Scope.self))
    var database: String?
    @Option(name: .customLong(Settings.databasePasswordFile.flag), help: Settings.databasePasswordFile.argumentHelp(Scope.self))
    var databasePasswordFile: String?
    @Option(name: .customLong(Settings.auditKeyFile.flag), help: Settings.auditKeyFile.argumentHelp(Scope.self))
    var auditKeyFile: String?
    @Option(name: .customLong(Settings.readCacheEntries.flag), help: Settings.readCacheEntries.argumentHelp(Scope.self))
    var readCacheEntries: String?
    @Option(name: .customLong(Settings.databasePoolSize.flag), help: Settings.databasePoolSize.argumentHelp(Scope.self))
    var databasePoolSize: String?
    @Option(name: .customLong(Settings.databaseStartTimeout.flag), help: Settings.databaseStartTimeout.argumentHelp(Scope.self))
    var databaseStartTimeout: String?
    @Option(name: .customLong(Settings.logFormat.flag), help: Settings.logFormat.argumentHelp(Scope.self))
    var logFormat: String?
    @Option(name: .customLong(Settings.logLevel.flag), help: Settings.logLevel.argumentHelp(Scope.self))
    var logLevel: String?
    @Option(name: .customLong(Settings.promptTTL.flag), help: Settings.promptTTL.argumentHelp(Scope.self))
    var promptTTL: String?
    @Option(name: .customLong(Settings.onceTTL.flag), help: Settings.onceTTL.argumentHelp(Scope.self))
    var onceTTL: String?
    @Option(name: .customLong(Settings.maxGrantDuration.flag), help: Settings.maxGrantDuration.argumentHelp(Scope.self))
    var maxGrantDuration: String?
    @Option(name: .customLong(Settings.maxExportRecords.flag), help: Settings.maxExportRecords.argumentHelp(Scope.self))
    var maxExportRecords: String?
    @Option(name: .customLong(Settings.exportTimeout.flag), help: Settings.exportTimeout.argumentHelp(Scope.self))
    var exportTimeout: String?
    @Option(name: .customLong(Settings.maxPendingPrompts.flag), help: Settings.maxPendingPrompts.argumentHelp(Scope.self))
    var maxPendingPrompts: String?
    @Option(
        name: .customLong(Settings.locationAlertIntervals.flag), help: Settings.locationAlertIntervals.argumentHelp(Scope.self))
    var locationAlertIntervals: String?
    @Option(
        name: .customLong(Settings.locationAlertThreshold.flag), help: Settings.locationAlertThreshold.argumentHelp(Scope.self))
    var locationAlertThreshold: String?
    @Option(name: .customLong(Settings.maxConnections.flag), help: Settings.maxConnections.argumentHelp(Scope.self))
    var maxConnections: String?
    @Option(
        name: .customLong(Settings.maxConnectionsPerAddress.flag),
        help: Settings.maxConnectionsPerAddress.argumentHelp(Scope.self))
    var maxConnectionsPerAddress: String?
    @Option(name: .customLong(Settings.eventLoops.flag), help: Settings.eventLoops.argumentHelp(Scope.self))
    var eventLoops: String?
    @Option(
        name: .customLong(Settings.maxRequestsPerConnection.flag),
        help: Settings.maxRequestsPerConnection.argumentHelp(Scope.self))
    var maxRequestsPerConnection: String?
    @Option(name: .customLong(Settings.maxBodyBytes.flag), help: Settings.maxBodyBytes.argumentHelp(Scope.self))
    var maxBodyBytes: String?
    @Option(name: .customLong(Settings.headerTimeout.flag), help: Settings.headerTimeout.argumentHelp(Scope.self))
    var headerTimeout: String?
    @Option(name: .customLong(Settings.idleTimeout.flag), help: Settings.idleTimeout.argumentHelp(Scope.self))
    var idleTimeout: String?
    @Option(name: .customLong(Settings.writeTimeout.flag), help: Settings.writeTimeout.argumentHelp(Scope.self))
    var writeTimeout: String?
    @Option(name: .customLong(Settings.shutdownGrace.flag), help: Settings.shutdownGrace.argumentHelp(Scope.self))
    var shutdownGrace: String?
    @Option(name: .customLong(Settings.metrics.flag), help: Settings.metrics.argumentHelp(Scope.self))
    var metrics: String?
    @Option(name: .customLong(Settings.metricsPort.flag), help: Settings.metricsPort.argumentHelp(Scope.self))
    var metricsPort: String?
    @Option(name: .customLong(Settings.authFailureBurst.flag), help: Settings.authFailureBurst.argumentHelp(Scope.self))
    var authFailureBurst: String?
    @Option(name: .customLong(Settings.authFailureRefill.flag), help: Settings.authFailureRefill.argumentHelp(Scope.self))
    var authFailureRefill: String?
    @Option(name: .customLong(Settings.maxEventStreams.flag), help: Settings.maxEventStreams.argumentHelp(Scope.self))
    var maxEventStreams: String?
    @Option(name: .customLong(Settings.maxEventStreamsPerKey.flag), help: Settings.maxEventStreamsPerKey.argumentHelp(Scope.self))
    var maxEventStreamsPerKey: String?
    @Option(
        name: .customLong(Settings.maxConsentEventStreams.flag), help: Settings.maxConsentEventStreams.argumentHelp(Scope.self))
    var maxConsentEventStreams: String?
    @Option(name: .customLong(Settings.consentSessionTTL.flag), help: Settings.consentSessionTTL.argumentHelp(Scope.self))
    var consentSessionTTL: String?
    @Option(name: .customLong(Settings.endedRetention.flag), help: Settings.endedRetention.argumentHelp(Scope.self))
    var endedRetention: String?
    @Option(name: .customLong(Settings.consentCookieSecure.flag), help: Settings.consentCookieSecure.argumentHelp(Scope.self))
    var consentCookieSecure: String?
    @Option(name: .customLong(Settings.publicURL.flag), help: Settings.publicURL.argumentHelp(Scope.self))
    var publicURL: String?
    @Option(name: .customLong(Settings.config.flag), help: Settings.config.argumentHelp(Scope.self))
    var config: String?

    /// The flags given on the command line, keyed by flag name (``Setting/flag``).
    var givenFlags: [String: String] {
        let pairs: [(Setting, String?)] = [
            (Settings.host, host), (Settings.port, port), (Settings.database, database),
            (Settings.databasePasswordFile, databasePasswordFile), (Settings.auditKeyFile, auditKeyFile),
            (Settings.readCacheEntries, readCacheEntries),
            (Settings.databasePoolSize, databasePoolSize), (Settings.databaseStartTimeout, databaseStartTimeout),
            (Settings.logFormat, logFormat), (Settings.logLevel, logLevel), (Settings.promptTTL, promptTTL),
            (Settings.onceTTL, onceTTL), (Settings.maxGrantDuration, maxGrantDuration),
            (Settings.maxExportRecords, maxExportRecords), (Settings.exportTimeout, exportTimeout),
            (Settings.maxPendingPrompts, maxPendingPrompts),
            (Settings.locationAlertIntervals, locationAlertIntervals),
            (Settings.locationAlertThreshold, locationAlertThreshold),
            (Settings.maxConnections, maxConnections),
            (Settings.maxConnectionsPerAddress, maxConnectionsPerAddress), (Settings.eventLoops, eventLoops),
            (Settings.maxRequestsPerConnection, maxRequestsPerConnection), (Settings.maxBodyBytes, maxBodyBytes),
            (Settings.headerTimeout, headerTimeout), (Settings.idleTimeout, idleTimeout),
            (Settings.writeTimeout, writeTimeout), (Settings.shutdownGrace, shutdownGrace),
            (Settings.metrics, metrics), (Settings.metricsPort, metricsPort),
            (Settings.authFailureBurst, authFailureBurst), (Settings.authFailureRefill, authFailureRefill),
            (Settings.maxEventStreams, maxEventStreams), (Settings.maxEventStreamsPerKey, maxEventStreamsPerKey),
            (Settings.maxConsentEventStreams, maxConsentEventStreams),
            (Settings.consentSessionTTL, consentSessionTTL), (Settings.endedRetention, endedRetention),
            (Settings.consentCookieSecure, consentCookieSecure),
            (Settings.publicURL, publicURL), (Settings.config, config),
        ]
        var flags: [String: String] = [:]
        for (setting, value) in pairs { if let value { flags[setting.flag] = value } }
        return flags
    }

    /// The flags given that this subcommand does not read, sorted: accepted (and checked), but
    /// worth a warning, since they change nothing here.
    var unreadFlags: [String] {
        givenFlags.keys.filter { flag in Settings.all.first { $0.flag == flag }.map { !Scope.reads($0) } ?? false }.sorted()
    }
}

extension Setting {
    /// The `--help` entry: the help text, then the environment variable and the default;
    /// hidden from a subcommand's `--help` (not from `--help-hidden`) unless `scope` reads it.
    func argumentHelp<Scope: SettingsScope>(_ scope: Scope.Type) -> ArgumentHelp {
        ArgumentHelp(
            "\(described) (env: \(environment); default: \(defaultValue ?? "none"))", valueName: valueName,
            visibility: scope.reads(self) ? .default : .hidden)
    }

    /// The placeholder shown after the flag in `--help`.
    var valueName: String {
        switch flag {
        case "host": "address"
        case "database": "path-or-uri"
        case "database-password-file", "audit-key-file", "config": "path"
        case "log-format", "log-level": "name"
        case "metrics": "mode"
        case "consent-cookie-secure": "true|false"
        case "public-url": "url"
        case "location-alert-intervals": "durations"
        case "audit-key", "bootstrap-admin-key": "secret"
        default: flag.hasSuffix("timeout") || flag.hasSuffix("ttl") || flag == "shutdown-grace" ? "seconds" : "n"
        }
    }
}
