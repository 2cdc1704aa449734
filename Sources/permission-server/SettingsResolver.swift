import Foundation

/// Resolves settings with the precedence flags > environment > config file > default.
struct SettingsResolver {
    /// Values given as flags, keyed by flag name.
    var flags: [String: String]
    /// The process environment.
    var environment: [String: String]
    /// Values from the config file, keyed by environment variable name.
    var file: [String: String]

    /// Where a resolved value came from, for the startup log line.
    enum Source: String { case flag, environment, file, `default` }

    func value(_ setting: Setting) -> (value: String, source: Source)? {
        if !setting.isSecret, let v = flags[setting.flag] { return (v, .flag) }
        if let v = environment[setting.environment] { return (v, .environment) }
        if let v = file[setting.environment] { return (v, .file) }
        if let v = setting.defaultValue { return (v, .default) }
        return nil
    }

    func string(_ setting: Setting) -> String? { value(setting)?.value }

    /// The integer value of `setting`, within its ``Setting/range``.
    func int(_ setting: Setting) throws(ConfigurationError) -> Int {
        guard let range = setting.range else { preconditionFailure("--\(setting.flag) has no range: not an integer setting") }
        guard let (text, source) = value(setting) else { throw .missing(setting) }
        guard let n = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(n) else {
            throw .invalid(setting, text, source, "an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return n
    }

    func choice(_ setting: Setting, among choices: [String]) throws(ConfigurationError) -> String {
        guard let (text, source) = value(setting) else { throw .missing(setting) }
        let lowered = text.lowercased()
        guard choices.contains(lowered) else {
            throw .invalid(setting, text, source, "one of \(choices.joined(separator: ", "))")
        }
        return lowered
    }

    /// Parses a config file of `PERMISSION_NAME=value` lines; `#` starts a comment line; values may be quoted.
    static func parseFile(at path: String) throws(ConfigurationError) -> [String: String] {
        let text: String
        do { text = try PlainFile.text(at: path) } catch {
            throw .unreadableFile(path, error.description)
        }
        let known = Set(Settings.all.map(\.environment) + secretEnvironmentNames)
        var result: [String: String] = [:]
        // Any line break: "\r\n" (a file written on Windows) is one Character, and is one.
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let eq = line.firstIndex(of: "=") else { throw .badFileLine(path, index + 1, "expected NAME=value") }
            let name = line[..<eq].trimmingCharacters(in: .whitespaces)
            var value = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let f = value.first, f == "\"" || f == "'", value.last == f {
                value = String(value.dropFirst().dropLast())
            }
            guard known.contains(name) else { throw .badFileLine(path, index + 1, "unknown setting \(name)") }
            result[name] = value
        }
        return result
    }

    /// Environment-only settings that hold secrets.
    static let secretEnvironmentNames = ["PERMISSION_BOOTSTRAP_ADMIN_KEY"]
}

/// A configuration problem, reported before the server starts.
enum ConfigurationError: Error, CustomStringConvertible {
    case missing(Setting)
    case invalid(Setting, String, SettingsResolver.Source, String)
    case unreadableFile(String, String)
    case badFileLine(String, Int, String)
    /// Two settings that say the same thing in two ways were both given (with their sources);
    /// the last value says what to do instead.
    case conflicting(Setting, SettingsResolver.Source, Setting, SettingsResolver.Source, String)

    var description: String {
        switch self {
        case .missing(let s): "--\(s.flag) / \(s.environment) is required"
        case .conflicting(let first, let firstSource, let second, let secondSource, let instead):
            "\(Self.name(first)) (from \(firstSource.rawValue)) and \(Self.name(second)) (from \(secondSource.rawValue)) are both set: \(instead)"
        case .invalid(let s, let v, let source, let expected):
            // A secret's value is never echoed, not even a wrong one.
            "invalid value '\(s.isSecret ? "(secret, not shown)" : v)' for --\(s.flag) / \(s.environment) (from \(source.rawValue)): expected \(expected)"
        case .unreadableFile(let path, let why): "cannot read config file \(path): \(why)"
        case .badFileLine(let path, let line, let why): "config file \(path), line \(line): \(why)"
        }
    }

    /// A setting as its user gives it: flag and variable, or the variable alone for a secret.
    private static func name(_ setting: Setting) -> String {
        setting.isSecret ? setting.environment : "--\(setting.flag) / \(setting.environment)"
    }
}
