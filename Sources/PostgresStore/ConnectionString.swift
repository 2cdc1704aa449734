/// libpq connection strings, in both forms
/// (https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNSTRING): `key=value` pairs
/// (`host=/run/db dbname=app password='s3 cret'`) and URIs
/// (`postgres://user:secret@host:5432/app?sslmode=require`).
///
/// The password must never reach an error or a log; ``redacted(_:)`` is the only form of a
/// connection string this package keeps in an error.
package enum ConnectionString {
    /// The URI schemes libpq recognizes (matched case-sensitively, as libpq does).
    package static let uriSchemes = ["postgresql://", "postgres://"]

    /// Returns `conninfo` with every password replaced by `***`: the `password` key of the
    /// `key=value` form, the password of a URI's user information (`user:***@host`) and a
    /// `password` query parameter. When a URI is too malformed to tell where the user
    /// information ends, more is hidden rather than less.
    /// - Parameter conninfo: a connection string in either form.
    package static func redacted(_ conninfo: String) -> String {
        if let scheme = uriSchemes.first(where: { conninfo.hasPrefix($0) }) {
            return redactedURI(Array(conninfo), schemeLength: scheme.count)
        }
        var output = ""
        for pair in keyValuePairs(Array(conninfo)) {
            output += pair.key == "password" ? pair.beforeValue + "***" : pair.beforeValue + pair.rawValue
            output += pair.after
        }
        return output
    }

    /// Returns the URI `conninfo` with no password in it at all (the user information's
    /// `:password` and every `password` query parameter removed), for a command a log line
    /// suggests: the password goes in a file or `PGPASSWORD`, never on a command line. Any other
    /// form is returned ``redacted(_:)``.
    package static func withoutPasswords(_ conninfo: String) -> String {
        guard let scheme = uriSchemes.first(where: { conninfo.hasPrefix($0) }) else { return redacted(conninfo) }
        return redactedURI(Array(conninfo), schemeLength: scheme.count, replacement: nil)
    }

    /// The password values `conninfo` holds, both as written and decoded (percent-decoded in a
    /// URI, unescaped in `key=value` form), so that a message quoting one can be scrubbed.
    package static func passwords(in conninfo: String) -> [String] {
        var found: [String] = []
        if let scheme = uriSchemes.first(where: { conninfo.hasPrefix($0) }) {
            let characters = Array(conninfo)
            let parts = uriParts(characters, schemeLength: scheme.count)
            if let userinfo = parts.userinfo, let colon = userinfo.firstIndex(of: ":") {
                let raw = String(userinfo[userinfo.index(after: colon)...])
                found += [raw, percentDecoded(raw)]
            }
            for parameter in parts.query.split(separator: "&") {
                let pieces = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                if pieces.count == 2, percentDecoded(String(pieces[0])) == "password" {
                    found += [String(pieces[1]), percentDecoded(String(pieces[1]))]
                }
            }
        } else {
            for pair in keyValuePairs(Array(conninfo)) where pair.key == "password" {
                found += [pair.rawValue, pair.value]
            }
        }
        return found.filter { !$0.isEmpty }
    }

    /// Whether the URI `conninfo` holds a raw `@`, `/` or `?` in its user name or password, where
    /// libpq and a reader of the URI cut it differently: libpq ends the user information at
    /// the first `@` (only when no `/` comes before it), so `user:pa@ss@host` connects to host
    /// `ss@host` with password `pa`, and its error quotes the rest of the password; and
    /// `user:pa/ss@host/db` has no user information for libpq at all. A host never holds `@`,
    /// and a `?` in the user information would make a parameter appended to the query part of
    /// the password. Such characters are written percent-encoded (`%40`, `%2F`, `%3F`). An `@`
    /// in the database name after real user information (`user@host/db@x`) is no such case.
    /// False for the `key=value` form.
    /// What a refusal of such a URI says to do.
    package static let ambiguousUserInfoAdvice =
        "the user name, password and database name may hold no raw '@', '/' or '?': percent-encode them (%40, %2F, %3F), or give the password in --database-password-file"

    package static func hasAmbiguousUserInfo(_ conninfo: String) -> Bool {
        guard let scheme = uriSchemes.first(where: { conninfo.hasPrefix($0) }) else { return false }
        let rest = conninfo.dropFirst(scheme.count)
        guard let end = rest.firstIndex(where: { $0 == "@" || $0 == "/" }), rest[end] == "@" else {
            // No user information for libpq: an `@` before the query means a password it cut.
            return rest.prefix { $0 != "?" }.contains("@")
        }
        if rest[..<end].contains("?") { return true }
        return rest[rest.index(after: end)...].prefix { $0 != "/" && $0 != "?" }.contains("@")
    }

    /// Replaces every occurrence of a password of `conninfo` in `message` by `***`.
    package static func scrub(_ message: String, passwordsOf conninfo: String) -> String {
        // Longest first, so that a password containing another is replaced whole.
        passwords(in: conninfo).sorted { $0.count > $1.count }.reduce(message) { text, secret in
            text.replacingAll(secret, with: "***")
        }
    }

    // MARK: - URIs

    /// - Parameter replacement: what each password becomes; nil removes it with its `:` or its
    ///   query parameter.
    private static func redactedURI(_ characters: [Character], schemeLength: Int, replacement: String? = "***") -> String {
        let parts = uriParts(characters, schemeLength: schemeLength)
        var output = String(characters[0..<schemeLength])
        if let userinfo = parts.userinfo {
            if let colon = userinfo.firstIndex(of: ":") {
                output += String(userinfo[..<colon]) + (replacement.map { ":" + $0 } ?? "")
            } else {
                output += String(userinfo)
            }
            output += "@"
        }
        output += parts.hostAndPath
        if let queryMark = parts.queryMark {
            let query = parts.query.split(separator: "&", omittingEmptySubsequences: false).compactMap {
                parameter -> String? in
                let pieces = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard pieces.count == 2, percentDecoded(String(pieces[0])) == "password" else { return String(parameter) }
                return replacement.map { String(pieces[0]) + "=" + $0 }
            }
            if replacement != nil || !query.isEmpty { output += String(queryMark) + query.joined(separator: "&") }
        }
        return output
    }

    /// A URI cut into user information (before the last `@` ahead of the query; when the only
    /// `@` is past a `?`, that `@` is taken, so a stray `?` in a password never exposes it),
    /// host and path, and query.
    private static func uriParts(
        _ characters: [Character], schemeLength: Int
    ) -> (userinfo: ArraySlice<Character>?, hostAndPath: String, queryMark: Character?, query: String) {
        let rest = characters[schemeLength...]
        let firstQuestionMark = rest.firstIndex(of: "?") ?? characters.endIndex
        let at = rest[..<firstQuestionMark].lastIndex(of: "@") ?? rest.lastIndex(of: "@")
        let hostStart = at.map { $0 + 1 } ?? schemeLength
        let queryStart = characters[hostStart...].firstIndex(of: "?")
        let hostEnd = queryStart ?? characters.endIndex
        return (
            userinfo: at.map { characters[schemeLength..<$0] },
            hostAndPath: String(characters[hostStart..<hostEnd]),
            queryMark: queryStart.map { characters[$0] },
            query: queryStart.map { String(characters[($0 + 1)...]) } ?? ""
        )
    }

    /// `%XX` decoded; a malformed escape is kept as written.
    static func percentDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
                let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    // MARK: - key=value

    /// One `key = value` of the `key=value` form, with the text around it kept as written.
    struct Pair {
        /// Leading blanks, the key, the `=` and the blanks after it, as written.
        var beforeValue: String
        var key: String
        /// The value as written, quotes and backslashes included.
        var rawValue: String
        /// The value with quotes and escapes removed.
        var value: String
        /// Blanks after the value, as written (text that is no pair at all also ends up here).
        var after: String
    }

    /// Splits the `key=value` form as libpq's `conninfo_parse` reads it: blanks between pairs
    /// and around `=`, a value either in single quotes or up to the next blank, `\` escaping the
    /// next character in both.
    static func keyValuePairs(_ characters: [Character]) -> [Pair] {
        var pairs: [Pair] = []
        var index = 0
        var leading = ""
        while index < characters.count {
            while index < characters.count, characters[index].isWhitespace {
                leading.append(characters[index])
                index += 1
            }
            guard index < characters.count else { break }
            let keyStart = index
            while index < characters.count, !characters[index].isWhitespace, characters[index] != "=" { index += 1 }
            let key = String(characters[keyStart..<index])
            while index < characters.count, characters[index].isWhitespace { index += 1 }
            guard index < characters.count, characters[index] == "=" else {
                // Not a pair: libpq refuses the string. What follows cannot be told apart from a
                // value, so it is all hidden.
                pairs.append(Pair(beforeValue: leading, key: "", rawValue: "", value: "", after: "***"))
                return pairs
            }
            index += 1
            while index < characters.count, characters[index].isWhitespace { index += 1 }
            let before = leading + String(characters[keyStart..<index])
            let valueStart = index
            var value = ""
            if index < characters.count, characters[index] == "'" {
                index += 1
                while index < characters.count, characters[index] != "'" {
                    if characters[index] == "\\", index + 1 < characters.count { index += 1 }
                    value.append(characters[index])
                    index += 1
                }
                if index < characters.count { index += 1 }  // the closing quote
            } else {
                while index < characters.count, !characters[index].isWhitespace {
                    if characters[index] == "\\", index + 1 < characters.count { index += 1 }
                    value.append(characters[index])
                    index += 1
                }
            }
            pairs.append(
                Pair(beforeValue: before, key: key, rawValue: String(characters[valueStart..<index]), value: value, after: ""))
            leading = ""
        }
        if !leading.isEmpty { pairs.append(Pair(beforeValue: "", key: "", rawValue: "", value: "", after: leading)) }
        return pairs
    }
}
