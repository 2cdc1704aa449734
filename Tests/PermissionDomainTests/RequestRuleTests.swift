import Foundation
import PermissionDomain
import TestSupport
import Testing

/// SPEC §4 Request: the outcome list, in order.
@Suite struct RequestRuleTests {
    typealias F = Fixtures

    enum Expected: Sendable, Equatable {
        case noPrompt
        case prompt([Choice], purposeKey: String)
        case missing(String)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let stored: StoredAuthorization
        let level: Level
        let policies: [Policy]
        let app: App?
        let expected: Expected
        init(
            _ name: String, _ stored: StoredAuthorization, _ level: Level, policies: [Policy] = [], app: App? = F.registeredApp(),
            _ expected: Expected
        ) {
            self.name = name
            self.stored = stored
            self.level = level
            self.policies = policies
            self.app = app
            self.expected = expected
        }
        var testDescription: String { name }
    }

    static let whenInUseKey = "NSLocationWhenInUseUsageDescription"
    static let alwaysKey = "NSLocationAlwaysAndWhenInUseUsageDescription"

    static let rows: [Row] = [
        // 422 first, whatever the state.
        Row("unregistered app gets missing key", F.stored(.camera), .full, app: nil, .missing("NSCameraUsageDescription")),
        Row(
            "missing key even when authorized", F.stored(.camera, .authorized, .full, version: 1), .full,
            app: F.registeredApp(without: ["NSCameraUsageDescription"]), .missing("NSCameraUsageDescription")),
        Row(
            "missing key even when restricted", F.stored(.camera), .full, policies: [F.policy("p", .camera, .restrict)],
            app: F.registeredApp(without: ["NSCameraUsageDescription"]), .missing("NSCameraUsageDescription")),
        Row(
            "always needs the whenInUse key", F.stored(.location), .always, app: F.registeredApp(without: [whenInUseKey]),
            .missing(whenInUseKey)),
        Row(
            "always needs the always key", F.stored(.location), .always, app: F.registeredApp(without: [alwaysKey]),
            .missing(alwaysKey)),
        Row(
            "whenInUse does not need the always key", F.stored(.location), .whenInUse, app: F.registeredApp(without: [alwaysKey]),
            .prompt([.allowOnce, .allowWhileUsing, .deny], purposeKey: whenInUseKey)),
        // No prompt.
        Row("restricted", F.stored(.camera), .full, policies: [F.policy("p", .camera, .restrict)], .noPrompt),
        Row("denied", F.stored(.camera, .denied, reason: .userConsent, version: 1), .full, .noPrompt),
        Row("authorized at the level", F.stored(.camera, .authorized, .full, version: 1), .full, .noPrompt),
        Row("authorized above the level", F.stored(.photos, .authorized, .full, version: 1), .limited, .noPrompt),
        Row("pre-approved by policy", F.stored(.camera), .full, policies: [F.policy("p", .camera, .allow, .full)], .noPrompt),
        Row("whenInUse to always never prompts", F.stored(.location, .authorized, .whenInUse, version: 1), .always, .noPrompt),
        Row(
            "provisional always asking always", F.stored(.location, .authorized, .always, provisional: true, version: 1), .always,
            .noPrompt),
        Row("limited to full never prompts (photos)", F.stored(.photos, .authorized, .limited, version: 1), .full, .noPrompt),
        Row("limited to full never prompts (contacts)", F.stored(.contacts, .authorized, .limited, version: 1), .full, .noPrompt),
        Row(
            "writeOnly to full declined before", F.stored(.calendars, .authorized, .writeOnly, declined: [.full], version: 1),
            .full, .noPrompt),
        Row(
            "addOnly to full declined before", F.stored(.photos, .authorized, .addOnly, declined: [.limited, .full], version: 1),
            .full, .noPrompt),
        Row(
            "once grant still running",
            F.stored(.location, .authorized, .whenInUse, once: true, expiresAt: F.t0.addingTimeInterval(1), version: 1),
            .whenInUse, .noPrompt),
        // Prompts.
        Row(
            "notDetermined single level", F.stored(.camera), .full,
            .prompt([.allow, .deny], purposeKey: "NSCameraUsageDescription")),
        Row(
            "notDetermined location whenInUse", F.stored(.location), .whenInUse,
            .prompt([.allowOnce, .allowWhileUsing, .deny], purposeKey: whenInUseKey)),
        Row(
            "notDetermined location always shows the whenInUse string", F.stored(.location), .always,
            .prompt([.allowOnce, .allowWhileUsing, .deny], purposeKey: whenInUseKey)),
        Row(
            "notDetermined photos limited", F.stored(.photos), .limited,
            .prompt([.selectItems, .allowFull, .deny], purposeKey: "NSPhotoLibraryUsageDescription")),
        Row(
            "notDetermined photos full", F.stored(.photos), .full,
            .prompt([.selectItems, .allowFull, .deny], purposeKey: "NSPhotoLibraryUsageDescription")),
        Row(
            "notDetermined photos addOnly", F.stored(.photos), .addOnly,
            .prompt([.allow, .deny], purposeKey: "NSPhotoLibraryAddUsageDescription")),
        Row(
            "notDetermined contacts", F.stored(.contacts), .limited,
            .prompt([.selectItems, .allowFull, .deny], purposeKey: "NSContactsUsageDescription")),
        Row(
            "notDetermined calendars writeOnly", F.stored(.calendars), .writeOnly,
            .prompt([.allow, .deny], purposeKey: "NSCalendarsWriteOnlyAccessUsageDescription")),
        Row(
            "calendars writeOnly to full", F.stored(.calendars, .authorized, .writeOnly, version: 1), .full,
            .prompt([.allow, .deny], purposeKey: "NSCalendarsFullAccessUsageDescription")),
        Row(
            "photos addOnly to limited", F.stored(.photos, .authorized, .addOnly, version: 1), .limited,
            .prompt([.selectItems, .allowFull, .deny], purposeKey: "NSPhotoLibraryUsageDescription")),
        Row(
            "photos addOnly to full", F.stored(.photos, .authorized, .addOnly, version: 1), .full,
            .prompt([.selectItems, .allowFull, .deny], purposeKey: "NSPhotoLibraryUsageDescription")),
        Row(
            "reset record prompts again", F.stored(.camera, reason: .reset, version: 4), .full,
            .prompt([.allow, .deny], purposeKey: "NSCameraUsageDescription")),
        Row(
            "lapsed once grant prompts again",
            F.stored(.location, .authorized, .whenInUse, once: true, expiresAt: F.t0, version: 1), .whenInUse,
            .prompt([.allowOnce, .allowWhileUsing, .deny], purposeKey: whenInUseKey)),
        Row(
            "photos addOnly allow-policy to full prompts", F.stored(.photos), .full,
            policies: [F.policy("p", .photos, .allow, .addOnly)],
            .prompt([.selectItems, .allowFull, .deny], purposeKey: "NSPhotoLibraryUsageDescription")),
    ]

    @Test(arguments: rows)
    func requestOutcome(row: Row) throws {
        let service = F.service(row.stored.service)
        let effective = Rules.effective(stored: row.stored, service: service, policies: row.policies, settings: nil, now: F.t0)
        let result: Expected
        do {
            switch try Rules.request(
                level: row.level, service: service, app: row.app, stored: row.stored, effective: effective, pending: nil,
                now: F.t0)
            {
            case .noPrompt: result = .noPrompt
            case .existing:
                Issue.record("no prompt was pending")
                return
            case .prompt(let plan):
                #expect(plan.kind == .request && plan.requestedLevel == row.level)
                #expect(plan.purpose == F.allPurposeStrings[plan.purposeKey])
                result = .prompt(plan.options, purposeKey: plan.purposeKey)
            }
        } catch .missingPurposeString(let key) {
            result = .missing(key)
        }
        #expect(result == row.expected)
    }

    @Test func servicesOffAnswersDeniedWithoutPrompt() throws {
        let stored = F.stored(.location)
        let effective = Rules.effective(
            stored: stored, service: F.service(.location), policies: [],
            settings: UserSettings(user: F.user, locationServicesEnabled: false), now: F.t0)
        let plan = try Rules.request(
            level: .whenInUse, service: F.service(.location), app: F.registeredApp(), stored: stored, effective: effective,
            pending: nil, now: F.t0)
        #expect(plan == .noPrompt)
    }

    @Test func pendingPromptIsReturnedAsIs() throws {
        let pending = F.prompt(.camera, .full)
        let stored = F.stored(.camera)
        let plan = try Rules.request(
            level: .full, service: F.service(.camera), app: F.registeredApp(), stored: stored, effective: F.plain(stored),
            pending: pending, now: F.t0.addingTimeInterval(599))
        #expect(plan == .existing(pending))
    }

    @Test func expiredPendingPromptIsNotReused() throws {
        let pending = F.prompt(.camera, .full)
        let stored = F.stored(.camera)
        let plan = try Rules.request(
            level: .full, service: F.service(.camera), app: F.registeredApp(), stored: stored, effective: F.plain(stored),
            pending: pending, now: F.t0.addingTimeInterval(600))
        guard case .prompt = plan else {
            Issue.record("expected a new prompt, got \(plan)")
            return
        }
    }

    @Test func unknownLevelIsRefusedBeforeAnythingElse() {
        #expect(throws: PermissionError.unknownLevel(level: "always", service: .camera, allowed: [.full])) {
            try Rules.request(
                level: .always, service: F.service(.camera), app: nil, stored: F.stored(.camera),
                effective: F.plain(F.stored(.camera)), pending: nil, now: F.t0)
        }
    }

    @Test func upgradePromptOnlyForProvisionalAlways() throws {
        let location = F.service(.location)
        let provisional = F.plain(F.stored(.location, .authorized, .always, provisional: true, reason: .userConsent, version: 1))
        let plan = try #require(try Rules.upgradePrompt(service: location, app: F.registeredApp(), effective: provisional))
        #expect(plan.kind == .upgrade && plan.options == [.keepWhileUsing, .changeToAlways])
        #expect(plan.purposeKey == Self.alwaysKey && plan.requestedLevel == .always)
        for stored in [
            F.stored(.location, .authorized, .always, version: 1), F.stored(.location, .authorized, .whenInUse, version: 1),
            F.stored(.location), F.stored(.location, .denied, version: 1),
        ] {
            #expect(try Rules.upgradePrompt(service: location, app: F.registeredApp(), effective: F.plain(stored)) == nil)
        }
        #expect(throws: PermissionError.missingPurposeString(key: Self.alwaysKey)) {
            try Rules.upgradePrompt(service: location, app: F.registeredApp(without: [Self.alwaysKey]), effective: provisional)
        }
    }
}
