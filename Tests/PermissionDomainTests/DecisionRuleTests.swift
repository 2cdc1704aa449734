import Foundation
import PermissionDomain
import TestSupport
import Testing

/// SPEC §4 prompt table: every option of every prompt, and what each choice results in.
@Suite struct DecisionRuleTests {
    typealias F = Fixtures
    static let onceTTL: TimeInterval = 3600

    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let service: ServiceID
        let level: Level
        let kind: PromptKind
        let held: StoredAuthorization
        let choice: Choice
        let status: AuthorizationStatus
        let resultLevel: Level?
        let provisional: Bool
        let once: Bool
        let declined: [Level]
        var testDescription: String { name }
    }

    static func row(
        _ name: String, _ service: ServiceID, _ level: Level, kind: PromptKind = .request, held: StoredAuthorization? = nil,
        _ choice: Choice, _ status: AuthorizationStatus, _ resultLevel: Level?, provisional: Bool = false,
        once: Bool = false, declined: [Level] = []
    ) -> Row {
        Row(
            name: name, service: service, level: level, kind: kind, held: held ?? F.stored(service), choice: choice,
            status: status, resultLevel: resultLevel, provisional: provisional, once: once, declined: declined)
    }

    static let provisionalAlways = F.stored(.location, .authorized, .always, provisional: true, reason: .userConsent, version: 2)
    static let writeOnly = F.stored(.calendars, .authorized, .writeOnly, reason: .userConsent, version: 1)
    static let addOnly = F.stored(.photos, .authorized, .addOnly, reason: .userConsent, version: 1)

    static let rows: [Row] = [
        row("single level allow", .camera, .full, .allow, .authorized, .full),
        row("single level deny", .camera, .full, .deny, .denied, nil, declined: [.full]),
        row("whenInUse allowOnce", .location, .whenInUse, .allowOnce, .authorized, .whenInUse, once: true),
        row("whenInUse allowWhileUsing", .location, .whenInUse, .allowWhileUsing, .authorized, .whenInUse),
        row("whenInUse deny", .location, .whenInUse, .deny, .denied, nil, declined: [.whenInUse]),
        row("always allowOnce", .location, .always, .allowOnce, .authorized, .whenInUse, once: true),
        row(
            "always allowWhileUsing is provisional always", .location, .always, .allowWhileUsing, .authorized, .always,
            provisional: true),
        row("always deny", .location, .always, .deny, .denied, nil, declined: [.always, .whenInUse]),
        row(
            "upgrade keepWhileUsing", .location, .always, kind: .upgrade, held: provisionalAlways, .keepWhileUsing, .authorized,
            .whenInUse, declined: [.always]),
        row(
            "upgrade changeToAlways", .location, .always, kind: .upgrade, held: provisionalAlways, .changeToAlways, .authorized,
            .always),
        row("photos limited selectItems", .photos, .limited, .selectItems, .authorized, .limited),
        row("photos limited allowFull", .photos, .limited, .allowFull, .authorized, .full),
        row("photos limited deny", .photos, .limited, .deny, .denied, nil, declined: [.full, .limited]),
        row("photos full selectItems", .photos, .full, .selectItems, .authorized, .limited),
        row("photos full allowFull", .photos, .full, .allowFull, .authorized, .full),
        row("photos full deny", .photos, .full, .deny, .denied, nil, declined: [.full, .limited]),
        row("photos addOnly allow", .photos, .addOnly, .allow, .authorized, .addOnly),
        row("contacts selectItems", .contacts, .full, .selectItems, .authorized, .limited),
        row("contacts allowFull", .contacts, .limited, .allowFull, .authorized, .full),
        row("contacts deny", .contacts, .full, .deny, .denied, nil, declined: [.full, .limited]),
        row("calendars writeOnly allow", .calendars, .writeOnly, .allow, .authorized, .writeOnly),
        row("calendars writeOnly to full allow", .calendars, .full, held: writeOnly, .allow, .authorized, .full),
        row(
            "calendars writeOnly to full deny keeps writeOnly", .calendars, .full, held: writeOnly, .deny, .authorized,
            .writeOnly, declined: [.full]),
        row("photos addOnly to full selectItems", .photos, .full, held: addOnly, .selectItems, .authorized, .limited),
        row("photos addOnly to limited allowFull", .photos, .limited, held: addOnly, .allowFull, .authorized, .full),
        row(
            "photos addOnly to full deny keeps addOnly", .photos, .full, held: addOnly, .deny, .authorized, .addOnly,
            declined: [.full, .limited]),
    ]

    @Test(arguments: rows)
    func choiceResult(row: Row) throws {
        let prompt = F.prompt(row.service, row.level, kind: row.kind)
        let now = F.t0.addingTimeInterval(30)
        let next = try Rules.decide(
            prompt: prompt, choice: row.choice, stored: row.held, service: F.service(row.service), now: now,
            onceTTL: Self.onceTTL)
        #expect(next.status == row.status)
        #expect(next.level == row.resultLevel)
        #expect(next.provisional == row.provisional)
        #expect(next.once == row.once)
        #expect(next.expiresAt == (row.once ? now.addingTimeInterval(Self.onceTTL) : row.held.expiresAt))
        #expect(next.declinedLevels == row.declined)
        if row.choice == .deny && row.held.status == .authorized {
            #expect(
                next.reason == row.held.reason && next.purpose == row.held.purpose, "a kept grant keeps its reason and purpose")
        } else {
            #expect(next.reason == .userConsent)
            #expect(next.purpose == prompt.purpose, "the purpose shown is kept")
        }
        #expect(next.version == row.held.version, "the service bumps the version, not the rule")
    }

    struct OptionRow: Sendable, CustomTestStringConvertible {
        let service: ServiceID
        let level: Level
        let kind: PromptKind
        let options: [Choice]
        var testDescription: String { "\(service) \(level) \(kind)" }
    }

    static let optionRows: [OptionRow] = [
        OptionRow(service: .camera, level: .full, kind: .request, options: [.allow, .deny]),
        OptionRow(service: .tracking, level: .full, kind: .request, options: [.allow, .deny]),
        OptionRow(service: .location, level: .whenInUse, kind: .request, options: [.allowOnce, .allowWhileUsing, .deny]),
        OptionRow(service: .location, level: .always, kind: .request, options: [.allowOnce, .allowWhileUsing, .deny]),
        OptionRow(service: .location, level: .always, kind: .upgrade, options: [.keepWhileUsing, .changeToAlways]),
        OptionRow(service: .photos, level: .limited, kind: .request, options: [.selectItems, .allowFull, .deny]),
        OptionRow(service: .photos, level: .full, kind: .request, options: [.selectItems, .allowFull, .deny]),
        OptionRow(service: .photos, level: .addOnly, kind: .request, options: [.allow, .deny]),
        OptionRow(service: .contacts, level: .limited, kind: .request, options: [.selectItems, .allowFull, .deny]),
        OptionRow(service: .contacts, level: .full, kind: .request, options: [.selectItems, .allowFull, .deny]),
        OptionRow(service: .calendars, level: .writeOnly, kind: .request, options: [.allow, .deny]),
        OptionRow(service: .calendars, level: .full, kind: .request, options: [.allow, .deny]),
    ]

    @Test(arguments: optionRows)
    func promptOptions(row: OptionRow) {
        #expect(Rules.options(kind: row.kind, level: row.level, service: F.service(row.service)) == row.options)
    }

    @Test func aChoiceThePromptDoesNotOfferIsRefused() {
        let prompt = F.prompt(.camera, .full)
        #expect(throws: PermissionError.invalidChoice(choice: "allowOnce", allowed: [.allow, .deny])) {
            try Rules.decide(
                prompt: prompt, choice: .allowOnce, stored: F.stored(.camera), service: F.service(.camera), now: F.t0, onceTTL: 1)
        }
    }

    @Test func anExpiredOrAnsweredPromptIsRefused() {
        let prompt = F.prompt(.camera, .full)
        #expect(throws: PermissionError.promptNotPending(.expired)) {
            try Rules.decide(
                prompt: prompt, choice: .allow, stored: F.stored(.camera), service: F.service(.camera), now: prompt.expiresAt,
                onceTTL: 1)
        }
        var answered = prompt
        answered.state = .answered
        #expect(throws: PermissionError.promptNotPending(.answered)) {
            try Rules.decide(
                prompt: answered, choice: .allow, stored: F.stored(.camera), service: F.service(.camera), now: F.t0, onceTTL: 1)
        }
    }

    @Test func denyAfterALapsedOnceGrantDenies() throws {
        let lapsed = F.stored(.location, .authorized, .whenInUse, once: true, expiresAt: F.t0, reason: .userConsent, version: 1)
        let next = try Rules.decide(
            prompt: F.prompt(.location, .whenInUse), choice: .deny, stored: lapsed, service: F.service(.location),
            now: F.t0.addingTimeInterval(1), onceTTL: 1)
        #expect(next.status == .denied && !next.once && next.expiresAt == nil)
    }
}
