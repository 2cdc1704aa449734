import Foundation
import LiveTestSupport
import PermissionWire
import TestThreads
import Testing

/// The documents cannot rot: the walkthrough (docs/walkthrough.md) and the README's tour run, in
/// order, against a live server, and the configuration table (docs/configuration.md) is the one
/// the binary generates from its settings list.
@Suite(.serialized, .timeLimit(.minutes(3)), .startsProcesses)
struct WalkthroughTests {
    @Test("every walkthrough command prints what docs/walkthrough.md shows")
    func walkthroughRunsAsDocumented() throws {
        let steps = try Readme("docs/walkthrough.md").steps(in: nil)
        #expect(steps.count >= 30, "the walkthrough covers every flow of SPEC §4")
        // As the page's own start command: location alerts after seconds, not days.
        try Self.run(
            steps, of: "docs/walkthrough.md", name: "walkthrough", extraArguments: ["--location-alert-intervals", "5s"])
    }

    @Test("every command of the README's five-minute tour prints what the README shows")
    func tourRunsAsDocumented() throws {
        let steps = try Readme().steps(in: "Five-minute tour")
        #expect(steps.count >= 5, "the tour registers an app, asks, answers, reads the status and the audit log")
        try Self.run(steps, of: "README.md", name: "tour")
    }

    /// Runs `steps` in order against a fresh live server (started with `extraArguments` after
    /// the usual ones), comparing each output with the document's.
    static func run(_ steps: [Readme.Step], of document: String, name: String, extraArguments: [String] = []) throws {
        let directory = try Paths.makeTemporaryDirectory(name)
        defer { Paths.removeTemporary(directory) }
        let server = try ServerProcess(
            database: directory.appendingPathComponent("\(name).sqlite").path, directory: directory,
            extraArguments: extraArguments)
        defer { server.killNow() }

        var variables = ["PERMISSION_URL": server.baseURL, "ADMIN_KEY": ServerProcess.adminKey]
        for step in steps {
            let result = try Subprocess.run("/bin/bash", ["-c", step.command], environment: variables, timeout: 20)
            let context =
                "\(document) line \(step.line): \(step.command)\n--- output:\n\(result.stdout)\n--- stderr:\n\(result.stderr)"
            #expect(result.status == 0 && !result.timedOut, "\(context)")
            guard let kind = step.expectedKind, let expected = step.expected else { continue }
            var matcher = JSONMatcher(captures: variables)
            do {
                let (want, got) =
                    kind == "ndjson"
                    ? (try Self.lines(expected), try Self.lines(result.stdout))
                    : (try StrictJSON.parse(Array(expected.utf8)), try StrictJSON.parse(Array(result.stdout.utf8)))
                matcher.match(want, got)
            } catch {
                Issue.record("\(context)\n--- not comparable as \(kind): \(error)")
                continue
            }
            #expect(matcher.mismatches.isEmpty, "\(context)\n--- differences:\n\(matcher.mismatches.joined(separator: "\n"))")
            variables.merge(matcher.captures) { _, new in new }
        }
    }

    @Test("the configuration table of docs/configuration.md is generated from the settings list, and --help shows each setting")
    func configurationTableMatchesSettings() throws {
        let readme = try Readme("docs/configuration.md")
        let table = try Subprocess.run(Paths.serverBinary, ["settings-table"])
        #expect(table.status == 0)
        let rows = table.stdout.split(separator: "\n").filter { $0.hasPrefix("| `--") }
        #expect(rows.count >= 10)
        #expect(
            readme.text.contains(table.stdout),
            "docs/configuration.md must contain the output of `permission-server settings-table`:\n\(table.stdout)")
        let help = try Subprocess.run(Paths.serverBinary, ["serve", "--help"])
        #expect(help.status == 0)
        let compactHelp = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let flag = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let environment = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            #expect(help.stdout.contains(flag), "--help lists \(flag)")
            #expect(compactHelp.contains("env: \(environment);"), "--help names \(environment) for \(flag)")
        }
    }

    /// NDJSON text as a JSON array of its non-empty lines.
    static func lines(_ text: String) throws -> JSONValue {
        .array(
            try text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
                .map { try StrictJSON.parse(Array($0.utf8)) })
    }
}
