import ArgumentParser
import PermissionClient
import PermissionWire

/// `permctl apps [list|get|register|purpose-changed]`.
struct AppsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "List, show and register apps and their purpose strings.",
        discussion: """
            Examples:
              permctl apps
              permctl apps register com.example.maps --name Maps \\
                --purpose NSLocationWhenInUseUsageDescription="Shows nearby stops." \\
                --localized de:NSLocationWhenInUseUsageDescription="Zeigt Haltestellen in der Nähe."
              permctl apps purpose-changed com.example.maps
            """,
        subcommands: [List.self, Get.self, Register.self, PurposeChanged.self],
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
            Output.table(
                ["ID", "NAME", "PURPOSE KEYS", "UPDATED"],
                list.items.map { app in
                    [app.id, app.name, app.purposeStrings.keys.sorted().joined(separator: ","), Output.time(app.updatedAt)]
                })
            Output.more(after: list.nextCursor)
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
            var fields = [("id", value.id), ("name", value.name)]
            if let language = value.developmentLanguage { fields.append(("language", language)) }
            fields.append(("updated", Output.time(value.updatedAt)))
            Output.fields(fields)
            Output.table(
                ["PURPOSE KEY", "PURPOSE STRING"], value.purposeStrings.sorted { $0.key < $1.key }.map { [$0.key, $0.value] })
            let localized = value.localizedPurposeStrings.sorted { $0.key < $1.key }.flatMap { language, strings in
                strings.sorted { $0.key < $1.key }.map { [language, $0.key, $0.value] }
            }
            if !localized.isEmpty { Output.table(["LANGUAGE", "PURPOSE KEY", "PURPOSE STRING"], localized) }
        }
    }

    struct Register: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register an app (or replace its name, purpose strings and their translations).",
            discussion: """
                Example:
                  permctl apps register com.example.maps --name Maps --development-language en \\
                    --purpose NSLocationWhenInUseUsageDescription="Shows nearby stops." \\
                    --localized de:NSLocationWhenInUseUsageDescription="Zeigt Haltestellen in der Nähe."
                With --reconsent, every grant given under a purpose string this changes goes back to
                notDetermined (purposeChanged), and the app's next request asks with the new text.
                """)
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The bundle id.") var app: String
        @Option(help: "The display name.") var name: String
        @Option(help: ArgumentHelp("An Info.plist key and its purpose string; repeat for each.", valueName: "KEY=TEXT"))
        var purpose: [String] = []
        @Option(
            help: ArgumentHelp(
                "A translation of a purpose string: a language tag, the key and the text; repeat for each.",
                valueName: "LANGUAGE:KEY=TEXT"))
        var localized: [String] = []
        @Option(
            name: .customLong("development-language"),
            help: ArgumentHelp(
                "The language the --purpose strings are written in (a language tag, as CFBundleDevelopmentRegion).",
                valueName: "LANGUAGE"))
        var developmentLanguage: String?
        @Flag(help: "Ask again: grants given under a purpose string this changes go back to notDetermined.")
        var reconsent = false

        func validate() throws {
            for item in purpose where !item.contains("=") { throw ValidationError("--purpose takes KEY=TEXT, got '\(item)'") }
            for item in localized where Self.translation(item) == nil {
                throw ValidationError("--localized takes LANGUAGE:KEY=TEXT, got '\(item)'")
            }
        }

        /// `LANGUAGE:KEY=TEXT` split into its parts.
        static func translation(_ item: String) -> (language: String, key: String, text: String)? {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2 else { return nil }
            let head = pair[0].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard head.count == 2 else { return nil }
            return (String(head[0]), String(head[1]), String(pair[1]))
        }

        func run() throws {
            var strings: [String: String] = [:]
            for item in purpose {
                let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                strings[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
            }
            var translations: [String: [String: String]] = [:]
            for item in localized {
                guard let (language, key, text) = Self.translation(item) else { continue }
                translations[language, default: [:]][key] = text
            }
            let registration = AppRegistration(
                name: name, purposeStrings: strings, localizedPurposeStrings: translations.isEmpty ? nil : translations,
                developmentLanguage: developmentLanguage, reconsent: reconsent ? true : nil)
            let client = try connection.makeClient()
            let value = try connection.call(client, Endpoints.registerApp(app, registration)).value
            if connection.json { return Output.json(value) }
            print(
                "Registered \(Output.visible(value.id)) (\(Output.visible(value.name))) with \(value.purposeStrings.count) purpose string(s)."
            )
            if let reconsented = value.reconsented {
                print("Asked again for \(reconsented) grant(s) given under a purpose string that changed.")
            }
        }
    }

    struct PurposeChanged: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "purpose-changed",
            abstract: "List an app's grants given under a purpose string it has since changed.",
            discussion: """
                A page may be short while there is more: continue with --after.
                Example:
                  permctl apps purpose-changed com.example.maps
                """)
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The bundle id.") var app: String
        @Option(help: "Continue after this cursor (the previous page's nextCursor).") var after: String?
        @Option(help: "The page size (1-1000).") var limit: Int?

        func run() throws {
            let client = try connection.makeClient()
            let list = try connection.call(client, Endpoints.purposeChanged(app: app, after: after, limit: limit)).value
            if connection.json { return Output.json(list) }
            Output.table(
                ["USER", "SERVICE", "STATUS", "PURPOSE SHOWN", "LANGUAGE"],
                list.items.map { item in
                    [item.user, item.service, Output.status(item), item.purpose ?? "-", item.purposeLanguage ?? "-"]
                })
            Output.more(after: list.nextCursor)
        }
    }
}
