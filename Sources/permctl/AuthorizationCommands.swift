import ArgumentParser
import PermissionClient
import PermissionWire

/// `permctl status USER APP SERVICE`.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the effective authorization of an app for a service and user.",
        discussion: "Example:\n  permctl status u42 com.example.maps location")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The user id.") var user: String
    @Argument(help: "The app's bundle id.") var app: String
    @Argument(help: "The service, e.g. location.") var service: String

    func run() throws {
        let client = try connection.makeClient()
        let response = try connection.call(client, Endpoints.authorization(user: user, app: app, service: service))
        if connection.json { return Output.json(response.value, adding: ("etag", response.etag)) }
        Output.authorization(response.value, etag: response.etag)
    }
}

/// `permctl request USER APP SERVICE --level LEVEL`.
struct RequestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Ask for access as the app would; prints the prompt when the user must decide.",
        discussion: "Example:\n  permctl request u42 com.example.maps location --level whenInUse")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The user id.") var user: String
    @Argument(help: "The app's bundle id.") var app: String
    @Argument(help: "The service, e.g. location.") var service: String
    @Option(help: "The level to ask for, e.g. whenInUse, always, full.") var level: String

    func run() throws {
        let client = try connection.makeClient()
        let outcome = try connection.call(client, Endpoints.requestAccess(user: user, app: app, service: service, level: level))
            .value
        if connection.json { return Output.json(outcome) }
        Output.authorization(outcome.authorization)
        if let prompt = outcome.prompt {
            print("")
            print(
                "The user must decide: prompt \(prompt.id) (\(prompt.kind.rawValue)), options \(prompt.options.joined(separator: ", "))"
            )
            print(
                "  purpose: \(Output.visible(prompt.purpose))\(prompt.purposeLanguage.map { " [\(Output.visible($0))]" } ?? "")")
        }
    }
}

/// `permctl button USER APP`.
struct ButtonCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "button",
        abstract: "Press the app's location button as the user would: Allow Once, or its prompt the first time.",
        discussion: """
            The first press (until the user allows it) prints the button's prompt (allowOnce or
            deny); later presses grant Allow Once at once. With While Using or Always granted,
            denied or restricted, nothing changes and the answer says why.
            Example:
              permctl button u42 com.example.maps
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The user id.") var user: String
    @Argument(help: "The app's bundle id.") var app: String

    func run() throws {
        let client = try connection.makeClient()
        let result = try connection.call(client, Endpoints.pressLocationButton(user: user, app: app)).value
        if connection.json { return Output.json(result) }
        Output.authorization(result.authorization)
        print("")
        switch result.outcome {
        case .granted:
            print("Granted Allow Once by the location button.")
        case .unchanged:
            print("Unchanged: \(result.why?.rawValue ?? "unknown").")
        case .prompted:
            guard let prompt = result.prompt else { return }
            print(
                "The user must confirm the button: prompt \(prompt.id) (\(prompt.kind.rawValue)), options \(prompt.options.joined(separator: ", "))"
            )
            print(
                "  purpose: \(Output.visible(prompt.purpose))\(prompt.purposeLanguage.map { " [\(Output.visible($0))]" } ?? "")")
        }
    }
}

/// `permctl set USER APP SERVICE STATUS [--level LEVEL] [--if-match ETAG]`.
struct SetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change an authorization as the user would in Settings.",
        discussion: """
            STATUS is authorized (with --level, and --until for a grant that ends), denied, or
            notDetermined (Ask Next Time).
            Examples:
              permctl set u42 com.example.maps location authorized --level always
              permctl set u42 com.example.maps camera authorized --level full --until 2026-12-24T18:00:00Z
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The user id.") var user: String
    @Argument(help: "The app's bundle id.") var app: String
    @Argument(help: "The service, e.g. location.") var service: String
    @Argument(help: "authorized, denied or notDetermined.") var status: String
    @Option(help: "The level, with authorized.") var level: String?
    @Option(help: "When the grant ends (RFC 3339, e.g. 2026-12-24T18:00:00Z), with authorized.")
    var until: String?
    @Option(name: .customLong("if-match"), help: "Only if the authorization still has this ETag (412 otherwise).")
    var ifMatch: String?

    func validate() throws {
        guard let parsed = Authorization.Status(rawValue: status), parsed != .restricted else {
            throw ValidationError("STATUS must be authorized, denied or notDetermined")
        }
        if parsed == .authorized, level == nil { throw ValidationError("authorized needs --level") }
        if parsed != .authorized, level != nil { throw ValidationError("--level goes only with authorized") }
        if parsed != .authorized, until != nil { throw ValidationError("--until goes only with authorized") }
        if let until, Timestamp.parse(until) == nil {
            throw ValidationError("--until must be an RFC 3339 time such as 2026-12-24T18:00:00Z")
        }
    }

    func run() throws {
        let client = try connection.makeClient()
        let change = SettingsChange(
            status: Authorization.Status(rawValue: status) ?? .denied, level: level, until: until.flatMap(Timestamp.parse))
        let response = try connection.call(
            client, Endpoints.setAuthorization(user: user, app: app, service: service, change, ifMatch: ifMatch))
        if connection.json { return Output.json(response.value, adding: ("etag", response.etag)) }
        Output.authorization(response.value, etag: response.etag)
    }
}

/// `permctl revoke USER APP SERVICE [--if-match ETAG]`.
struct RevokeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke access (denied, userSet); backends see it on the change feed at once.",
        discussion: "Example:\n  permctl revoke u42 com.example.maps location")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The user id.") var user: String
    @Argument(help: "The app's bundle id.") var app: String
    @Argument(help: "The service, e.g. location.") var service: String
    @Option(name: .customLong("if-match"), help: "Only if the authorization still has this ETag (412 otherwise).")
    var ifMatch: String?

    func run() throws {
        let client = try connection.makeClient()
        let response = try connection.call(client, Endpoints.revoke(user: user, app: app, service: service, ifMatch: ifMatch))
        if connection.json { return Output.json(response.value, adding: ("etag", response.etag)) }
        Output.authorization(response.value, etag: response.etag)
    }
}

/// `permctl reset SERVICE [--app BUNDLE_ID] [--user USER]`, tccutil's form.
struct ResetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Reset authorizations to notDetermined, like tccutil reset SERVICE [BUNDLE_ID].",
        discussion: """
            SERVICE is a service id or all. Pending prompts are cancelled and every record is audited.
            Examples:
              permctl reset location --app com.example.maps
              permctl reset all --user u42
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "A service id, or all.") var service: String
    @Option(help: "Only this app (bundle id).") var app: String?
    @Option(help: "Only this user.") var user: String?

    func run() throws {
        let client = try connection.makeClient()
        let result = try connection.call(client, Endpoints.reset(service: service, app: app, user: user)).value
        if connection.json { return Output.json(result) }
        print("Reset \(result.count) authorization\(result.count == 1 ? "" : "s").")
    }
}
