/// How a batch of access evaluations runs (AuthZEN Authorization API 1.0, "Evaluations
/// semantics"): every item, or in order until the first deny (`&&`) or the first permit (`||`),
/// the deciding item being the last one answered.
public enum EvaluationSemantic: String, Sendable, CaseIterable, Hashable {
    case executeAll = "execute_all"
    case denyOnFirstDeny = "deny_on_first_deny"
    case permitOnFirstPermit = "permit_on_first_permit"

    /// Whether an item with `decision` ends the batch.
    public func stops(after decision: Bool) -> Bool {
        switch self {
        case .executeAll: false
        case .denyOnFirstDeny: !decision
        case .permitOnFirstPermit: decision
        }
    }
}
