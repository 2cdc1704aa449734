import Foundation
import PermissionDomain
import TestSupport

/// A PermissionService over a fresh store of one kind and a ManualClock, with an app registered.
struct Harness {
    let fixture: StoreUnderTest
    let clock = ManualClock(Fixtures.t0)
    let service: PermissionService
    let consent = Actor(keyId: "k-consent", role: "consent")
    let user = Fixtures.user
    let app = Fixtures.app

    init(
        _ kind: StoreKind, promptTTL: TimeInterval = 600, onceTTL: TimeInterval = 3600,
        maxGrantDuration: TimeInterval = 31_536_000, maxPendingPrompts: Int = 3, maxExportRecords: Int = 5_000,
        exportPageSize: Int = 500,
        registered: App? = Fixtures.registeredApp(), locationAlerts: LocationAlertSettings = LocationAlertSettings(),
        makePromptID: @escaping @Sendable (Date) -> PromptID = PermissionService.Configuration.randomPromptID
    ) throws {
        fixture = try kind.open()
        var configuration = PermissionService.Configuration(
            promptTTL: promptTTL, onceTTL: onceTTL, makePromptID: makePromptID, maxGrantDuration: maxGrantDuration,
            maxPendingPrompts: maxPendingPrompts, locationAlerts: locationAlerts)
        configuration.maxExportRecords = maxExportRecords
        configuration.exportPageSize = exportPageSize
        service = PermissionService(store: fixture.store, clock: clock, configuration: configuration)
        if let registered {
            _ = try service.putApp(
                id: registered.id, name: registered.name, purposeStrings: registered.purposeStrings, actor: .anonymous,
                requestId: "setup")
        }
    }

    /// Requests `level` and expects a prompt.
    func prompt(_ serviceID: ServiceID, _ level: Level, user: UserID = Fixtures.user) throws -> Prompt {
        let outcome = try service.request(
            user: user, app: app, service: serviceID, level: level, actor: .anonymous, requestId: "r")
        guard let prompt = outcome.prompt else { throw HarnessError.expectedPrompt(outcome) }
        return prompt
    }

    /// Requests `level` and answers the prompt with `choice`.
    @discardableResult
    func grant(_ serviceID: ServiceID, _ level: Level, _ choice: Choice, user: UserID = Fixtures.user) throws -> Authorization {
        let prompt = try prompt(serviceID, level, user: user)
        return try service.decide(promptID: prompt.id, choice: choice.rawValue, actor: consent, requestId: "d").authorization
    }

    func current(_ serviceID: ServiceID, user: UserID = Fixtures.user) throws -> Authorization {
        try service.authorization(user: user, app: app, service: serviceID)
    }

    func auditLog() throws -> [AuditEntry] { try service.audit(query: AuditQuery(limit: 10_000)) }
}

enum HarnessError: Error {
    case expectedPrompt(RequestOutcome)
}
