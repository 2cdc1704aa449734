import PermissionDomain

/// One configurable setting: its flag, its environment variable, its default and its help.
/// The table `Settings.all` is the single source for `--help`, the table in docs/configuration.md and resolution.
struct Setting: Sendable {
    /// Long flag name without dashes, e.g. "port".
    let flag: String
    /// Environment variable, e.g. "PERMISSION_PORT".
    let environment: String
    /// Default as text, or nil when the setting is unset by default.
    let defaultValue: String?
    let help: String
    /// A secret is never logged and never accepted as a flag (flags are visible in `ps`).
    var isSecret = false
    /// The values an integer setting takes: what the configuration checks (``SettingsResolver/int(_:)``)
    /// and what `--help` and the settings table say (``described``). nil for other settings.
    var range: ClosedRange<Int>? = nil

    /// `help`, with the range said when `help` does not already say it (`(1-128)`).
    var described: String {
        guard let range else { return help }
        let bounds = "\(range.lowerBound)-\(range.upperBound)"
        return help.contains(bounds) ? help : help + " Range: \(bounds)."
    }
}

enum Settings {
    static let host = Setting(
        flag: "host", environment: "PERMISSION_HOST", defaultValue: "127.0.0.1",
        help: "Address to listen on (IPv4 or IPv6; 0.0.0.0 or :: for all interfaces).")
    static let port = Setting(
        flag: "port", environment: "PERMISSION_PORT", defaultValue: "8080",
        help: "TCP port to listen on; 0 picks a free port, which is logged.", range: 0...65_535)
    static let database = Setting(
        flag: "database", environment: "PERMISSION_DATABASE",
        defaultValue: "./data/permissions.sqlite",
        help:
            "Path of the SQLite database file (its directory is created if missing), or a PostgreSQL URI postgres://user@host:5432/db?sslmode=verify-full (TLS and other libpq options as query parameters) that any number of replicas serve, its user name and password percent-encoded (a raw @, / or ? is refused); libpq's key=value form (host=… dbname=…) is refused."
    )
    static let databaseStartTimeout = Setting(
        flag: "database-start-timeout", environment: "PERMISSION_DATABASE_START_TIMEOUT",
        defaultValue: "60",
        help:
            "PostgreSQL only (refused beside a SQLite file): seconds serve keeps trying at start while the database cannot be reached or refuses the login (a replica started before its database, a database restarting), logging each try, before it exits 69 (the last try may take its connect_timeout, 5 s, more); 0 tries once; the other commands try once (0-3600).",
        range: 0...3_600
    )
    static let databasePoolSize = Setting(
        flag: "database-pool-size", environment: "PERMISSION_DATABASE_POOL_SIZE",
        defaultValue: "16",
        help:
            "PostgreSQL only (refused beside a SQLite file): connections a replica opens at most (reads not served from memory and writes share them, and exports being downloaded hold at most a quarter of them, at least one and never the last); each also costs the database a process.",
        range: 2...1_000
    )
    static let databasePasswordFile = Setting(
        flag: "database-password-file",
        environment: "PERMISSION_DATABASE_PASSWORD_FILE", defaultValue: nil,
        help: "File whose first line is the PostgreSQL password (else the URI's or PGPASSWORD); never logged.")
    static let auditKeyFile = Setting(
        flag: "audit-key-file", environment: "PERMISSION_AUDIT_KEY_FILE",
        defaultValue: nil,
        help:
            "File holding the audit server key (32 random bytes in base64, `openssl rand -base64 32`) that wraps each user's audit key; unset: on SQLite <database>.audit-key, created 0600 at the first start; on PostgreSQL required (or PERMISSION_AUDIT_KEY), the same on every replica."
    )
    static let auditKey = Setting(
        flag: "audit-key", environment: "PERMISSION_AUDIT_KEY", defaultValue: nil,
        help:
            "The audit server key itself (32 random bytes in base64), instead of --audit-key-file, never with it (environment or config file, never a flag).",
        isSecret: true)
    static let logFormat = Setting(
        flag: "log-format", environment: "PERMISSION_LOG_FORMAT", defaultValue: "text",
        help: "Log format: text or json (one object a line).")
    static let logLevel = Setting(
        flag: "log-level", environment: "PERMISSION_LOG_LEVEL", defaultValue: "info",
        help: "Lowest log level: trace, debug, info, notice, warning, error or critical.")
    static let promptTTL = Setting(
        flag: "prompt-ttl", environment: "PERMISSION_PROMPT_TTL", defaultValue: "600",
        help: "Seconds a prompt stays pending before it expires.", range: 1...31_536_000)
    static let onceTTL = Setting(
        flag: "once-ttl", environment: "PERMISSION_ONCE_TTL", defaultValue: "3600",
        help: "Seconds an Allow Once grant lasts when no sessionEnded event ends it first.", range: 1...31_536_000)
    static let maxGrantDuration = Setting(
        flag: "max-grant-duration", environment: "PERMISSION_MAX_GRANT_DURATION",
        defaultValue: "31536000",
        help: "Seconds ahead an expiring grant's until may lie at most (60-315360000); one further is refused with 422.",
        range: 60...315_360_000)
    static let maxExportRecords = Setting(
        flag: "max-export-records", environment: "PERMISSION_MAX_EXPORT_RECORDS",
        defaultValue: "5000",
        help:
            "Records (authorizations, prompts, location alert schedules and audit entries; in the document about 0.5 KB an authorization and 1 KB an audit entry) one user's export may hold (100-1000000); a larger one is refused with 422 export-too-large. The export is streamed as it is read, 500 records at a time: an export in flight holds one such page in memory, whatever this limit.",
        range: 100...1_000_000
    )
    static let exportTimeout = Setting(
        flag: "export-timeout", environment: "PERMISSION_EXPORT_TIMEOUT",
        defaultValue: "600",
        help:
            "Seconds one user's export may keep its read snapshot open while it streams, from the count of its records to the last of the document handed to the connection (1-86400); a download not done by then ends incomplete and the snapshot is given back, however steadily the client reads. An open snapshot keeps SQLite from restarting its write-ahead log and PostgreSQL from vacuuming; 600 s lets the default limit's largest export (about 5 MB) arrive at 9 KB/s.",
        range: 1...86_400
    )
    static let maxPendingPrompts = Setting(
        flag: "max-pending-prompts", environment: "PERMISSION_MAX_PENDING_PROMPTS",
        defaultValue: "3",
        help: "Prompts an app may have pending for one user at once (1-100); one more is refused with 429 too-many-prompts.",
        range: PermissionService.Configuration.maxPendingPromptsRange)
    static let locationAlertIntervals = Setting(
        flag: "location-alert-intervals", environment: "PERMISSION_LOCATION_ALERT_INTERVALS",
        defaultValue: "3,7,14,30",
        help:
            "Time from one location alert to the next for an app with Always location access: the first from its first background use, then from each alert; the last repeats, and an app's new version starts them over. Comma-separated, 1-32 values, each a whole number of days or with a unit s, m, h or d (1s-3650d)."
    )
    static let locationAlertThreshold = Setting(
        flag: "location-alert-threshold", environment: "PERMISSION_LOCATION_ALERT_THRESHOLD",
        defaultValue: "1",
        help:
            "Background uses of location reported since the last location alert that make the next one due once its interval has passed (1-1000000).",
        range: LocationAlertSettings.thresholdRange
    )
    static let readCacheEntries = Setting(
        flag: "read-cache-entries", environment: "PERMISSION_READ_CACHE_ENTRIES",
        defaultValue: "1000000",
        help:
            "Authorization records the status read keeps in memory (about 93 bytes a record), loaded at start on SQLite and as they are read on PostgreSQL; 0 reads every one from the database.",
        range: 0...100_000_000
    )
    static let maxConnections = Setting(
        flag: "max-connections", environment: "PERMISSION_MAX_CONNECTIONS",
        defaultValue: "1024",
        help:
            "Open connections at most; at it, the connection idle longest between requests is closed to make room for a new one, and with none idle new ones wait in the kernel backlog.",
        range: 1...1_000_000)
    static let maxConnectionsPerAddress = Setting(
        flag: "max-connections-per-address",
        environment: "PERMISSION_MAX_CONNECTIONS_PER_ADDRESS", defaultValue: "256",
        help:
            "Open connections one client address (IPv4 or IPv6, any port) may hold; beyond it a new one gets 429 and is closed. 0: no such limit (e.g. behind a proxy, where every client shares its address).",
        range: 0...1_000_000
    )
    static let eventLoops = Setting(
        flag: "event-loops", environment: "PERMISSION_EVENT_LOOPS",
        defaultValue: "0", help: "Event loops serving connections (0: one per CPU the process may use).", range: 0...256)
    static let maxRequestsPerConnection = Setting(
        flag: "max-requests-per-connection",
        environment: "PERMISSION_MAX_REQUESTS_PER_CONNECTION", defaultValue: "10000",
        help: "Requests served on one keep-alive connection before it is closed.", range: 1...Int(Int32.max))
    static let maxBodyBytes = Setting(
        flag: "max-body-bytes", environment: "PERMISSION_MAX_BODY_BYTES",
        defaultValue: "65536", help: "Largest request body accepted, in bytes (larger: 413).", range: 1_024...(64 << 20))
    static let headerTimeout = Setting(
        flag: "header-timeout", environment: "PERMISSION_HEADER_TIMEOUT",
        defaultValue: "10", help: "Seconds a client has to send a complete request head (else 408).", range: 1...3_600)
    static let idleTimeout = Setting(
        flag: "idle-timeout", environment: "PERMISSION_IDLE_TIMEOUT",
        defaultValue: "60", help: "Seconds an idle keep-alive connection is kept open.", range: 1...86_400)
    static let writeTimeout = Setting(
        flag: "write-timeout", environment: "PERMISSION_WRITE_TIMEOUT",
        defaultValue: "30",
        help:
            "Seconds a client may stop reading before it is dropped (one whose kernel still acknowledges bytes, however slowly, is reading); also, with at least 10 s, how long bytes sent may go unacknowledged before a connection is given up (TCP_USER_TIMEOUT: a client that vanished without closing).",
        range: 1...3_600)
    static let shutdownGrace = Setting(
        flag: "shutdown-grace", environment: "PERMISSION_SHUTDOWN_GRACE",
        defaultValue: "10", help: "Seconds in-flight requests get to finish after SIGTERM or SIGINT.", range: 0...3_600)
    static let metrics = Setting(
        flag: "metrics", environment: "PERMISSION_METRICS", defaultValue: "open",
        help: "Who may read /metrics: open (anyone who reaches the port), admin (an admin key) or off.")
    static let metricsPort = Setting(
        flag: "metrics-port", environment: "PERMISSION_METRICS_PORT", defaultValue: nil,
        help:
            "Serve /metrics on this separate port (same host) instead of the main one; 0 picks a free port. Not with --metrics off.",
        range: 0...65_535)
    static let authFailureBurst = Setting(
        flag: "auth-failure-burst", environment: "PERMISSION_AUTH_FAILURE_BURST",
        defaultValue: "10",
        help: "Failed authentications (unknown, revoked or malformed keys) one address may make at once before it gets 429.",
        range: 1...1_000_000_000)
    static let authFailureRefill = Setting(
        flag: "auth-failure-refill", environment: "PERMISSION_AUTH_FAILURE_REFILL",
        defaultValue: "1", help: "Failed authentications per second that come back to an address's allowance.",
        range: 1...1_000_000_000)
    static let maxEventStreams = Setting(
        flag: "max-event-streams", environment: "PERMISSION_MAX_EVENT_STREAMS",
        defaultValue: "32",
        help:
            "Change feed streams (GET /v1/events) open at most, each holding a worker thread (1-128); beyond it 503.",
        range: 1...128
    )
    static let maxConsentEventStreams = Setting(
        flag: "max-consent-event-streams", environment: "PERMISSION_MAX_CONSENT_EVENT_STREAMS",
        defaultValue: "64",
        help:
            "The consent pages' live-update streams (GET /consent/events) open at most, apart from --max-event-streams, each holding a worker thread (1-1024); beyond it 503 and the pages update on reload.",
        range: 1...1_024
    )
    static let maxEventStreamsPerKey = Setting(
        flag: "max-event-streams-per-key",
        environment: "PERMISSION_MAX_EVENT_STREAMS_PER_KEY", defaultValue: "4",
        help: "Event streams one API key or consent session may hold open at most (1-128); beyond it 429 with Retry-After.",
        range: 1...128)
    static let consentSessionTTL = Setting(
        flag: "consent-session-ttl", environment: "PERMISSION_CONSENT_SESSION_TTL",
        defaultValue: "900",
        help:
            "Seconds a consent session lasts from the making of its link, or from its user's last Stay Signed In, at most 12 times this after the link (60-86400).",
        range: 60...86_400)
    static let endedRetention = Setting(
        flag: "ended-retention", environment: "PERMISSION_ENDED_RETENTION", defaultValue: "2592000",
        help:
            "Seconds an ended prompt (answered, expired, cancelled) and an ended or expired consent session are kept, then deleted (0-315360000; 0 keeps them until their user is erased). Until then `GET /v1/prompts/{id}` and `GET /v1/consent-sessions/{id}` read them and a user's export holds them; they hold the user id and the purpose text shown in clear, where the audit log keeps what happened, sealed. The server's sweeper deletes them once a minute, 500 at a time.",
        range: 0...315_360_000)
    static let consentCookieSecure = Setting(
        flag: "consent-cookie-secure",
        environment: "PERMISSION_CONSENT_COOKIE_SECURE", defaultValue: "true",
        help:
            "Whether the consent session cookie is Secure (HTTPS only, named __Host-permission_consent): true, or false for a deployment served over plain HTTP (named permission_consent)."
    )
    static let publicURL = Setting(
        flag: "public-url", environment: "PERMISSION_PUBLIC_URL", defaultValue: nil,
        help:
            "Base of the consent links the API makes, e.g. https://permissions.example.com (http or https, no path, query or fragment: the pages are at /consent/ on that host); unset, the links are relative (/consent/start?token=...)."
    )
    static let bootstrapAdminKey = Setting(
        flag: "bootstrap-admin-key", environment: "PERMISSION_BOOTSTRAP_ADMIN_KEY",
        defaultValue: nil,
        help:
            "Secret of the first admin key, created at start while the database has no active admin key (a later, different value makes none): pk_<16 hex>_<random> or 32-256 characters of A-Z a-z 0-9 -._~+/= (environment or config file, never a flag).",
        isSecret: true)
    static let config = Setting(
        flag: "config", environment: "PERMISSION_CONFIG", defaultValue: nil,
        help: "Optional file of PERMISSION_*=value lines; flags and the environment override it.")

    /// `PERMISSION_*` names that are no setting of the server but are read by `permctl` (the
    /// server URL, the API key and the CA file), or by the tests' harness, and so are expected beside them.
    static let otherPrograms: Set<String> = [
        "PERMISSION_URL", "PERMISSION_KEY", "PERMISSION_KEY_FILE", "PERMISSION_CA_FILE", "PERMISSION_SERVER",
        "PERMISSION_TEST_STORE",
    ]

    /// Whether `name` is a setting's variable, or one of ``otherPrograms``.
    static func isKnown(environment name: String) -> Bool {
        otherPrograms.contains(name) || all.contains { $0.environment == name }
    }

    /// The setting variable nearest to `name` (at most two edits away, e.g. a letter missing or
    /// swapped, or `_` left out), or nil.
    static func nearest(toEnvironment name: String) -> String? {
        let candidates = all.map(\.environment).map { ($0, editDistance(Array(name.utf8), Array($0.utf8))) }
        guard let best = candidates.min(by: { $0.1 < $1.1 }), best.1 <= 2 else { return nil }
        return best.0
    }

    /// Levenshtein distance of two byte strings.
    private static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    static let all: [Setting] = [
        host, port, database, databasePasswordFile, databasePoolSize, databaseStartTimeout, auditKeyFile, auditKey,
        readCacheEntries, logFormat,
        logLevel, promptTTL, onceTTL, maxGrantDuration, maxPendingPrompts, locationAlertIntervals,
        locationAlertThreshold, maxExportRecords, exportTimeout, maxConnections,
        maxConnectionsPerAddress, eventLoops, maxRequestsPerConnection, maxBodyBytes, headerTimeout, idleTimeout,
        writeTimeout, shutdownGrace, metrics, metricsPort, authFailureBurst, authFailureRefill, maxEventStreams,
        maxEventStreamsPerKey, maxConsentEventStreams, consentSessionTTL, endedRetention, consentCookieSecure, publicURL,
        bootstrapAdminKey,
        config,
    ]
}
