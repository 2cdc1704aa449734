import PostgresStore

/// Where a command's data is: a SQLite file, or a PostgreSQL database named by a URI
/// (`postgres://` or `postgresql://`, https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNSTRING).
enum DatabaseLocation: Sendable, Equatable {
    case sqlite(path: String)
    /// A libpq URI, with the password file's password added as a `password` query parameter.
    /// Holds a secret: log ``described``.
    case postgres(connectionString: String)

    /// Whether `value` is a PostgreSQL URI rather than a file path.
    static func isPostgresURI(_ value: String) -> Bool {
        ConnectionString.uriSchemes.contains { value.hasPrefix($0) }
    }

    /// Whether `value` starts as libpq's `key=value` form does (`host=db dbname=app …`), with one
    /// of its connection keywords: not a path anyone means.
    static func isKeyValueConnectionString(_ value: String) -> Bool {
        let trimmed = value.drop { $0 == " " }
        let keyword = trimmed.prefix { $0.isASCII && ($0.isLetter || $0 == "_") }
        guard trimmed.dropFirst(keyword.count).drop(while: { $0 == " " }).first == "=" else { return false }
        return libpqKeywords.contains(String(keyword))
    }

    private static let libpqKeywords: Set<String> = [
        "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "service", "sslmode", "connect_timeout",
        "application_name", "options", "target_session_attrs", "sslrootcert", "sslcert", "sslkey", "requiressl",
    ]

    /// - Parameters:
    ///   - value: a SQLite path or a PostgreSQL URI.
    ///   - password: the password to connect with (from `--database-password-file`); it
    ///     overrides one in the URI. Ignored for a SQLite path.
    init(_ value: String, password: String?) {
        guard Self.isPostgresURI(value) else {
            self = .sqlite(path: value)
            return
        }
        guard let password else {
            self = .postgres(connectionString: value)
            return
        }
        let separator = value.contains("?") ? "&" : "?"
        self = .postgres(connectionString: value + separator + "password=" + Self.percentEncoded(password))
    }

    /// The path, or the URI with every password replaced by `***` (``ConnectionString/redacted(_:)``).
    var described: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let connectionString): ConnectionString.redacted(connectionString)
        }
    }

    /// `error`'s description with any password of the connection string replaced by `***`.
    func scrubbed(_ error: any Error) -> String {
        scrubbed(text: "\(error)")
    }

    /// `text` (a driver's message) without the connection string's passwords.
    func scrubbed(text: String) -> String {
        switch self {
        case .sqlite: text
        case .postgres(let connectionString): ConnectionString.scrub(text, passwordsOf: connectionString)
        }
    }

    /// `text` with every byte but RFC 3986's unreserved characters as `%XX` (libpq decodes it).
    static func percentEncoded(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.append(Character(Unicode.Scalar(byte)))
            default:
                let digits = Array("0123456789ABCDEF")
                output += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
            }
        }
        return output
    }
}
