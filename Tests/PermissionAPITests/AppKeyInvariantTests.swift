import Foundation
import HTTPCore
import PermissionAPI
import PermissionDomain
import TestSupport
import Testing

/// SPEC §6, the invariant that matters most: an `app` key can never cause any authorization
/// to become `authorized`, by any sequence of calls. A seeded, reproducible random walk of
/// 2,000 calls with app keys only (request, lifecycle, settings, revoke, decisions on leaked
/// and guessed prompt ids, policies, reset, apps, keys, reads, for its own and another app);
/// after each call no stored or effective authorization is `authorized`, and the key got
/// 403 exactly where its role or app does not reach.
@Suite struct AppKeyInvariantTests {
    static let users = ["u1", "u2", "u3"]
    static let apps = ["com.example.maps", "com.example.chat"]
    static let services = ["camera", "microphone", "location"]
    static let levels = ["full", "whenInUse", "always", "limited"]
    static let choices = ["allow", "allowOnce", "allowWhileUsing", "allowAlways", "deny", "allowFull"]
    static let events = ["sessionEnded", "reinstalled", "backgroundLocationUsed"]

    @Test(arguments: [UInt64(0x5EED), 42]) func appKeysNeverAuthorize(seed: UInt64) throws {
        var random = SeededGenerator(state: seed)
        let app = try TestApp()
        for name in Self.apps { try app.registerApp(name) }
        var keys: [(app: String, secret: String)] = []
        for name in Self.apps { keys.append((name, try app.storeKey(role: .app, app: name).secret)) }
        // Leakable prompt ids: pending prompts made with the admin key.
        var promptIds: [String] = []
        for user in Self.users {
            for name in Self.apps {
                let prompt = try app.prompt("camera", "full", user: user, app: name)
                promptIds.append(prompt.id)
            }
        }
        try expectNothingAuthorized(app)

        for step in 0..<1_000 {
            let key = keys[Int.random(in: 0..<keys.count, using: &random)]
            let user = Self.users.randomElement(using: &random) ?? "u1"
            let target = Self.apps.randomElement(using: &random) ?? key.app
            let service = Self.services.randomElement(using: &random) ?? "camera"
            let own = target == key.app
            let base = "/v1/users/\(user)/apps/\(target)/authorizations/\(service)"
            var method = HTTPMethod.post
            var path = base
            var body: String? = "{}"
            var allowed = false
            switch Int.random(in: 0..<12, using: &random) {
            case 0:
                (method, body, allowed) = (.get, nil, own)
            case 1:
                path = base + "/request"
                body = #"{"level":"\#(Self.levels.randomElement(using: &random) ?? "full")"}"#
                allowed = own
            case 2:
                let event = Self.events.randomElement(using: &random) ?? "sessionEnded"
                path = "/v1/users/\(user)/apps/\(target)/lifecycle"
                body = #"{"event":"\#(event)"}"#
                allowed = own && event != "backgroundLocationUsed"
            case 3:
                (method, path, body) = (
                    .put, "/v1/users/\(user)/settings", #"{"locationServicesEnabled":\#(Bool.random(using: &random))}"#
                )
            case 4:
                path = base + "/revoke"
            case 5:
                (method, body) = (
                    .put, #"{"status":"authorized","level":"\#(Self.levels.randomElement(using: &random) ?? "full")"}"#
                )
            case 6:
                let guessed = String(format: "%016llx", random.next())
                let id = Bool.random(using: &random) ? (promptIds.randomElement(using: &random) ?? guessed) : guessed
                path = "/v1/prompts/\(id)/decision"
                body = #"{"choice":"\#(Self.choices.randomElement(using: &random) ?? "allow")"}"#
            case 7:
                (method, path) = (.put, "/v1/policies/p\(step % 5)")
                body = #"{"service":"\#(service)","app":"\#(target)","effect":"allow","level":"full"}"#
            case 8:
                path = "/v1/reset"
            case 9:
                (method, path, body) = (.put, "/v1/apps/\(target)", #"{"name":"Evil","purposeStrings":{}}"#)
            case 10:
                (path, body) = ("/v1/keys", #"{"role":"admin","name":"mine"}"#)
            default:
                (method, path, body) = (.get, "/v1/apps/\(target)/services/\(service)/users", nil)
                allowed = own
            }
            let response = try app.send(
                method, path, json: body, headers: [("Authorization", "Bearer \(key.secret)")])
            if allowed {
                #expect(![401, 403].contains(response.status), "step \(step): \(method) \(path) → \(response.status)")
            } else {
                #expect(response.status == 403, "step \(step): \(method) \(path) → \(response.status) \(response.text)")
            }
            // The effective view of what was touched, every step; everything, every 50 steps.
            let effective = try app.application.service.authorization(
                user: UserID(user), app: AppID(target), service: ServiceID(service))
            #expect(effective.status != .authorized, "step \(step): \(method) \(path) authorized \(base)")
            if step % 50 == 49 { try expectNothingAuthorized(app) }
        }
        try expectNothingAuthorized(app)
    }

    /// No stored record and no effective view in the small universe is `authorized`.
    private func expectNothingAuthorized(_ app: TestApp) throws {
        let stored = try app.store.read { try $0.authorizations(matching: AuthorizationFilter(), after: nil, limit: 10_000) }
        #expect(stored.allSatisfy { $0.status != .authorized })
        for user in Self.users {
            for name in Self.apps {
                for service in Self.services {
                    let effective = try app.application.service.authorization(
                        user: UserID(user), app: AppID(name), service: ServiceID(service))
                    #expect(effective.status != .authorized, "\(user) \(name) \(service)")
                }
            }
        }
    }
}
