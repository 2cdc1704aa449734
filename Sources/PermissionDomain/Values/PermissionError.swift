/// What the domain refuses, without HTTP: the API maps each case to a status and a
/// problem type once, at the edge (STYLE convention 8).
public enum PermissionError: Error, Hashable, Sendable {
    /// Malformed input: an id, a purpose string, a body field.
    case invalidArgument(field: String, why: String)
    /// Well-formed fields whose combination breaks a rule (a level with a status other than
    /// authorized, an allow policy without a level): unprocessable, RFC 9110 §15.5.21.
    case invalidCombination(field: String, why: String)
    /// No such app, policy, prompt, ...; `what` names it, e.g. `policy p1`.
    case notFound(what: String)
    /// A service id not in the catalogue (built in or custom).
    case unknownService(ServiceID)
    /// A level the service lacks.
    case unknownLevel(level: String, service: ServiceID, allowed: [Level])
    /// The app has no purpose string for a key the requested level needs (ITMS-90683).
    case missingPurposeString(key: String)
    /// A policy restricts the authorization, so the user cannot change it (SPEC §4 Settings).
    case restrictedByPolicy
    /// An allow policy grants the authorization (a pre-approval): it is managed, so neither
    /// settings nor a revocation change it, as a restricted one (the consent pages show both
    /// disabled, as iOS shows a managed privacy setting).
    case grantedByPolicy
    /// The change contradicts the current state (a built-in service, an id that exists).
    case conflict(why: String)
    /// A redefinition of a custom service would drop `level`, which stored authorizations
    /// still hold, pending prompts still ask for or allow policies grant (how many of each):
    /// they would be left at a level the service no longer has.
    case levelInUse(service: ServiceID, level: Level, authorizations: Int, pendingPrompts: Int, policies: Int)
    /// The `If-Match` entity-tag is stale, or `If-None-Match` names the current one.
    case preconditionFailed(current: String)
    /// `If-Match: *` on a resource that does not exist, or `If-None-Match: *` on one that does
    /// (``ExistenceCondition``); `what` names it.
    case existenceConditionFailed(what: String, exists: Bool)
    /// A decision on a prompt that is no longer pending.
    case promptNotPending(PromptState)
    /// A choice the prompt does not offer.
    case invalidChoice(choice: String, allowed: [Choice])
    /// The app already has the most pending prompts for the user it may have
    /// (`Configuration.maxPendingPrompts`, SPEC §11 prompt hygiene); `pending` are those prompts,
    /// oldest first; `retryAfter`, the whole seconds until the first of them expires (at least
    /// 1), when there is room again unless the user answers sooner.
    case tooManyPrompts(limit: Int, pending: [Prompt], retryAfter: Int)
    /// The store cannot serve now but may soon: every database connection is busy, or another
    /// process holds a lock, for longer than the store waits, or the database cannot be reached.
    /// Worth retrying, but for ``commitOutcomeUnknown``. `why` is said to the client; `cause` (a
    /// database driver's own message, which may name the database's host and port) goes to the
    /// server's log only.
    case unavailable(why: String, cause: String? = nil)

    /// The `why` of an ``unavailable(why:cause:)`` write whose commit was sent and not answered
    /// (the connection was lost, or given up at its answer timeout): it may have been made, so
    /// it is not to be repeated blindly.
    public static let commitOutcomeUnknown =
        "the database connection was lost during the commit, so whether the change was made is unknown: read the state before sending it again"

    /// The `why` of an ``unavailable(why:cause:)`` re-consent (`PUT /v1/apps/{app}` with
    /// `reconsent`) that stopped after the app's registration, and maybe some of its grants'
    /// batches, were saved: something was done, so it is not the plain "nothing changed, retry".
    public static let reconsentUnfinished =
        "the app was saved, but returning its grants to notDetermined stopped part of the way: send the registration again (without If-Match) to finish"

    /// Whether an ``unavailable(why:cause:)`` with this `why` says that something may have been
    /// done (answered without `Retry-After`).
    public static func mayHaveChanged(_ why: String) -> Bool {
        why == commitOutcomeUnknown || why == reconsentUnfinished
    }
}
