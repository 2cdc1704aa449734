/// An audit entry as the change log reads it: what a replica needs to know to forget what it
/// keeps in memory about the change, nothing more.
package struct ChangeLogEntry: Sendable, Equatable {
    package let seq: Int64
    package let action: AuditAction
    package let user: UserID?
    package let app: AppID?
    package let service: ServiceID?
    /// The entry named a user who has been erased since (the log keeps a pseudonym whose key is
    /// gone): what it changed in memory can no longer be told, and `user` is nil.
    package let userErased: Bool

    package init(
        seq: Int64, action: AuditAction, user: UserID?, app: AppID?, service: ServiceID?, userErased: Bool = false
    ) {
        precondition(!userErased || user == nil, "an erased user is named by no key")
        self.seq = seq
        self.action = action
        self.user = user
        self.app = app
        self.service = service
        self.userErased = userErased
    }
}
