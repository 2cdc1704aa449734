/// The preconditions `If-Match: *` and `If-None-Match: *` (RFC 9110 §13.1.1, §13.1.2) on a
/// resource that has no entity-tags of its own (a policy, an app, a custom service): whether it
/// must exist already (an update only) or must not (a creation only). Checked by the service
/// inside the write, so that of two concurrent creations only one passes. The API parses the
/// header fields.
public struct ExistenceCondition: Hashable, Sendable {
    /// `If-Match: *`: there must be a current representation.
    public var mustExist: Bool
    /// `If-None-Match: *`: there must be none.
    public var mustNotExist: Bool

    public init(mustExist: Bool = false, mustNotExist: Bool = false) {
        self.mustExist = mustExist
        self.mustNotExist = mustNotExist
    }

    /// Throws ``PermissionError/existenceConditionFailed(what:exists:)`` unless `exists` is as
    /// the condition requires; `what` names the resource (`policy p1`).
    public func check(exists: Bool, what: String) throws(PermissionError) {
        if mustExist, !exists { throw .existenceConditionFailed(what: what, exists: false) }
        if mustNotExist, exists { throw .existenceConditionFailed(what: what, exists: true) }
    }
}
