import ArgumentParser
import PermissionClient
import PermissionWire

/// `permctl policies [list|get|put|delete]`.
struct PoliciesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policies",
        abstract: "List, show, create and delete operator policies (restrict or pre-approve).",
        discussion: """
            Examples:
              permctl policies
              permctl policies put no-camera-u42 --service camera --user u42 --effect restrict
              permctl policies delete no-camera-u42
            """,
        subcommands: [List.self, Get.self, Put.self, Delete.self],
        defaultSubcommand: List.self)

    static func rows(_ policies: [Policy]) -> [[String]] {
        policies.map { [$0.id, $0.service, $0.app ?? "*", $0.user ?? "*", $0.effect.rawValue, $0.level ?? "-"] }
    }

    static let headers = ["ID", "SERVICE", "APP", "USER", "EFFECT", "LEVEL"]

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List policies.", discussion: "Example:\n  permctl policies list")
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "Continue after this cursor.") var after: String?
        @Option(help: "The page size (1-1000).") var limit: Int?

        func run() throws {
            let client = try connection.makeClient()
            let list = try connection.call(client, Endpoints.policies(after: after, limit: limit)).value
            if connection.json { return Output.json(list) }
            Output.table(PoliciesCommand.headers, PoliciesCommand.rows(list.items))
            Output.more(after: list.nextCursor)
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show one policy.", discussion: "Example:\n  permctl policies get no-camera-u42")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The policy id.") var id: String

        func run() throws {
            let client = try connection.makeClient()
            let policy = try connection.call(client, Endpoints.policy(id: id)).value
            if connection.json { return Output.json(policy) }
            Output.table(PoliciesCommand.headers, PoliciesCommand.rows([policy]))
        }
    }

    struct Put: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create or replace a policy.",
            discussion: "Example:\n  permctl policies put kids-no-tracking --service tracking --effect restrict")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The policy id.") var id: String
        @Option(help: "The service it applies to.") var service: String
        @Option(help: "restrict or allow.") var effect: String
        @Option(help: "Only this app (default: all apps).") var app: String?
        @Option(help: "Only this user (default: all users).") var user: String?
        @Option(help: "The pre-approved level (allow only).") var level: String?

        func validate() throws {
            guard Policy.Effect(rawValue: effect) != nil else { throw ValidationError("--effect must be restrict or allow") }
        }

        func run() throws {
            let client = try connection.makeClient()
            let definition = PolicyDefinition(
                service: service, app: app, user: user,
                effect: Policy.Effect(rawValue: effect) ?? .restrict, level: level)
            let policy = try connection.call(client, Endpoints.putPolicy(id: id, definition)).value
            if connection.json { return Output.json(policy) }
            Output.table(PoliciesCommand.headers, PoliciesCommand.rows([policy]))
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a policy.", discussion: "Example:\n  permctl policies delete no-camera-u42")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The policy id.") var id: String

        func run() throws {
            let client = try connection.makeClient()
            _ = try connection.call(client, Endpoints.deletePolicy(id: id))
            if !connection.json { print("Deleted policy \(id).") }
        }
    }
}
