/// A parsed `If-Match` precondition (RFC 9110 §13.1.1), applied by the service inside the
/// write so that the check and the change are atomic. The API parses the header field.
public enum ETagCondition: Hashable, Sendable {
    /// `If-Match: *`: any current representation (every well-formed authorization has one).
    case any
    /// A list of entity-tags, each with its double quotes; weak tags never match (strong comparison).
    case tags([String])

    /// Whether the current entity-tag `etag` satisfies the condition.
    public func isSatisfied(by etag: String) -> Bool {
        switch self {
        case .any: true
        case .tags(let tags): tags.contains { !$0.hasPrefix("W/") && $0 == etag }
        }
    }

    /// As an `If-None-Match` list (RFC 9110 §13.1.2, weak comparison): whether it names the
    /// current entity-tag `etag` (`*` names any), so that a change is refused (412).
    public func matchesWeakly(_ etag: String) -> Bool {
        switch self {
        case .any: true
        case .tags(let tags): tags.contains { ($0.hasPrefix("W/") ? String($0.dropFirst(2)) : $0) == etag }
        }
    }
}
