import Foundation
import HTTPCore
import Logging
import PermissionDomain
import PermissionWire
import Testing

@testable import PermissionAPI

/// API keys (SPEC §6): issue, list, revoke, rotation, 401 challenges, the failure token
/// bucket, the constant-time compare, the secret format and the bootstrap key.
@Suite struct APIKeyTests {
    @Test func createListRevokeAndRotate() throws {
        let app = try TestApp()
        let created = try app.send(.post, "/v1/keys", json: #"{"role":"admin","name":"second"}"#)
        #expect(created.status == 201)
        let issued = try created.decode(IssuedAPIKey.self)
        #expect(issued.secret.hasPrefix("pk_\(issued.key.id)_"))
        #expect(created.headers["Location"] == "/v1/keys/\(issued.key.id)")
        // What Location names can be read: the key, never its secret.
        let read = try app.send(.get, "/v1/keys/\(issued.key.id)")
        #expect(read.status == 200 && !read.text.contains("pk_"), "\(read.text)")
        #expect(try read.decode(APIKey.self) == issued.key)
        #expect(try app.send(.get, "/v1/keys/0000000000000000").status == 404, "a key that never was")
        #expect(try app.send(.get, "/v1/keys/not%20a%20key").status == 400, "a malformed id")
        let list = try app.send(.get, "/v1/keys").decode(APIKeyList.self)
        #expect(Set(list.items.map(\.id)) == [app.adminKeyId, issued.key.id])
        #expect(!(try app.send(.get, "/v1/keys").text.contains("pk_")))
        // Rotation: revoke the first admin key with the second; the second keeps working.
        let second = [("Authorization", "Bearer \(issued.secret)")]
        #expect(try app.send(.delete, "/v1/keys/\(app.adminKeyId)", headers: second).status == 204)
        #expect(try app.send(.get, "/v1/apps").status == 401)
        #expect(try app.send(.get, "/v1/apps", headers: second).status == 200)
        #expect(try app.send(.get, "/v1/keys/\(app.adminKeyId)", headers: second).status == 404, "a revoked key")
        // The last active admin key stays.
        let last = try app.send(.delete, "/v1/keys/\(issued.key.id)", headers: second)
        #expect(last.status == 409)
        // Both changes are audited with the actor's key id and role, never the secret.
        let audit = try app.send(.get, "/v1/audit", headers: second)
        #expect(audit.text.contains("key.created") && audit.text.contains("key.revoked"))
        #expect(!audit.text.contains(issued.secret))
        let entries = try app.application.service.audit(query: AuditQuery())
        #expect(entries.allSatisfy { $0.actor.keyId != nil && $0.actor.role == "admin" })
    }

    @Test func appKeysNeedTheirAppAndOtherRolesRefuseOne() throws {
        let app = try TestApp()
        #expect(try app.send(.post, "/v1/keys", json: #"{"role":"app","name":"x"}"#).status == 422)
        #expect(try app.send(.post, "/v1/keys", json: #"{"role":"consent","app":"com.example.maps"}"#).status == 422)
        #expect(try app.send(.post, "/v1/keys", json: #"{"role":"root"}"#).status == 400)
        let issued = try app.send(.post, "/v1/keys", json: #"{"role":"app","app":"com.example.maps"}"#)
        #expect(issued.status == 201)
        #expect(try issued.decode(IssuedAPIKey.self).key.app == "com.example.maps")
    }

    /// Two `Authorization` fields: refused before either key is checked, whichever comes
    /// first, since a proxy in front may read the other one.
    @Test func twoAuthorizationFieldsAreRefusedBeforeAnyKeyIsChecked() throws {
        let app = try TestApp()
        let admin = ("Authorization", "Bearer \(app.adminKey)")
        let appKey = ("Authorization", "Bearer \(try app.storeKey(role: .app, app: "com.example.maps").secret)")
        for fields in [[admin, appKey], [appKey, admin], [admin, admin], [("authorization", "Bearer nope"), admin]] {
            let response = try app.send(.get, "/v1/keys", headers: fields, remote: "10.2.2.2:9")
            #expect(response.status == 400, "\(fields.map(\.1))")
            #expect(response.problemType == .invalidRequest)
            #expect(response.problem?.detail.hasPrefix("Authorization: the request has 2 Authorization fields") == true)
        }
        let consistency = try app.send(
            .get, "/v1/keys", headers: [("Permission-Consistency", "at-least 1"), ("Permission-Consistency", "at-least 1")])
        #expect(consistency.status == 400)
        #expect(consistency.problemType == .invalidRequest)
        #expect(consistency.problem?.detail.hasPrefix("Permission-Consistency: the request has 2") == true)
        // Two media types: the body is JSON to this server and may be text to a proxy; refused
        // in either order, nothing written.
        try app.registerApp()
        let record = "/v1/users/u42/apps/com.example.maps/authorizations/camera"
        for types in [["application/json", "text/plain"], ["text/plain", "application/json"]] {
            let response = try app.send(
                .put, record, json: #"{"status":"denied"}"#, headers: types.map { ("Content-Type", $0) })
            #expect(response.status == 400, "\(types)")
            #expect(response.problem?.detail.hasPrefix("Content-Type: the request has 2 Content-Type fields") == true)
        }
        #expect(try app.send(.get, record).text.contains(#""status":"notDetermined""#))
        // One of each is served as before.
        #expect(try app.send(.put, record, json: #"{"status":"denied"}"#).status == 200)
        #expect(try app.send(.get, "/v1/keys", headers: [admin]).status == 200)
        #expect(try app.send(.get, "/v1/keys", headers: [appKey]).status == 403)
    }

    @Test func unauthorizedCarriesTheBearerChallenge() throws {
        let app = try TestApp()
        let missing = try app.send(.get, "/v1/apps", headers: [("Authorization", "")])
        #expect(missing.status == 401)
        #expect(missing.headers["WWW-Authenticate"] == #"Bearer realm="permissions""#)
        #expect(missing.problemType == .unauthorized)
        for bad in [
            "Bearer nope", "Basic dXNlcjpwYXNz", "Bearer pk_0123456789abcdef_" + String(repeating: "A", count: 43),
            "Bearer " + String(repeating: "x", count: 300),
        ] {
            let response = try app.send(.get, "/v1/apps", headers: [("Authorization", bad)], remote: "10.1.1.1:9")
            #expect(response.status == 401, "\(bad)")
            #expect(response.headers["WWW-Authenticate"] == #"Bearer realm="permissions", error="invalid_token""#)
        }
        // Open routes need no key.
        #expect(try app.send(.get, "/healthz", headers: [("Authorization", "")]).status == 200)
    }

    @Test func revokedKeysStopAtOnce() throws {
        let app = try TestApp()
        let (id, secret) = try app.storeKey(role: .consent)
        let headers = [("Authorization", "Bearer \(secret)")]
        #expect(try app.send(.get, "/v1/apps", headers: headers).status == 200)  // now cached
        #expect(try app.send(.delete, "/v1/keys/\(id)").status == 204)
        #expect(try app.send(.get, "/v1/apps", headers: headers).status == 401)
    }

    @Test func aKeepAliveConnectionRemembersItsKeyUntilARevocation() throws {
        let app = try TestApp()
        let (id, secret) = try app.storeKey(role: .consent)
        let (_, other) = try app.storeKey(role: .consent)
        let connection = ConnectionStorage()
        let headers = [("Authorization", "Bearer \(secret)")]
        #expect(try app.send(.get, "/v1/apps", headers: headers, connection: connection).status == 200)
        #expect(connection.value != nil)  // remembered
        #expect(try app.send(.get, "/v1/apps", headers: headers, connection: connection).status == 200)
        // Another key on the same connection is verified on its own, and a bad one fails.
        let otherHeaders = [("Authorization", "Bearer \(other)")]
        #expect(try app.send(.get, "/v1/apps", headers: otherHeaders, connection: connection).status == 200)
        let wrongLast = secret.last == "A" ? "B" : "A"  // a different last character, always
        let wrong = [("Authorization", "Bearer \(secret.dropLast())\(wrongLast)")]
        #expect(try app.send(.get, "/v1/apps", headers: wrong, connection: connection).status == 401)
        // A revocation on another connection ends what this one remembered.
        #expect(try app.send(.get, "/v1/apps", headers: headers, connection: connection).status == 200)
        #expect(try app.send(.delete, "/v1/keys/\(id)").status == 204)
        #expect(try app.send(.get, "/v1/apps", headers: headers, connection: connection).status == 401)
        #expect(try app.send(.get, "/v1/apps", headers: otherHeaders, connection: connection).status == 200)
    }

    @Test func rememberedHeadersCompareByteForByte() {
        #expect(KeyAuthenticator.sameBytes("Bearer pk_K", "Bearer pk_K"))
        #expect(!KeyAuthenticator.sameBytes("Bearer pk_K", "Bearer pk_\u{212A}"))  // KELVIN SIGN, canonically "K"
        #expect(!KeyAuthenticator.sameBytes("Bearer pk_K", "Bearer pk_k"))
        #expect(!KeyAuthenticator.sameBytes("Bearer pk_K", "Bearer pk_KK"))
    }

    @Test func failedAuthenticationsAreSlowedDownPerAddress() throws {
        let app = try TestApp()
        let bad = [("Authorization", "Bearer pk_0123456789abcdef_" + String(repeating: "B", count: 43))]
        var statuses: [Int] = []
        for _ in 0..<12 { statuses.append(try app.send(.get, "/v1/apps", headers: bad, remote: "10.9.9.9:1").status) }
        #expect(statuses.prefix(10).allSatisfy { $0 == 401 })
        #expect(statuses.suffix(2).allSatisfy { $0 == 429 })
        let limited = try app.send(.get, "/v1/apps", headers: bad, remote: "10.9.9.9:2")
        #expect(limited.status == 429)
        #expect(Int(limited.headers["Retry-After"] ?? "") ?? 0 >= 1)
        // Only failures are slowed down: a good key from the same address is never throttled.
        #expect(try app.send(.get, "/v1/apps", remote: "10.9.9.9:3").status == 200)
        #expect(try app.send(.get, "/v1/apps", remote: "10.9.9.8:1").status == 200)  // other addresses unaffected
    }

    /// `APIConfiguration.authFailureBurst` (the server's `--auth-failure-burst`) sets the allowance.
    @Test("the failed-authentication allowance is configurable", arguments: [1, 3, 40])
    func failureAllowanceIsConfigurable(burst: Int) throws {
        let app = try TestApp {
            $0.authFailureBurst = burst
            $0.authFailureRefillPerSecond = 0.001
        }
        let bad = [("Authorization", "Bearer pk_0123456789abcdef_" + String(repeating: "C", count: 43))]
        var statuses: [Int] = []
        for _ in 0..<(burst + 2) { statuses.append(try app.send(.get, "/v1/apps", headers: bad, remote: "10.7.7.7:1").status) }
        #expect(statuses.prefix(burst).allSatisfy { $0 == 401 }, "\(statuses)")
        #expect(statuses.suffix(2) == [429, 429], "\(statuses)")
        // A request without a key is no guess: 401 however drained the allowance is.
        #expect(try app.send(.get, "/v1/apps", headers: [("Authorization", "")], remote: "10.7.7.7:2").status == 401)
        #expect(try app.send(.get, "/v1/apps", remote: "10.7.7.7:3").status == 200)
    }

    @Test func tokenBucketRefills() {
        var bucket = TokenBucket(capacity: 2, refillPerSecond: 1, now: 0)
        let first = bucket.take(now: 0)
        let second = bucket.take(now: 0)
        #expect(first && second)
        let third = bucket.take(now: 0.5)
        #expect(!third)
        #expect(bucket.secondsUntilToken() == 1)
        let refilled = bucket.take(now: 1.01)
        #expect(refilled)
        let early = bucket.hasToken(now: 1.5)
        #expect(!early)
        let late = bucket.hasToken(now: 10)
        #expect(late)
        #expect(bucket.isFull(now: 10))
        #expect(FailureLimiter.host(of: "10.0.0.1:443") == "10.0.0.1")
        #expect(FailureLimiter.host(of: "[::1]:443") == "::1")
    }

    /// RFC 9110 §11.1: the scheme is case-insensitive; anything else is not a Bearer token.
    @Test(
        "the Bearer scheme is matched case-insensitively and nothing else passes",
        arguments: [
            ("Bearer pk_1", "pk_1"), ("bearer pk_1", "pk_1"), ("BEARER   pk_1", "pk_1"), ("BeArEr x", "x"),
            ("Basic pk_1", nil), ("Bearerx pk_1", nil), ("Bear pk_1", nil), ("Bearer ", nil), ("Bearer", nil),
            ("B\u{E9}arer pk_1", nil), ("Bearer\tpk_1", nil),
        ] as [(String, String?)])
    func bearerScheme(header: String, token: String?) {
        #expect(KeyAuthenticator.bearerToken(header).map(String.init) == token)
    }

    @Test func constantTimeCompareAndSecretFormat() {
        #expect(ConstantTime.equal([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2]))
        let (id, secret) = KeySecret.generate()
        #expect(secret.count == 3 + 16 + 1 + 43)
        #expect(KeySecret.keyID(of: Substring(secret).utf8, hash: KeySecret.hash(secret.utf8)) == id)
        #expect(KeySecret.generate().secret != secret)
        #expect(KeySecret.isAcceptable(String(repeating: "a1", count: 16)))
        #expect(!KeySecret.isAcceptable("short"))
        #expect(!KeySecret.isAcceptable(String(repeating: "é", count: 40)))
        // FIPS 180-2 test vector, hashed in place (a string's UTF-8) and from a copied sequence.
        let abc: [UInt8] = [
            0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
            0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
        ]
        #expect(KeySecret.hash("abc".utf8) == abc)
        #expect(KeySecret.hash(Substring("xabc").dropFirst().utf8) == abc)
        #expect(KeySecret.hash("abc".utf8.lazy.map { $0 }) == abc)
    }

    @Test func aBootstrapSecretBesideAnActiveAdminKeyMakesNoKey() throws {
        let app = try TestApp()
        let secret = String(repeating: "bootstrap-secret-", count: 3)
        let service = app.application.service
        // The test's own admin key is active: the bootstrap secret makes the first admin only.
        #expect(
            try KeyBootstrap.ensureAdminKey(secret: secret, service: service, logger: quietLogger)
                == .ignored(try #require(KeySecret.keyID(of: Substring(secret).utf8, hash: KeySecret.hash(secret.utf8)))))
        #expect(try app.send(.get, "/v1/keys", headers: [("Authorization", "Bearer \(secret)")]).status == 401)
        #expect(throws: PermissionError.self) {
            try KeyBootstrap.ensureAdminKey(secret: "too short", service: service, logger: quietLogger)
        }
        // Made on a database without an admin key, and found again: StartupTests, with the binary.
    }

    @Test func appKeysPostOnlyTheirLifecycleEvents() throws {
        let app = try TestApp()
        try app.registerApp()
        let own = [("Authorization", "Bearer \(try app.storeKey(role: .app, app: "com.example.maps").secret)")]
        let path = "/v1/users/u42/apps/com.example.maps/lifecycle"
        #expect(try app.send(.post, path, json: #"{"event":"sessionEnded"}"#, headers: own).status == 200)
        #expect(try app.send(.post, path, json: #"{"event":"reinstalled"}"#, headers: own).status == 200)
        #expect(try app.send(.post, path, json: #"{"event":"backgroundLocationUsed"}"#, headers: own).status == 403)
    }
}
