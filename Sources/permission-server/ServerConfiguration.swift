import ArgumentParser
import Foundation
import HTTPCore
import Logging
import PermissionAPI
import PermissionDomain
import PostgresStore

/// The effective configuration of one run, resolved once from flags, environment, config file
/// and defaults (STYLE 9: `main` builds one Sendable configuration and injects it).
struct ServerConfiguration: Sendable {
    var host: String
    var port: Int
    /// The `--database` value as given: a SQLite file's path or a PostgreSQL URI (see
    /// ``database``); may hold a password, so log ``DatabaseLocation/described`` instead.
    var databasePath: String
    /// Where the data is: ``databasePath`` with the password file's password applied.
    var database: DatabaseLocation
    /// The first line of `--database-password-file`, if given. Never logged.
    var databasePassword: String?
    /// Where the audit server key comes from (``AuditKeyLoading``). The key is never logged.
    var auditKeys: AuditKeySettings
    /// The read cache's capacity in entries; 0 turns it off.
    var readCacheEntries: Int
    /// PostgreSQL only: the most pooled connections.
    var databasePoolSize: Int
    /// PostgreSQL only: seconds `serve` keeps trying to reach the database at start.
    var databaseStartTimeout: Int
    /// The environment's `PERMISSION_*` names that are no setting of the server and no
    /// variable of `permctl` (sorted), to warn of: a config file's unknown name is refused,
    /// but the environment holds other programs' variables too.
    var unknownEnvironment: [String]
    /// The flags given that the subcommand does not read (``SettingOptions/unreadFlags``), to
    /// warn of.
    var unreadFlags: [String] = []
    var logFormat: String
    var logLevel: Logger.Level
    var promptTTL: Int
    var onceTTL: Int
    /// Seconds ahead an expiring grant's `until` may lie at most (SPEC §11).
    var maxGrantDuration: Int
    /// Records one user's export may hold at most (`GET /v1/users/{user}/export`).
    var maxExportRecords: Int
    var exportTimeout: Int
    /// Prompts an app may have pending for one user at once (SPEC §11 prompt hygiene).
    var maxPendingPrompts: Int
    /// When location alerts come (SPEC §11).
    var locationAlerts: LocationAlertSettings
    var maxConnections: Int
    /// Connections one remote address may hold; 0 for no such limit.
    var maxConnectionsPerAddress: Int
    /// Event loops of the HTTP engine; 0 means one per CPU in the process's affinity mask.
    var eventLoops: Int
    var maxRequestsPerConnection: Int
    var maxBodyBytes: Int
    var headerTimeout: Int
    var idleTimeout: Int
    var writeTimeout: Int
    var shutdownGrace: Int
    /// Who may read `/metrics`: "open", "admin" or "off".
    var metrics: String
    /// A separate port for `/metrics`; nil serves it on the main port.
    var metricsPort: Int?
    /// Failed authentications one address may make at once, and how many per second come back.
    var authFailureBurst: Int
    var authFailureRefill: Int
    /// `PERMISSION_BOOTSTRAP_ADMIN_KEY` from the environment or the config file (never a flag);
    /// nil when unset or empty. Never logged: `described` leaves secrets out.
    var bootstrapAdminKey: String?
    /// `GET /v1/events` streams open at most, in all and per API key.
    var maxEventStreams: Int
    var maxEventStreamsPerKey: Int
    var maxConsentEventStreams: Int
    /// Seconds a consent session lasts from its creation.
    var consentSessionTTL: Int
    /// Seconds ended prompts and consent sessions are kept (0: until their user is erased).
    var endedRetention: Int
    /// Whether the consent cookie is `Secure`.
    var consentCookieSecure: Bool
    /// The base of consent links without a trailing "/", empty when unset (relative links).
    var publicURL: String
    /// Each non-secret setting's effective value and where it came from, for the startup log.
    var described: [(setting: Setting, value: String, source: SettingsResolver.Source)]

    /// Resolves every setting (flags > environment > config file > default).
    /// - Parameters:
    ///   - flags: the flags given, keyed by flag name.
    ///   - environment: the process environment.
    ///   - passwordForDatabase: whether `--database-password-file` is the password of
    ///     `--database` (every command but `copy`, whose `--to` takes it): then it is refused
    ///     beside a SQLite path, which has no password.
    /// - Throws: ``ConfigurationError`` naming the setting, the bad value, its source and what
    ///   was expected.
    init(
        flags: [String: String], environment: [String: String], passwordForDatabase: Bool = true
    ) throws(ConfigurationError) {
        let resolver = try Self.resolver(flags: flags, environment: environment)
        unknownEnvironment = environment.keys.filter { $0.hasPrefix("PERMISSION_") && !Settings.isKnown(environment: $0) }
            .sorted()
        host = try Self.nonEmpty(resolver, Settings.host)
        port = try resolver.int(Settings.port)
        databasePath = try Self.nonEmpty(resolver, Settings.database)
        if DatabaseLocation.isKeyValueConnectionString(databasePath), let (_, source) = resolver.value(Settings.database) {
            // Taken as a path, it would become a SQLite file named after it, password and all.
            throw .invalid(
                Settings.database, ConnectionString.redacted(databasePath), source,
                "a SQLite file path or a PostgreSQL URI (postgres://user@host/db); a key=value connection string is not taken")
        }
        if ConnectionString.hasAmbiguousUserInfo(databasePath), let (_, source) = resolver.value(Settings.database) {
            // libpq would cut it elsewhere: another host, and the rest of the password in its errors.
            throw .invalid(
                Settings.database, ConnectionString.redacted(databasePath), source,
                "a PostgreSQL URI in which \(ConnectionString.ambiguousUserInfoAdvice)")
        }
        databasePassword = try Self.password(resolver)
        if passwordForDatabase, databasePassword != nil, !DatabaseLocation.isPostgresURI(databasePath),
            let (file, source) = resolver.value(Settings.databasePasswordFile)
        {
            // A SQLite file has no password: a password file beside one is a mistake to say, not
            // to ignore.
            throw .invalid(Settings.databasePasswordFile, file, source, "only with a PostgreSQL URI in --database")
        }
        database = DatabaseLocation(databasePath, password: databasePassword)
        auditKeys = AuditKeySettings(
            file: resolver.value(Settings.auditKeyFile)?.value, key: resolver.value(Settings.auditKey)?.value)
        if let file = auditKeys.file, file.isEmpty {
            throw .invalid(Settings.auditKeyFile, file, resolver.value(Settings.auditKeyFile)?.source ?? .flag, "a file path")
        }
        if let (_, fileSource) = resolver.value(Settings.auditKeyFile), let (_, keySource) = resolver.value(Settings.auditKey) {
            // Which one wins would be a guess an operator cannot see (the key is never logged): a
            // named file that is missing or wrong must not go unnoticed behind a working key.
            throw .conflicting(
                Settings.auditKeyFile, fileSource, Settings.auditKey, keySource,
                "give the audit server key one way only (unset one of them)")
        }
        readCacheEntries = try resolver.int(Settings.readCacheEntries)
        databasePoolSize = try resolver.int(Settings.databasePoolSize)
        databaseStartTimeout = try resolver.int(Settings.databaseStartTimeout)
        // A SQLite file has no connection pool to size and is opened at once or not at all:
        // these settings given beside one are said, not ignored.
        if !DatabaseLocation.isPostgresURI(databasePath) {
            for setting in [Settings.databasePoolSize, Settings.databaseStartTimeout] {
                guard let (value, source) = resolver.value(setting), source != .default else { continue }
                throw .invalid(setting, value, source, "only with a PostgreSQL URI in --database")
            }
        }
        logFormat = try resolver.choice(Settings.logFormat, among: ["text", "json"])
        let level = try resolver.choice(
            Settings.logLevel, among: Logger.Level.allCases.map(\.rawValue))
        logLevel = Logger.Level(rawValue: level) ?? .info
        promptTTL = try resolver.int(Settings.promptTTL)
        onceTTL = try resolver.int(Settings.onceTTL)
        maxGrantDuration = try resolver.int(Settings.maxGrantDuration)
        maxExportRecords = try resolver.int(Settings.maxExportRecords)
        exportTimeout = try resolver.int(Settings.exportTimeout)
        maxPendingPrompts = try resolver.int(Settings.maxPendingPrompts)
        let intervalsText = resolver.string(Settings.locationAlertIntervals) ?? ""
        guard let intervals = LocationAlertSettings.intervals(parsing: intervalsText) else {
            throw .invalid(
                Settings.locationAlertIntervals, intervalsText,
                resolver.value(Settings.locationAlertIntervals)?.source ?? .flag,
                "1-\(LocationAlertSettings.maxIntervals) comma-separated durations like 3,7,14,30 (days) or 10s,1m,2h (1s-3650d)")
        }
        locationAlerts = LocationAlertSettings(
            intervals: intervals,
            threshold: try resolver.int(Settings.locationAlertThreshold))
        maxConnections = try resolver.int(Settings.maxConnections)
        maxConnectionsPerAddress = try resolver.int(Settings.maxConnectionsPerAddress)
        eventLoops = try resolver.int(Settings.eventLoops)
        maxRequestsPerConnection = try resolver.int(Settings.maxRequestsPerConnection)
        maxBodyBytes = try resolver.int(Settings.maxBodyBytes)
        headerTimeout = try resolver.int(Settings.headerTimeout)
        idleTimeout = try resolver.int(Settings.idleTimeout)
        writeTimeout = try resolver.int(Settings.writeTimeout)
        shutdownGrace = try resolver.int(Settings.shutdownGrace)
        metrics = try resolver.choice(Settings.metrics, among: ["open", "admin", "off"])
        metricsPort =
            resolver.value(Settings.metricsPort) == nil ? nil : try resolver.int(Settings.metricsPort)
        if let metricsPort, metricsPort != 0, metricsPort == port, let (value, source) = resolver.value(Settings.metricsPort) {
            throw .invalid(Settings.metricsPort, value, source, "a port other than the main port \(port)")
        }
        if metrics == "off", let (value, source) = resolver.value(Settings.metricsPort) {
            // Nothing would listen there.
            throw .invalid(Settings.metricsPort, value, source, "no port with --metrics off (unset one of them)")
        }
        authFailureBurst = try resolver.int(Settings.authFailureBurst)
        authFailureRefill = try resolver.int(Settings.authFailureRefill)
        // An empty variable counts as unset, so that the config file's line still applies.
        let bootstrapName = Settings.bootstrapAdminKey.environment
        bootstrapAdminKey = [environment[bootstrapName], resolver.file[bootstrapName]].lazy.compactMap { $0 }
            .first { !$0.isEmpty }
        maxEventStreams = try resolver.int(Settings.maxEventStreams)
        maxEventStreamsPerKey = try resolver.int(Settings.maxEventStreamsPerKey)
        maxConsentEventStreams = try resolver.int(Settings.maxConsentEventStreams)
        consentSessionTTL = try resolver.int(Settings.consentSessionTTL)
        endedRetention = try resolver.int(Settings.endedRetention)
        consentCookieSecure = try resolver.choice(Settings.consentCookieSecure, among: ["true", "false"]) == "true"
        publicURL = try Self.publicURL(resolver)
        described = Settings.all.compactMap { setting in
            guard !setting.isSecret, let (value, source) = resolver.value(setting) else { return nil }
            return (
                setting, setting.flag == Settings.database.flag ? DatabaseLocation(value, password: nil).described : value, source
            )
        }
    }

    /// A resolver whose config file is the one `--config` / `PERMISSION_CONFIG` names, if any.
    private static func resolver(
        flags: [String: String], environment: [String: String]
    ) throws(ConfigurationError) -> SettingsResolver {
        let withoutFile = SettingsResolver(flags: flags, environment: environment, file: [:])
        guard let path = withoutFile.string(Settings.config), !path.isEmpty else { return withoutFile }
        return SettingsResolver(flags: flags, environment: environment, file: try SettingsResolver.parseFile(at: path))
    }

    /// The first line of the file `--database-password-file` names, or nil when unset.
    private static func password(_ resolver: SettingsResolver) throws(ConfigurationError) -> String? {
        guard let (path, source) = resolver.value(Settings.databasePasswordFile) else { return nil }
        let expected = "a readable file whose first line is the password"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .invalid(Settings.databasePasswordFile, path, source, expected)
        }
        let firstLine =
            String(decoding: data, as: UTF8.self).split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
            .first.map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) } ?? ""
        guard !firstLine.isEmpty else { throw .invalid(Settings.databasePasswordFile, path, source, expected) }
        return firstLine
    }

    /// `--public-url` without its trailing "/": an absolute http or https URL with a host and
    /// no path, query, fragment or user information (RFC 3986 §3); empty when unset. No path:
    /// the consent pages link, redirect and scope their cookie to `/consent/` at the root of the
    /// host, so a link under a path prefix would lead to pages that leave it.
    private static func publicURL(_ resolver: SettingsResolver) throws(ConfigurationError) -> String {
        guard let (value, source) = resolver.value(Settings.publicURL), !value.isEmpty else { return "" }
        let expected =
            "an absolute http or https URL without path, query, fragment or user, e.g. https://permissions.example.com (the consent pages are served at /consent/ on that host)"
        guard let components = URLComponents(string: value), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
            components.path.isEmpty || components.path == "/",
            components.query == nil, components.fragment == nil, components.user == nil, components.password == nil,
            !value.contains(where: { $0.isWhitespace })
        else { throw .invalid(Settings.publicURL, value, source, expected) }
        var trimmed = value
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed
    }

    private static func nonEmpty(_ resolver: SettingsResolver, _ setting: Setting) throws(ConfigurationError) -> String {
        guard let (value, source) = resolver.value(setting) else { throw .missing(setting) }
        guard !value.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw .invalid(setting, value, source, "a non-empty value")
        }
        return value
    }

    /// Resolves the configuration of a subcommand, turning a bad setting into a usage error
    /// (exit code 64, EX_USAGE) with a message naming it.
    static func resolve<Scope>(
        _ options: SettingOptions<Scope>, passwordForDatabase: Bool = true
    ) throws -> ServerConfiguration {
        do {
            var configuration = try ServerConfiguration(
                flags: options.givenFlags, environment: ProcessInfo.processInfo.environment,
                passwordForDatabase: passwordForDatabase)
            configuration.unreadFlags = options.unreadFlags
            return configuration
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// The HTTP engine's part.
    var http: HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration(host: host, port: port)
        configuration.maxConnections = maxConnections
        configuration.maxConnectionsPerAddress = maxConnectionsPerAddress
        configuration.refusalRenderer = APIConfiguration.refusalRenderer
        configuration.maxRequestsPerConnection = maxRequestsPerConnection
        if eventLoops > 0 { configuration.eventLoops = eventLoops }
        configuration.limits.maxBodyBytes = maxBodyBytes
        configuration.headerTimeout = .seconds(headerTimeout)
        configuration.idleTimeout = .seconds(idleTimeout)
        configuration.writeTimeout = .seconds(writeTimeout)
        configuration.shutdownGracePeriod = .seconds(shutdownGrace)
        return configuration
    }

    /// The API's part.
    var api: APIConfiguration {
        var configuration = APIConfiguration()
        configuration.maxBodyBytes = maxBodyBytes
        configuration.service.promptTTL = TimeInterval(promptTTL)
        configuration.service.onceTTL = TimeInterval(onceTTL)
        configuration.service.maxGrantDuration = TimeInterval(maxGrantDuration)
        configuration.service.maxExportRecords = maxExportRecords
        configuration.exportTimeout = .seconds(exportTimeout)
        configuration.service.maxPendingPrompts = maxPendingPrompts
        configuration.service.locationAlerts = locationAlerts
        configuration.authFailureBurst = authFailureBurst
        configuration.authFailureRefillPerSecond = Double(authFailureRefill)
        configuration.maxEventStreams = maxEventStreams
        configuration.maxEventStreamsPerKey = maxEventStreamsPerKey
        configuration.maxConsentEventStreams = maxConsentEventStreams
        configuration.service.consentSessionTTL = TimeInterval(consentSessionTTL)
        configuration.service.endedRetention = TimeInterval(endedRetention)
        configuration.consentCookieSecure = consentCookieSecure
        configuration.publicURL = publicURL
        return configuration
    }

    /// Metadata of the startup log line: `setting = "value (source)"`, secrets left out.
    var startupMetadata: Logger.Metadata {
        var metadata: Logger.Metadata = [:]
        for entry in described { metadata[entry.setting.flag] = "\(entry.value) (\(entry.source.rawValue))" }
        return metadata
    }
}
