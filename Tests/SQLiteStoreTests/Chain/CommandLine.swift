import Foundation

/// Runs a real command-line tool (the sqlite3 shell, sha256sum) and returns its standard
/// output; a non-zero exit is an error carrying its standard error.
func runTool(_ executable: String, _ arguments: [String], input: String? = nil) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe(), errors = Pipe(), stdin = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = stdin
    try process.run()
    if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
    try stdin.fileHandleForWriting.close()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw ToolFailure(message: "\(executable) exited \(process.terminationStatus): \(String(decoding: err, as: UTF8.self))")
    }
    return String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
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
