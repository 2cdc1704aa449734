import Foundation
import PermissionDomain
import TestSupport
import Testing

/// PermissionService: settings, revoke, reinstall, reset, policies, the Location Services
/// switch, custom services and listings (SPEC §4), on both stores.
@Suite struct ServiceChangeTests {
    @Test(arguments: StoreKind.allCases) func settingsCancelsThePendingPromptAndChecksIfMatch(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        let prompt = try h.prompt(.contacts, .full)
        let before = try h.current(.contacts)
        #expect(throws: PermissionError.preconditionFailed(current: before.etag)) {
            try h.service.setAuthorization(
                user: h.user, app: h.app, service: .contacts, status: .denied, level: nil,
                ifMatch: .tags(["\"0-0000000000000000\""]), actor: h.consent, requestId: nil)
        }
        let set = try h.service.setAuthorization(
            user: h.user, app: h.app, service: .contacts, status: .authorized, level: .limited,
            ifMatch: .tags([before.etag]), actor: h.consent, requestId: "s1")
        #expect(set.status == .authorized && set.level == .limited && set.reason == .userSet && set.purpose == nil)
        #expect(try h.service.prompt(id: prompt.id).state == .cancelled)
        #expect(try h.auditLog().suffix(2).map(\.action) == [.authorizationSet, .promptCancelled])
        let same = try h.service.setAuthorization(
            user: h.user, app: h.app, service: .contacts, status: .authorized, level: .limited, actor: h.consent, requestId: nil)
        #expect(same == set, "no change, no new version")
        #expect(throws: PermissionError.unknownLevel(level: "always", service: .contacts, allowed: [.limited, .full])) {
            try h.service.setAuthorization(
                user: h.user, app: h.app, service: .contacts, status: .authorized, level: .always, actor: h.consent,
                requestId: nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func restrictedCannotBeSetOrRevoked(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        try h.grant(.camera, .full, .allow)
        _ = try h.service.putPolicy(
            id: try PolicyID("kids"), service: .camera, app: nil, user: h.user, effect: .restrict, level: nil,
            actor: .anonymous, requestId: nil)
        #expect(try h.current(.camera).status == .restricted)
        #expect(throws: PermissionError.restrictedByPolicy) {
            try h.service.revoke(user: h.user, app: h.app, service: .camera, actor: h.consent, requestId: nil)
        }
        #expect(throws: PermissionError.restrictedByPolicy) {
            try h.service.setAuthorization(
                user: h.user, app: h.app, service: .camera, status: .denied, level: nil, actor: h.consent, requestId: nil)
        }
        try h.service.deletePolicy(id: try PolicyID("kids"), actor: .anonymous, requestId: nil)
        let revoked = try h.service.revoke(user: h.user, app: h.app, service: .camera, actor: h.consent, requestId: nil)
        #expect(revoked.status == .denied && revoked.reason == .userSet && revoked.version == 2)
        #expect(throws: PermissionError.notFound(what: "policy kids")) {
            try h.service.deletePolicy(id: try PolicyID("kids"), actor: .anonymous, requestId: nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func policiesCancelThePromptsTheyNowDecide(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        let camera = try h.prompt(.camera, .full)
        let photos = try h.prompt(.photos, .full)
        _ = try h.service.putPolicy(
            id: try PolicyID("mdm"), service: .camera, app: h.app, user: nil, effect: .allow, level: .full, actor: .anonymous,
            requestId: nil)
        _ = try h.service.putPolicy(
            id: try PolicyID("pre"), service: .photos, app: nil, user: nil, effect: .allow, level: .addOnly, actor: .anonymous,
            requestId: nil)
        #expect(try h.service.prompt(id: camera.id).state == .cancelled)
        #expect(try h.service.prompt(id: photos.id).state == .pending, "addOnly does not decide a full request")
        let view = try h.current(.camera)
        #expect(view.status == .authorized && view.reason == .policy && view.version == 0)
        #expect(throws: PermissionError.unknownLevel(level: "always", service: .camera, allowed: [.full])) {
            try h.service.putPolicy(
                id: try PolicyID("x"), service: .camera, app: nil, user: nil, effect: .allow, level: .always, actor: .anonymous,
                requestId: nil)
        }
        #expect(throws: PermissionError.invalidCombination(field: "level", why: "an allow policy needs a level")) {
            try h.service.putPolicy(
                id: try PolicyID("x"), service: .camera, app: nil, user: nil, effect: .allow, level: nil, actor: .anonymous,
                requestId: nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func reinstallResetsLocationOnly(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        try h.grant(.location, .whenInUse, .allowWhileUsing)
        try h.grant(.camera, .full, .allow)
        let outcome = try h.service.lifecycle(user: h.user, app: h.app, event: .reinstalled, actor: .anonymous, requestId: nil)
        #expect(outcome.changed.count == 1)
        let location = try h.current(.location)
        #expect(location.status == .notDetermined && location.reason == .reinstall && location.version == 2)
        #expect(try h.current(.camera).status == .authorized)
        let again = try h.service.lifecycle(user: h.user, app: h.app, event: .reinstalled, actor: .anonymous, requestId: nil)
        #expect(try again.changed.isEmpty && h.current(.location).version == 2)
    }

    @Test(arguments: StoreKind.allCases) func resetCountsChangesAndCancelledPromptsAndVersionsNeverGoBack(
        _ kind: StoreKind
    ) throws {
        let h = try Harness(kind)
        try h.grant(.camera, .full, .allow)
        try h.grant(.camera, .full, .deny, user: Fixtures.otherUser)
        try h.grant(.microphone, .full, .allow)
        _ = try h.prompt(.contacts, .limited)
        let count = try h.service.reset(scope: .service(.camera), app: nil, user: nil, actor: .anonymous, requestId: nil)
        #expect(count == 2)
        #expect(try h.current(.camera).reason == .reset && h.current(.camera).version == 2)
        #expect(try h.current(.microphone).status == .authorized)
        #expect(try h.service.reset(scope: .service(.camera), app: nil, user: nil, actor: .anonymous, requestId: nil) == 0)
        let all = try h.service.reset(scope: .all, app: h.app, user: h.user, actor: .anonymous, requestId: nil)
        #expect(all == 2, "microphone changed, contacts had a prompt cancelled")
        try h.grant(.camera, .full, .allow)
        #expect(try h.current(.camera).version == 3)
        #expect(throws: PermissionError.unknownService(try ServiceID("nope"))) {
            try h.service.reset(scope: .service(try ServiceID("nope")), app: nil, user: nil, actor: .anonymous, requestId: nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func versionsNeverDecreaseAcrossAnySequence(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        var last: Int64 = 0
        func check() throws {
            let current = try h.current(.location)
            #expect(current.version >= last)
            last = current.version
        }
        try h.grant(.location, .always, .allowWhileUsing)
        try check()
        _ = try h.service.reset(scope: .all, app: nil, user: nil, actor: .anonymous, requestId: nil)
        try check()
        try h.grant(.location, .whenInUse, .allowOnce)
        try check()
        _ = try h.service.lifecycle(user: h.user, app: h.app, event: .reinstalled, actor: .anonymous, requestId: nil)
        try check()
        _ = try h.service.revoke(user: h.user, app: h.app, service: .location, actor: h.consent, requestId: nil)
        try check()
        _ = try h.service.reset(scope: .service(.location), app: h.app, user: nil, actor: .anonymous, requestId: nil)
        try check()
        #expect(last == 6)
    }

    @Test(arguments: StoreKind.allCases) func locationSwitchChangesTheViewNotTheRecord(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        let granted = try h.grant(.location, .whenInUse, .allowWhileUsing)
        let off = try h.service.setLocationServices(user: h.user, enabled: false, actor: h.consent, requestId: nil)
        #expect(!off.locationServicesEnabled)
        let denied = try h.current(.location)
        #expect(denied.status == .denied && denied.reason == .servicesDisabled && denied.version == granted.version)
        #expect(denied.etag != granted.etag)
        #expect(
            try h.service.request(
                user: h.user, app: h.app, service: .location, level: .whenInUse, actor: .anonymous, requestId: nil)
                == .decided(denied))
        _ = try h.service.setLocationServices(user: h.user, enabled: true, actor: h.consent, requestId: nil)
        #expect(try h.current(.location) == granted, "the stored choice is kept for when it is turned on")
        let log = try h.auditLog()
        #expect(log.filter { $0.action == .settingsChanged }.map { $0.detail["locationServicesEnabled"] } == ["false", "true"])
        _ = try h.service.setLocationServices(user: h.user, enabled: true, actor: h.consent, requestId: nil)
        #expect(try h.auditLog().count == log.count, "no change, no audit entry")
    }

    @Test(arguments: StoreKind.allCases) func listingsFilterOnTheEffectiveStatusAndPage(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        var users: [UserID] = []
        for index in 0..<7 {
            let user = try UserID("user\(index)")
            users.append(user)
            try h.grant(.camera, .full, index.isMultiple(of: 2) ? .allow : .deny, user: user)
        }
        _ = try h.service.putPolicy(
            id: try PolicyID("p"), service: .camera, app: nil, user: users[0], effect: .restrict, level: nil, actor: .anonymous,
            requestId: nil)
        var authorized: [UserID] = []
        var after: AuthorizationKey?
        repeat {
            let page = try h.service.authorizations(
                matching: AuthorizationFilter(app: h.app, service: .camera, status: .authorized), after: after, limit: 2)
            authorized += page.items.map(\.user)
            after = page.nextAfter
        } while after != nil
        #expect(authorized == [users[2], users[4], users[6]])
        let restricted = try h.service.authorizations(
            matching: AuthorizationFilter(app: h.app, service: .camera, status: .restricted), after: nil, limit: 10)
        #expect(restricted.items.map(\.user) == [users[0]] && restricted.nextAfter == nil)
        let everything = try h.service.authorizations(matching: AuthorizationFilter(user: users[1]), after: nil, limit: 10)
        #expect(everything.items.map(\.status) == [.denied])
    }

    @Test(arguments: StoreKind.allCases) func customServicesWorkLikeBuiltIns(_ kind: StoreKind) throws {
        let h = try Harness(kind)
        let payroll = try ServiceID("payroll")
        let read = try Level("read")
        let write = try Level("write")
        _ = try h.service.putService(
            id: payroll, levels: [read, write], purposeKeys: [["PayrollRead"], ["PayrollRead", "PayrollWrite"]],
            actor: .anonymous, requestId: nil)
        #expect(try h.service.services().map(\.id).last == payroll)
        #expect(throws: PermissionError.conflict(why: "camera is a built-in service")) {
            try h.service.putService(id: .camera, levels: [.full], purposeKeys: [["K"]], actor: .anonymous, requestId: nil)
        }
        #expect(throws: PermissionError.missingPurposeString(key: "PayrollRead")) {
            try h.service.request(user: h.user, app: h.app, service: payroll, level: read, actor: .anonymous, requestId: nil)
        }
        var strings = Fixtures.allPurposeStrings
        strings["PayrollRead"] = try PurposeString("Read your payslips.")
        strings["PayrollWrite"] = try PurposeString("File expenses.")
        _ = try h.service.putApp(id: h.app, name: "Maps", purposeStrings: strings, actor: .anonymous, requestId: nil)
        let granted = try h.grant(payroll, read, .allow)
        #expect(granted.level == read)
        let upgrade = try h.prompt(payroll, write)
        #expect(upgrade.options == [.allow, .deny] && upgrade.purposeKey == "PayrollRead")
    }
}
