import ArgumentParser
import PermissionClient
import PermissionWire

/// `permctl lifecycle USER APP EVENT [--used-at TIME]`.
struct LifecycleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lifecycle",
        abstract: "Report an app lifecycle event as the device would: sessionEnded, reinstalled or backgroundLocationUsed.",
        discussion: """
            sessionEnded ends Allow Once grants; reinstalled resets location; backgroundLocationUsed
            reports one background use of location: it raises the upgrade prompt for a provisional
            Always grant and, while the app holds Always, counts towards the location alerts
            (--used-at dates the use, within the past 3 days; default now).
            Examples:
              permctl lifecycle u42 com.example.maps sessionEnded
              permctl lifecycle u42 com.example.maps backgroundLocationUsed --used-at 2026-11-22T07:30:00Z
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The user id.") var user: String
    @Argument(help: "The app's bundle id.") var app: String
    @Argument(help: "sessionEnded, reinstalled or backgroundLocationUsed.") var event: String
    @Option(
        name: .customLong("used-at"),
        help: "When the background use happened (RFC 3339, within the past 3 days); backgroundLocationUsed only.")
    var usedAt: String?

    /// `event` as the wire's event; refused (exit 64) when it names none.
    private func parsedEvent() throws -> LifecycleEvent.Event {
        guard let parsed = LifecycleEvent.Event(rawValue: event) else {
            throw ValidationError("EVENT must be sessionEnded, reinstalled or backgroundLocationUsed")
        }
        return parsed
    }

    func validate() throws {
        let parsed = try parsedEvent()
        guard let usedAt else { return }
        guard parsed == .backgroundLocationUsed else { throw ValidationError("--used-at goes only with backgroundLocationUsed") }
        guard Timestamp.parse(usedAt) != nil else {
            throw ValidationError("--used-at must be an RFC 3339 time such as 2026-11-22T07:30:00Z")
        }
    }

    func run() throws {
        let client = try connection.makeClient()
        let result = try connection.call(
            client,
            Endpoints.lifecycle(
                user: user, app: app, event: try parsedEvent(), usedAt: usedAt.flatMap(Timestamp.parse))
        ).value
        if connection.json { return Output.json(result) }
        if result.changed.isEmpty {
            print("Changed no authorization.")
        } else {
            Output.table(
                ["SERVICE", "STATUS", "REASON"], result.changed.map { [$0.service, Output.status($0), $0.reason.rawValue] })
        }
        if let recorded = result.usageRecorded {
            print(
                recorded
                    ? "Background use recorded for location alerts."
                    : "Background use not recorded: the app does not hold Always location access.")
        }
        if let prompt = result.prompt {
            print(
                "The user must decide: prompt \(prompt.id) (\(prompt.kind.rawValue)), options \(prompt.options.joined(separator: ", "))"
            )
            print(
                "  purpose: \(Output.visible(prompt.purpose))\(prompt.purposeLanguage.map { " [\(Output.visible($0))]" } ?? "")")
        }
    }
}
