import ArgumentParser
import PermissionClient
import PermissionWire

/// `permctl evaluate --app APP --user USER --action ACTION [--action ...] [--semantic S]`:
/// the AuthZEN evaluation endpoints (SPEC §11).
struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Ask for an AuthZEN decision: may the app use the service of the user now?",
        discussion: """
            ACTION is a service (camera: any level) or a service and the least level it needs \
            (location.always). One --action asks POST /access/v1/evaluation; several ask \
            POST /access/v1/evaluations, answered in order under --semantic. A denial is an \
            answer (exit 0), not an error.
            Examples:
              permctl evaluate --app com.example.maps --user u42 --action camera
              permctl evaluate --app com.example.maps --user u42 --action camera --action location.always \\
                --semantic deny_on_first_deny
            """)

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "The app's bundle id (the subject).") var app: String
    @Option(help: "The user id (the resource).") var user: String
    @Option(help: "service or service.level, e.g. camera or location.always; repeat for several.")
    var action: [String]
    @Option(help: "With several actions: execute_all (default), deny_on_first_deny or permit_on_first_permit.")
    var semantic: String?

    func validate() throws {
        guard !action.isEmpty else { throw ValidationError("give at least one --action") }
        guard action.count <= 100 else { throw ValidationError("at most 100 --action") }
        if semantic != nil, action.count == 1 { throw ValidationError("--semantic goes with several --action") }
    }

    func run() throws {
        let client = try connection.makeClient()
        if action.count == 1 {
            let answer = try connection.call(client, Endpoints.evaluate(app: app, user: user, action: action[0])).value
            if connection.json { return Output.json(answer) }
            Output.table(["ACTION", "DECISION", "STATUS", "REASON", "PROMPT"], [Self.row(action[0], answer)])
            return
        }
        let request = AccessEvaluationsRequest(
            subject: .app(app), resource: .user(user),
            evaluations: action.map { AccessEvaluationItem(action: AccessAction(name: $0)) },
            options: semantic.map { AccessEvaluationsOptions(evaluationsSemantic: $0) })
        let answers = try connection.call(client, Endpoints.evaluate(request)).value
        if connection.json { return Output.json(answers) }
        // A short-circuiting semantic stops at the deciding answer: the actions after it were
        // not evaluated, and say so rather than vanish from the table.
        let skipped = action.dropFirst(answers.evaluations.count).map {
            [$0, "-", "not evaluated (\(semantic ?? "execute_all") stopped before it)", "-", "-"]
        }
        Output.table(
            ["ACTION", "DECISION", "STATUS", "REASON", "PROMPT"],
            zip(action, answers.evaluations).map { Self.row($0, $1) } + skipped)
    }

    /// `camera  permit  authorized (full)  userConsent  no`.
    private static func row(_ action: String, _ answer: AccessEvaluationResponse) -> [String] {
        let context = answer.context
        let status = context.map { context in context.level.map { "\(context.status) (\($0))" } ?? context.status } ?? "-"
        return [
            action, answer.decision ? "permit" : "deny", status, context?.reason ?? "-",
            context?.promptRequired == true ? "required" : "no",
        ]
    }
}
