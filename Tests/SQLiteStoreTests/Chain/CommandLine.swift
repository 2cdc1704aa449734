import Foundation
import TestProcesses

/// Runs a real command-line tool (the sqlite3 shell, sha256sum) as a ``ChildProcess``, killed
/// after 60 s, and returns its standard output; an end other than exit 0 is an error carrying its
/// standard error.
func runTool(_ executable: String, _ arguments: [String], input: String? = nil) throws -> String {
    let done = try ChildProcess.run(executable, arguments, input: input, timeout: 60)
    guard done.termination == .exited(0) else {
        throw ToolFailure(message: "\(executable) ended with \(done.termination): \(done.standardError)")
    }
    return done.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
}

struct ToolFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// What an attacker with access to the file can do: SQL through the sqlite3 shell.
func sqlite3(_ file: String, _ sql: String) throws -> String {
    try runTool("/usr/bin/sqlite3", [file, sql])
}

/// Lowercase hex SHA-256 of `text`, computed by coreutils (independently of the store).
func sha256sum(_ text: String) throws -> String {
    String(try runTool("/usr/bin/sha256sum", [], input: text).prefix(64))
}
