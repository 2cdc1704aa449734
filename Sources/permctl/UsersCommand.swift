import ArgumentParser
import Foundation
import PermissionClient
import PermissionWire

/// `permctl users export USER [--output FILE]`.
struct UsersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "What the service keeps about a user.",
        discussion: """
            Examples:
              permctl users export u42 --output u42-export.json
              permctl users erase u42
            """,
        subcommands: [Export.self, UsersEraseCommand.self])

    /// `permctl users` alone: a usage error (64), so that a script that lost its verb does not
    /// take the help printed for success.
    func run() throws {
        throw ValidationError("name what to do: permctl users export USER, or permctl users erase USER")
    }

    /// `permctl users export USER [--output FILE]`: the user's export document (GDPR Art. 15
    /// and 20), as the server sent it, streamed: never held in memory, of any size the server
    /// allows (`--max-export-records`, up to 1,000,000 records).
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download everything kept about a user as one JSON document (admin or consent).",
            discussion: """
                Without --output the document is printed as it arrives; with it, it is written to FILE \
                (mode 0600: it is personal data) under a temporary name beside it, renamed to FILE only once \
                the whole document arrived, and a summary is printed. A document cut short (a lost connection, \
                fewer bytes than announced, an unclosed JSON object) exits 69 and leaves no FILE; one that is not \
                the user's export (no head, or another user's) exits 1 and leaves none either. --timeout \
                bounds each wait for the server, the first byte included: the server builds the document \
                before it sends it, so raise it for a very large export. Check a file with \
                scripts/verify-export.py.
                Examples:
                  permctl users export u42
                  permctl users export u42 --output u42-export.json
                """)

        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The user.") var user: String
        @Option(help: "Write the document to this file instead of printing it.") var output: String?

        func run() throws {
            let client = try connection.makeClient()
            var scanner = ExportScanner()
            var writeFailure: String?
            let file: PrivateFile?
            if let output {
                guard let created = PrivateFile(replacing: output) else {
                    Output.error("cannot write \(output): \(String(cString: strerror(errno)))")
                    throw ExitCode(ExitCodes.cantCreate)
                }
                file = created
            } else {
                file = nil
            }
            let bytes = try connection.download(client, Endpoints.exportDocument(user: user)) { chunk in
                scanner.feed(chunk)
                if let file {
                    writeFailure = file.write(chunk)
                } else {
                    writeFailure = PermissionClient.writeAll(chunk, to: STDOUT_FILENO).map { "cannot write the output: \($0)" }
                }
                return writeFailure == nil
            } failed: {
                file?.discard()
                if let writeFailure {
                    Output.error(writeFailure)
                    return ExitCodes.cantCreate
                }
                return nil
            }.value
            guard scanner.isComplete else {
                file?.discard()
                Output.error("the export ended after \(bytes) bytes, before its document did")
                throw ExitCode(ExitCodes.unavailable)
            }
            guard let file else {
                if let failure = Array("\n".utf8).withUnsafeBytes({ PermissionClient.writeAll($0, to: STDOUT_FILENO) }) {
                    Output.error("cannot write the output: \(failure)")
                    throw ExitCode(ExitCodes.cantCreate)
                }
                return
            }
            // Checked before the file takes its name: a document that is not this user's export
            // leaves no FILE, as one cut short does not.
            guard let head = scanner.head, let exported = scanner.user else {
                file.discard()
                Output.error("the server's export is not readable: it has no user or head")
                throw ExitCode(ExitCodes.failure)
            }
            guard exported == user else {
                file.discard()
                Output.error("the server's export is about \(Output.visible(exported)), not \(Output.visible(user))")
                throw ExitCode(ExitCodes.failure)
            }
            if let failure = file.commit() {
                Output.error(failure)
                throw ExitCode(ExitCodes.cantCreate)
            }
            let summary = Summary(
                file: file.path, user: exported, consentRecords: scanner.counts["consentRecords"] ?? 0,
                prompts: scanner.counts["prompts"] ?? 0, auditEntries: scanner.counts["audit"] ?? 0, head: head)
            if connection.json { return Output.json(summary) }
            Output.fields([
                ("file", summary.file), ("user", summary.user), ("consent records", String(summary.consentRecords)),
                ("prompts", String(summary.prompts)), ("audit entries", String(summary.auditEntries)),
                ("head", "\(head.seq) \(head.hash)"),
            ])
        }
    }

    /// What `--json` prints after writing the file.
    struct Summary: Encodable {
        let file: String
        let user: String
        let consentRecords: Int
        let prompts: Int
        let auditEntries: Int
        let head: UserExport.Head
    }
}

struct UsersEraseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "erase",
        abstract:
            "Erase a user (GDPR Art. 17): records, prompts, settings, policies, consent sessions, location alert schedules.",
        discussion: """
            The audit log keeps the user's entries, but their user id and purpose texts become unreadable for \
            good (their key is destroyed); one user.erased entry names the pseudonym they keep. Exit 1 (404) when \
            nothing is stored about the user.
            Example:
              permctl users erase u42
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The user.") var user: String

    func run() throws {
        let client = try connection.makeClient()
        let result = try connection.call(client, Endpoints.eraseUser(user)).value
        if connection.json { return Output.json(result) }
        Output.fields([
            ("Erased", user),
            ("Pseudonym", result.pseudonym ?? "-"),
            ("Authorizations", String(result.authorizations)),
            ("Prompts", String(result.prompts)),
            ("Settings", result.settings ? "yes" : "no"),
            ("Policies", String(result.policies)),
            ("Consent sessions", String(result.consentSessions)),
            ("Location alert schedules", String(result.locationAlerts)),
            ("Audit entry", String(result.auditSeq)),
        ])
    }
}
