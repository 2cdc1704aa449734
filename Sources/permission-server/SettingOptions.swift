import ArgumentParser

/// The flags of ``Settings/all``, shared by every subcommand. Each is an optional string so
/// that ``SettingsResolver`` alone decides precedence (flags > environment > config file >
/// default) and validation; the help text of each names its environment variable and default.
struct SettingOptions: ParsableArguments {
    @Option(name: .customLong(Settings.host.flag), help: Settings.host.argumentHelp)
    var host: String?
    @Option(name: .customLong(Settings.port.flag), help: Settings.port.argumentHelp)
    var port: String?
    @Option(name: .customLong(Settings.database.flag), help: Settings.database.argumentHelp)
    var database: String?
    @Option(name: .customLong(Settings.databasePasswordFile.flag), help: Settings.databasePasswordFile.argumentHelp)
    var databasePasswordFile: String?
    @Option(name: .customLong(Settings.auditKeyFile.flag), help: Settings.auditKeyFile.argumentHelp)
    var auditKeyFile: String?
    @Option(name: .customLong(Settings.readCacheEntries.flag), help: Settings.readCacheEntries.argumentHelp)
    var readCacheEntries: String?
    @Option(name: .customLong(Settings.databasePoolSize.flag), help: Settings.databasePoolSize.argumentHelp)
    var databasePoolSize: String?
    @Option(name: .customLong(Settings.databaseStartTimeout.flag), help: Settings.databaseStartTimeout.argumentHelp)
    var databaseStartTimeout: String?
    @Option(name: .customLong(Settings.logFormat.flag), help: Settings.logFormat.argumentHelp)
    var logFormat: String?
    @Option(name: .customLong(Settings.logLevel.flag), help: Settings.logLevel.argumentHelp)
    var logLevel: String?
    @Option(name: .customLong(Settings.promptTTL.flag), help: Settings.promptTTL.argumentHelp)
    var promptTTL: String?
    @Option(name: .customLong(Settings.onceTTL.flag), help: Settings.onceTTL.argumentHelp)
    var onceTTL: String?
    @Option(name: .customLong(Settings.maxGrantDuration.flag), help: Settings.maxGrantDuration.argumentHelp)
    var maxGrantDuration: String?
    @Option(name: .customLong(Settings.maxExportRecords.flag), help: Settings.maxExportRecords.argumentHelp)
    var maxExportRecords: String?
    @Option(name: .customLong(Settings.exportTimeout.flag), help: Settings.exportTimeout.argumentHelp)
    var exportTimeout: String?
    @Option(name: .customLong(Settings.maxPendingPrompts.flag), help: Settings.maxPendingPrompts.argumentHelp)
    var maxPendingPrompts: String?
    @Option(name: .customLong(Settings.locationAlertIntervals.flag), help: Settings.locationAlertIntervals.argumentHelp)
    var locationAlertIntervals: String?
    @Option(name: .customLong(Settings.locationAlertThreshold.flag), help: Settings.locationAlertThreshold.argumentHelp)
    var locationAlertThreshold: String?
    @Option(name: .customLong(Settings.maxConnections.flag), help: Settings.maxConnections.argumentHelp)
    var maxConnections: String?
    @Option(name: .customLong(Settings.maxConnectionsPerAddress.flag), help: Settings.maxConnectionsPerAddress.argumentHelp)
    var maxConnectionsPerAddress: String?
    @Option(name: .customLong(Settings.eventLoops.flag), help: Settings.eventLoops.argumentHelp)
    var eventLoops: String?
    @Option(name: .customLong(Settings.maxRequestsPerConnection.flag), help: Settings.maxRequestsPerConnection.argumentHelp)
    var maxRequestsPerConnection: String?
    @Option(name: .customLong(Settings.maxBodyBytes.flag), help: Settings.maxBodyBytes.argumentHelp)
    var maxBodyBytes: String?
    @Option(name: .customLong(Settings.headerTimeout.flag), help: Settings.headerTimeout.argumentHelp)
    var headerTimeout: String?
    @Option(name: .customLong(Settings.idleTimeout.flag), help: Settings.idleTimeout.argumentHelp)
    var idleTimeout: String?
    @Option(name: .customLong(Settings.writeTimeout.flag), help: Settings.writeTimeout.argumentHelp)
    var writeTimeout: String?
    @Option(name: .customLong(Settings.shutdownGrace.flag), help: Settings.shutdownGrace.argumentHelp)
    var shutdownGrace: String?
    @Option(name: .customLong(Settings.metrics.flag), help: Settings.metrics.argumentHelp)
    var metrics: String?
    @Option(name: .customLong(Settings.metricsPort.flag), help: Settings.metricsPort.argumentHelp)
    var metricsPort: String?
    @Option(name: .customLong(Settings.authFailureBurst.flag), help: Settings.authFailureBurst.argumentHelp)
    var authFailureBurst: String?
    @Option(name: .customLong(Settings.authFailureRefill.flag), help: Settings.authFailureRefill.argumentHelp)
    var authFailureRefill: String?
    @Option(name: .customLong(Settings.maxEventStreams.flag), help: Settings.maxEventStreams.argumentHelp)
    var maxEventStreams: String?
    @Option(name: .customLong(Settings.maxEventStreamsPerKey.flag), help: Settings.maxEventStreamsPerKey.argumentHelp)
    var maxEventStreamsPerKey: String?
    @Option(name: .customLong(Settings.maxConsentEventStreams.flag), help: Settings.maxConsentEventStreams.argumentHelp)
    var maxConsentEventStreams: String?
    @Option(name: .customLong(Settings.consentSessionTTL.flag), help: Settings.consentSessionTTL.argumentHelp)
    var consentSessionTTL: String?
    @Option(name: .customLong(Settings.endedRetention.flag), help: Settings.endedRetention.argumentHelp)
    var endedRetention: String?
    @Option(name: .customLong(Settings.consentCookieSecure.flag), help: Settings.consentCookieSecure.argumentHelp)
    var consentCookieSecure: String?
    @Option(name: .customLong(Settings.publicURL.flag), help: Settings.publicURL.argumentHelp)
    var publicURL: String?
    @Option(name: .customLong(Settings.config.flag), help: Settings.config.argumentHelp)
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
}

extension Setting {
    /// The `--help` entry: the help text, then the environment variable and the default.
    var argumentHelp: ArgumentHelp {
        ArgumentHelp("\(described) (env: \(environment); default: \(defaultValue ?? "none"))", valueName: valueName)
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
