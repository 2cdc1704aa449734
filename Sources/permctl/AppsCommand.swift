import ArgumentParser
import PermissionClient
import PermissionWire

/// `permctl apps [list|get|register]`.
struct AppsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "List, show and register apps and their purpose strings.",
        discussion: """
            Examples:
              permctl apps
              permctl apps register com.example.maps --name Maps \\
                --purpose NSLocationWhenInUseUsageDescription="Shows nearby stops."
            """,
        subcommands: [List.self, Get.self, Register.self],
        defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List registered apps.", discussion: "Example:\n  permctl apps list --limit 50")
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "Continue after this cursor (the previous page's nextCursor).") var after: String?
        @Option(help: "The page size (1-1000).") var limit: Int?

        func run() throws {
            let client = try connection.makeClient()
            let list = try connection.call(client, Endpoints.apps(after: after, limit: limit)).value
            if connection.json { return Output.json(list) }
            Output.table(["ID", "NAME", "PURPOSE KEYS", "UPDATED"], list.items.map { app in
                [app.id, app.name, app.purposeStrings.keys.sorted().joined(separator: ","), Output.time(app.updatedAt)]
            })
            if let next = list.nextCursor { print("(more: --after \(next))") }
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show one app and its purpose strings.", discussion: "Example:\n  permctl apps get com.example.maps")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The bundle id.") var app: String

        func run() throws {
            let client = try connection.makeClient()
            let value = try connection.call(client, Endpoints.app(app)).value
            if connection.json { return Output.json(value) }
            Output.fields([("id", value.id), ("name", value.name), ("updated", Output.time(value.updatedAt))])
            Output.table(["PURPOSE KEY", "PURPOSE STRING"], value.purposeStrings.sorted { $0.key < $1.key }.map { [$0.key, $0.value] })
        }
    }

    struct Register: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register an app (or replace its name and purpose strings).",
            discussion: """
                Example:
                  permctl apps register com.example.maps --name Maps \\
                    --purpose NSLocationWhenInUseUsageDescription="Shows nearby stops."
                """)
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The bundle id.") var app: String
        @Option(help: "The display name.") var name: String
        @Option(help: ArgumentHelp("An Info.plist key and its purpose string; repeat for each.", valueName: "KEY=TEXT"))
        var purpose: [String] = []

        func validate() throws {
            for item in purpose where !item.contains("=") { throw ValidationError("--purpose takes KEY=TEXT, got '\(item)'") }
        }

        func run() throws {
            var strings: [String: String] = [:]
            for item in purpose {
                let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                strings[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
            }
            let client = try connection.makeClient()
            let value = try connection.call(client, Endpoints.registerApp(app, AppRegistration(name: name, purposeStrings: strings))).value
            if connection.json { return Output.json(value) }
            print("Registered \(value.id) (\(value.name)) with \(value.purposeStrings.count) purpose string(s).")
        }
    }
}
