package import Foundation
package import PermissionDomain

extension AuditEntry {
    /// An authorization change entry of `user`'s `app` and `service`.
    package static func change(
        _ user: UserID, _ app: AppID, _ service: ServiceID, at: Date = epoch, action: AuditAction = .authorizationSet
    ) -> AuditEntry {
        AuditEntry(
            at: at, actor: Actor(keyId: "k1", role: "consent"), action: action, user: user, app: app, service: service,
            from: AuthorizationSnapshot(status: .notDetermined), to: AuthorizationSnapshot(status: .denied),
            reason: .userSet, requestId: "req-1")
    }

    /// A decision entry with every kind of field: text, NULL, booleans, detail. The audit chain
    /// tests hash it (the domain's rule, and the SQLite store's records against values computed
    /// independently).
    package static let everyKindOfField = AuditEntry(
        at: Date(millisecondsSince1970: 1_700_000_000_000), actor: Actor(keyId: "consent-1", role: "consent"),
        action: .promptAnswered, user: UserID(trusted: "u1"), app: AppID(trusted: "com.example.scanner"),
        service: .camera, from: AuthorizationSnapshot(status: .notDetermined),
        to: AuthorizationSnapshot(status: .authorized, level: Level(trusted: "full"), once: true), reason: .userConsent,
        purpose: PurposeString(trusted: "Scan documents."), promptId: PromptID(trusted: "p-1"), requestId: "r-1",
        detail: ["kind": "camera", "choice": "allow"])
}
