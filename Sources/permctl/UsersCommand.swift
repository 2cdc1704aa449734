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

    /// `permctl users export USER [--output FILE]`: the user's export document (GDPR Art. 15
    /// and 20), as the server sent it.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download everything kept about a user as one JSON document (admin or consent).",
            discussion: """
                Without --output the document is printed; with it, it is written to FILE (mode 0600: \
                it is personal data) and a summary is printed. Check it with scripts/verify-export.py.
                Examples:
                  permctl users export u42
                  permctl users export u42 --output u42-export.json
                """)

        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The user.") var user: String
        @Option(help: "Write the document to this file instead of printing it.") var output: String?

        func run() throws {
            let client = try connection.makeClient()
            let bytes = try connection.call(client, Endpoints.exportDocument(user: user)).value
            guard let output else {
                FileHandle.standardOutput.write(Data(bytes))
                FileHandle.standardOutput.write(Data("\n".utf8))
                return
            }
            guard PrivateFile.write(bytes, to: output) else {
                Output.error("cannot write \(output)")
                throw ExitCode(ExitCodes.cantCreate)
            }
            let export: UserExport
            do {
                export = try WireDecoder.decodeResponse(UserExport.self, from: bytes)
            } catch {
                Output.error("the server's export is not readable: \(error)")
                throw ExitCode(ExitCodes.failure)
            }
            if connection.json { return Output.json(Summary(export, file: output)) }
            Output.fields([
                ("file", output), ("user", export.user), ("consent records", String(export.consentRecords.count)),
                ("prompts", String(export.prompts.count)), ("audit entries", String(export.audit.count)),
                ("head", "\(export.head.seq) \(export.head.hash)"),
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

        init(_ export: UserExport, file: String) {
            self.file = file
            user = export.user
            consentRecords = export.consentRecords.count
            prompts = export.prompts.count
            auditEntries = export.audit.count
            head = export.head
        }
    }
}

struct UsersEraseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "erase",
        abstract: "Erase a user (GDPR Art. 17): records, prompts, settings, policies and consent sessions.",
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
            ("Audit entry", String(result.auditSeq)),
        ])
    }
}
