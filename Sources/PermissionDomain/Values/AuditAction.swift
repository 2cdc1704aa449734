/// What an audit entry records. An open set of names (`area.verb`, or `area.thing.verb` for
/// consent sessions), so later features (keys) can add their own.
public struct AuditAction: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// A prompt was issued (by a request, or the system's upgrade prompt).
    public static let promptCreated = AuditAction("prompt.created")
    /// A prompt was answered; `from`/`to` hold the authorization change it made.
    public static let promptAnswered = AuditAction("prompt.answered")
    /// A prompt was not answered within the prompt TTL (actor `system`).
    public static let promptExpired = AuditAction("prompt.expired")
    /// A prompt was cancelled because the authorization was changed another way.
    public static let promptCancelled = AuditAction("prompt.cancelled")
    /// The user changed the authorization in settings.
    public static let authorizationSet = AuditAction("authorization.set")
    /// The user revoked the authorization.
    public static let authorizationRevoked = AuditAction("authorization.revoked")
    /// An Allow Once grant ended: `sessionEnded`, or lapsed after the once TTL (actor `system`).
    public static let authorizationExpired = AuditAction("authorization.expired")
    /// A press of the app's confirmed location button granted Allow Once without a prompt
    /// (SPEC §11); it lapses like any Allow Once grant.
    public static let locationButtonGranted = AuditAction("locationButton.granted")
    /// The app was reinstalled: location back to notDetermined.
    public static let authorizationReinstalled = AuditAction("authorization.reinstalled")
    /// An operator's reset.
    public static let authorizationReset = AuditAction("authorization.reset")
    /// A grant given under a purpose string the app has since changed, returned to
    /// notDetermined (`purposeChanged`) by the app's registration with `reconsent` (SPEC §11).
    public static let authorizationReconsent = AuditAction("authorization.reconsent")
    public static let policyPut = AuditAction("policy.put")
    public static let policyDeleted = AuditAction("policy.deleted")
    public static let appPut = AuditAction("app.put")
    public static let servicePut = AuditAction("service.put")
    /// The user's Location Services switch changed.
    public static let settingsChanged = AuditAction("settings.changed")
    /// An API key was issued; `detail` has `key`, `role`, `name` (and `app`), never the secret.
    public static let keyCreated = AuditAction("key.created")
    /// An API key was revoked; `detail` has `key` and `role`.
    public static let keyRevoked = AuditAction("key.revoked")
    /// A consent link was made for `user`; `detail` has `session` and `expiresAt`, never the token.
    public static let consentSessionCreated = AuditAction("consent.session.created")
    /// A consent session's end was moved later by its user ("Stay Signed In"); `detail` has
    /// `session` and the new `expiresAt`.
    public static let consentSessionExtended = AuditAction("consent.session.extended")
    /// A consent session was ended (by an operator, or by the user's logout); `detail` has `session`.
    public static let consentSessionEnded = AuditAction("consent.session.ended")
    /// A user's data was erased (GDPR Art. 17): their records, prompts, settings, policies,
    /// consent sessions and location alert schedules deleted and their audit key destroyed.
    /// Names no user: `detail` has the `pseudonym` their entries keep and what was deleted.
    public static let userErased = AuditAction("user.erased")
    /// The log written before personal fields were sealed was resealed and rehashed (actor
    /// `system`, by a migration); `detail` has the old format's `previousHead` and `previousSeq`,
    /// so the old chain's head stays provable in the new one.
    public static let auditResealed = AuditAction("audit.resealed")
    /// The audit server key was replaced (actor `system`, by `permission-server audit rotate-key`):
    /// every user's audit key was wrapped again under the new one, the entries left as they
    /// were; `detail` has `subjects`, the number of users' keys wrapped again.
    public static let auditKeyRotated = AuditAction("audit.key.rotated")
}
