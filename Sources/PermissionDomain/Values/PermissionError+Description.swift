/// A sentence for operators: what a subcommand prints and the server logs when it refuses a
/// setting or an argument (`refusing to start: PERMISSION_BOOTSTRAP_ADMIN_KEY must be ...`),
/// rather than the enum's case dump. The API never shows it: it maps each case to its own
/// problem+json detail at the edge.
extension PermissionError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .invalidArgument(let field, let why), .invalidCombination(let field, let why):
            "\(field): \(why)"
        case .notFound(let what):
            "\(what) does not exist"
        case .unknownService(let service):
            "\(service.rawValue) is not a known service"
        case .unknownLevel(let level, let service, let allowed):
            "\(service.rawValue) has no level \(level) (it has: \(allowed.map(\.rawValue).joined(separator: ", ")))"
        case .missingPurposeString(let key):
            "the app declares no purpose string \(key)"
        case .restrictedByPolicy:
            "the authorization is restricted by a policy"
        case .grantedByPolicy:
            "the authorization is granted by an allow policy"
        case .conflict(let why):
            why
        case .levelInUse(let service, let level, let authorizations, let pendingPrompts, let policies):
            "\(service.rawValue) would drop level \(level.rawValue), which \(authorizations) authorizations hold, "
                + "\(pendingPrompts) pending prompts ask for and \(policies) allow policies grant"
        case .preconditionFailed(let current):
            "the entity-tag is stale (current: \(current))"
        case .existenceConditionFailed(let what, let exists):
            exists ? "\(what) exists (If-None-Match: *)" : "there is no \(what) (If-Match: *)"
        case .promptNotPending(let state):
            "the prompt is \(state.rawValue), not pending"
        case .tooManyPrompts(let limit, let pending, _):
            "the app already has \(pending.count) pending prompts for the user (at most \(limit)): "
                + pending.map { "\($0.id.rawValue) (\($0.service.rawValue))" }.joined(separator: ", ")
        case .unavailable(let why, let cause):
            "temporarily unavailable: \(why)" + (cause.map { " (\($0))" } ?? "")
        case .invalidChoice(let choice, let allowed):
            "\(choice) is not one of the prompt's choices (\(allowed.map(\.rawValue).joined(separator: ", ")))"
        }
    }
}
