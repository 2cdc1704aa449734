import ArgumentParser
import PermissionClient
import PermissionWire

/// `permctl keys [list|create|delete]`.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "List, issue and revoke API keys (admin).",
        discussion: """
            The secret of a new key is printed once; only its hash is stored.
            Examples:
              permctl keys
              permctl keys create --role app --app com.example.maps --name maps-backend
              permctl keys delete k_7f3a9c
            """,
        subcommands: [List.self, Create.self, Delete.self],
        defaultSubcommand: List.self)

    static let headers = ["ID", "ROLE", "APP", "NAME", "CREATED"]

    static func row(_ key: APIKey) -> [String] {
        [key.id, key.role.rawValue, key.app ?? "-", key.name ?? "-", Output.time(key.createdAt)]
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List keys (without secrets).", discussion: "Example:\n  permctl keys list")
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            let client = try connection.makeClient()
            let list = try connection.call(client, Endpoints.keys()).value
            if connection.json { return Output.json(list) }
            Output.table(KeysCommand.headers, list.items.map(KeysCommand.row))
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Issue a key and print its secret once.",
            discussion: "Example:\n  permctl keys create --role consent --name consent-ui")
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "admin, consent, app or auditor.") var role: String
        @Option(help: "The app an app key is bound to.") var app: String?
        @Option(help: "A label.") var name: String?

        func validate() throws {
            guard role != "user" else {
                throw ValidationError("--role user is a consent session's role, never a key's: make a consent link instead")
            }
            guard APIKey.Role(rawValue: role) != nil else {
                throw ValidationError("--role must be admin, consent, app or auditor")
            }
        }

        func run() throws {
            let client = try connection.makeClient()
            let issued = try connection.call(
                client, Endpoints.createKey(NewAPIKey(role: APIKey.Role(rawValue: role) ?? .auditor, app: app, name: name))
            ).value
            if connection.json { return Output.json(issued) }
            Output.table(KeysCommand.headers, [KeysCommand.row(issued.key)])
            print("secret: \(issued.secret)   (shown once)")
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a key.", discussion: "Example:\n  permctl keys delete k_7f3a9c")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The key id.") var id: String

        func run() throws {
            let client = try connection.makeClient()
            _ = try connection.call(client, Endpoints.deleteKey(id: id))
            if !connection.json { print("Deleted key \(id).") }
        }
    }
}
