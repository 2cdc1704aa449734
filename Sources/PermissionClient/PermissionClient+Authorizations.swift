public import Foundation
public import PermissionWire

/// The user-side operations as typed async calls (each is `send(Endpoints.x(...)).value`).
extension PermissionClient {
    /// The hot-path check: may `app` use `service` for `user` right now?
    /// - Returns: the effective status, with the level when authorized.
    public func status(user: String, app: String, service: String) async throws(PermissionClientError) -> AccessStatus {
        try await send(Endpoints.status(user: user, app: app, service: service)).value
    }

    /// The effective authorization (`GET .../authorizations/{service}`).
    public func authorization(user: String, app: String, service: String) async throws(PermissionClientError) -> Authorization {
        try await send(Endpoints.authorization(user: user, app: app, service: service)).value
    }

    /// An app asks for access at `level`; `prompt` is set when the user must decide (202).
    public func requestAccess(
        user: String, app: String, service: String, level: String
    ) async throws(PermissionClientError)
        -> RequestOutcome
    {
        try await send(Endpoints.requestAccess(user: user, app: app, service: service, level: level)).value
    }

    /// The user pressed the app's location button: `granted` (Allow Once without a prompt, once
    /// the user confirmed the button), `unchanged` (`why`: already authorized, denied,
    /// restricted, Location Services off) or `prompted` (the button's prompt, `allowOnce` or
    /// `deny`, on its first press). A 429 `too-many-prompts` names the app's pending prompts.
    public func pressLocationButton(
        user: String, app: String
    ) async throws(PermissionClientError)
        -> LocationButtonResult
    {
        try await send(Endpoints.pressLocationButton(user: user, app: app)).value
    }

    /// Changes an authorization in settings (`SettingsChange.until`: an expiring grant);
    /// `ifMatch` makes it conditional (412 when stale).
    public func setAuthorization(
        user: String, app: String, service: String, _ change: SettingsChange,
        ifMatch: String? = nil
    ) async throws(PermissionClientError) -> Authorization {
        try await send(Endpoints.setAuthorization(user: user, app: app, service: service, change, ifMatch: ifMatch)).value
    }

    /// Revokes access (`denied`, `userSet`).
    public func revoke(
        user: String, app: String, service: String, ifMatch: String? = nil
    ) async throws(PermissionClientError)
        -> Authorization
    {
        try await send(Endpoints.revoke(user: user, app: app, service: service, ifMatch: ifMatch)).value
    }

    /// A page of a user's authorizations across apps.
    public func authorizations(
        user: String, status: Authorization.Status? = nil, service: String? = nil,
        after: String? = nil, limit: Int? = nil
    ) async throws(PermissionClientError) -> AuthorizationList {
        try await send(Endpoints.authorizations(user: user, status: status, service: service, after: after, limit: limit)).value
    }

    /// A page of every user's authorization of one app for one service.
    public func authorizations(
        app: String, service: String, status: Authorization.Status? = nil,
        after: String? = nil, limit: Int? = nil
    ) async throws(PermissionClientError) -> AuthorizationList {
        try await send(Endpoints.authorizations(app: app, service: service, status: status, after: after, limit: limit)).value
    }

    /// A page of a user's prompts, oldest first.
    public func prompts(
        user: String, state: Prompt.State? = nil, after: String? = nil,
        limit: Int? = nil
    ) async throws(PermissionClientError) -> PromptList {
        try await send(Endpoints.prompts(user: user, state: state, after: after, limit: limit)).value
    }

    /// One prompt.
    public func prompt(id: String) async throws(PermissionClientError) -> Prompt {
        try await send(Endpoints.prompt(id: id)).value
    }

    /// Answers a pending prompt with one of its `options`; `until` makes a grant end then (an
    /// expiring grant: from then it reads `notDetermined`, `expired`).
    public func decide(
        prompt id: String, choice: String, until: Date? = nil
    ) async throws(PermissionClientError)
        -> DecisionResult
    {
        try await send(Endpoints.decide(prompt: id, choice: choice, until: until)).value
    }

    /// Reports an app lifecycle event. For `backgroundLocationUsed`, `usedAt` is when the
    /// background use happened (within the past 3 days; nil: now), and the result's
    /// `usageRecorded` says whether the use was kept for location alerts (the app holds Always
    /// location access); a `usedAt` outside the window is a 422 problem naming `usedAt`.
    public func lifecycle(
        user: String, app: String, event: LifecycleEvent.Event, usedAt: Date? = nil
    ) async throws(PermissionClientError)
        -> LifecycleResult
    {
        try await send(Endpoints.lifecycle(user: user, app: app, event: event, usedAt: usedAt)).value
    }

    /// The user's device-wide settings.
    public func settings(user: String) async throws(PermissionClientError) -> UserSettings {
        try await send(Endpoints.settings(user: user)).value
    }

    /// Turns the user's Location Services on or off.
    public func setSettings(user: String, _ settings: UserSettings) async throws(PermissionClientError) -> UserSettings {
        try await send(Endpoints.setSettings(user: user, settings)).value
    }
}
