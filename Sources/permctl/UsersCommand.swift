import ArgumentParser
import PermissionClient

struct UsersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "What is stored about a user, as a whole.",
        subcommands: [UsersEraseCommand.self])
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
