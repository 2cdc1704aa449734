/// An audit entry as the change log reads it: what a replica needs to know to forget what it
/// keeps in memory about the change, nothing more.
package struct ChangeLogEntry: Sendable, Equatable {
    package let seq: Int64
    package let action: AuditAction
    package let user: UserID?
    package let app: AppID?
    package let service: ServiceID?

    package init(seq: Int64, action: AuditAction, user: UserID?, app: AppID?, service: ServiceID?) {
        self.seq = seq
        self.action = action
        self.user = user
        self.app = app
        self.service = service
    }
}
