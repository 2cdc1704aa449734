import ArgumentParser
import PermissionClient
import PermissionWire

/// `permctl prompts USER [--state STATE]`.
struct PromptsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prompts",
        abstract: "List a user's prompts (pending ones by default), as the consent UI sees them.",
        discussion: """
            A location alert's kind carries the background uses it shows: locationAlert(backgroundUses=14).
            Example:
              permctl prompts u42
              permctl prompts u42 --state all
              permctl prompts u42 --state all --after 01a1ee565e00-72c4d6e1a3b2f908
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The user id.") var user: String
    @Option(help: "pending (default), answered, expired, cancelled or all.") var state = "pending"
    @Option(help: "The page size (1-1000).") var limit: Int?
    @Option(help: "Continue after this cursor (the previous page's nextCursor).") var after: String?

    func validate() throws {
        guard state == "all" || Prompt.State(rawValue: state) != nil else {
            throw ValidationError("--state must be pending, answered, expired, cancelled or all")
        }
    }

    func run() throws {
        let client = try connection.makeClient()
        let list = try connection.call(
            client, Endpoints.prompts(user: user, state: Prompt.State(rawValue: state), after: after, limit: limit)
        ).value
        if connection.json { return Output.json(list) }
        Output.table(Output.promptHeaders, list.items.map(Output.promptRow))
        Output.more(after: list.nextCursor)
    }
}

/// `permctl decide PROMPT CHOICE`.
struct DecideCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decide",
        abstract: "Answer a pending prompt with one of its options, as the user would.",
        discussion: """
            Examples:
              permctl decide 019ab2c3d4e5-8f3a2b1c0d9e8f7a allowWhileUsing
              permctl decide 019ab2c3d4e5-8f3a2b1c0d9e8f7a allow --until 2026-12-24T18:00:00Z
              permctl decide 019ab2c3d4e5-8f3a2b1c0d9e8f7a changeToWhileUsing
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The prompt id.") var prompt: String
    @Argument(
        help:
            "The choice: allow, deny, allowOnce, allowWhileUsing, selectItems, allowFull, keepWhileUsing, changeToAlways, keepAlways, changeToWhileUsing."
    ) var choice: String
    @Option(help: "When the grant ends (RFC 3339, e.g. 2026-12-24T18:00:00Z); not with deny or allowOnce.")
    var until: String?

    func validate() throws {
        if let until, Timestamp.parse(until) == nil {
            throw ValidationError("--until must be an RFC 3339 time such as 2026-12-24T18:00:00Z")
        }
    }

    func run() throws {
        let client = try connection.makeClient()
        let result = try connection.call(
            client, Endpoints.decide(prompt: prompt, choice: choice, until: until.flatMap(Timestamp.parse))
        ).value
        if connection.json { return Output.json(result) }
        Output.authorization(result.authorization)
    }
}
