import Foundation
import HTTPCore
import PermissionAPI
import PermissionWire
import Testing

/// Hostile input at the API level: each case gets a specific 4xx problem, writes no
/// audit entry (the last seq is unchanged) and leaves the record it aims at as it was.
@Suite struct MaliciousInputTests {
    /// One hostile request and the answer it must get.
    struct Case: CustomStringConvertible, Sendable {
        let description: String
        let method: HTTPMethod
        let target: String
        var body: [UInt8] = []
        var contentType = "application/json"
        let status: Int
        var type: ProblemType?

        init(
            _ description: String, _ method: HTTPMethod, _ target: String, json: String? = nil, body: [UInt8]? = nil,
            contentType: String = "application/json", _ status: Int, _ type: ProblemType? = nil
        ) {
            self.description = description
            self.method = method
            self.target = target
            self.body = body ?? json.map { Array($0.utf8) } ?? []
            self.contentType = contentType
            self.status = status
            self.type = type
        }
    }

    static let camera = TestApp.path("u42", "com.example.maps", "camera")
    static let longID = String(repeating: "a", count: 10_000)

    static func nested(_ depth: Int) -> String {
        String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
    }

    static let cases: [Case] = [
        // Path traversal and encoded slashes: never reach another record.
        Case(
            "traversal ../ in the target", .put, "/v1/users/u42/apps/com.example.maps/authorizations/../../../../policies/p1",
            json: #"{"status":"authorized","level":"full"}"#, 404, .notFound),
        Case(
            "encoded ../ in the user", .put, "/v1/users/%2e%2e%2fu42/apps/com.example.maps/authorizations/camera",
            json: #"{"status":"authorized","level":"full"}"#, 400, .invalidRequest),
        Case(
            "encoded ../ in the service", .put, "/v1/users/u42/apps/com.example.maps/authorizations/%2e%2e%2fcamera",
            json: #"{"status":"authorized","level":"full"}"#, 400, .invalidRequest),
        Case(
            "%2F in the app", .put, "/v1/users/u42/apps/com.example%2Fmaps/authorizations/camera",
            json: #"{"status":"authorized","level":"full"}"#, 400, .invalidRequest),
        Case(
            "%2F in the user", .post, "/v1/users/u42%2F..%2Fu43/apps/com.example.maps/authorizations/camera/revoke", 400,
            .invalidRequest),
        Case(
            "%2F in a policy id", .put, "/v1/policies/p1%2F..%2Fp2",
            json: #"{"service":"camera","app":null,"user":null,"effect":"restrict"}"#, 400, .invalidRequest),
        // Very long ids.
        Case(
            "10k-character user", .put, "/v1/users/\(longID)/apps/com.example.maps/authorizations/camera",
            json: #"{"status":"denied"}"#, 400, .invalidRequest),
        Case(
            "10k-character app", .put, "/v1/apps/com.\(longID)", json: #"{"name":"x","purposeStrings":{}}"#, 400, .invalidRequest),
        Case(
            "10k-character service", .put, "/v1/services/\(longID)", json: #"{"levels":["full"],"purposeKeys":{}}"#, 400,
            .invalidRequest),
        // Invalid UTF-8 in path segments and bodies.
        Case(
            "invalid UTF-8 in the user", .put, "/v1/users/u%FF%FE/apps/com.example.maps/authorizations/camera",
            json: #"{"status":"denied"}"#, 400, .invalidRequest),
        Case(
            "overlong UTF-8 slash in the user", .put, "/v1/users/u%C0%AF42/apps/com.example.maps/authorizations/camera",
            json: #"{"status":"denied"}"#, 400, .invalidRequest),
        Case(
            "invalid UTF-8 in the body", .put, camera,
            body: Array(#"{"status":"den"#.utf8) + [0xFF, 0xFE] + Array(#"ied"}"#.utf8),
            400, .invalidJSON),
        Case(
            "lone surrogate escape", .put, "/v1/apps/com.example.maps", json: #"{"name":"\ud800","purposeStrings":{}}"#, 400,
            .invalidJSON),
        // JSON bombs and strictness.
        Case("object nesting 10k deep", .put, camera, json: nested(10_000), 400, .invalidJSON),
        Case(
            "array nesting 10k deep", .put, camera,
            json: String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000), 400, .invalidJSON),
        Case(
            "duplicate keys, second one wins elsewhere", .put, camera,
            json: #"{"status":"denied","status":"authorized","level":"full"}"#, 400, .invalidJSON),
        Case("duplicate keys by escape", .put, camera, json: #"{"status":"denied","st\u0061tus":"denied"}"#, 400, .invalidJSON),
        Case("number where a string belongs", .put, camera, json: #"{"status":1}"#, 400, .invalidRequest),
        Case("number as a level", .post, camera + "/request", json: #"{"level":123}"#, 400, .invalidRequest),
        Case(
            "string where a boolean belongs", .put, "/v1/users/u42/settings", json: #"{"locationServicesEnabled":"false"}"#,
            400, .invalidRequest),
        Case(
            "number where a boolean belongs", .put, "/v1/users/u42/settings", json: #"{"locationServicesEnabled":0}"#,
            400, .invalidRequest),
        Case("unknown member", .put, camera, json: #"{"status":"denied","admin":true}"#, 400, .unknownMember),
        Case(
            "prototype-pollution member", .put, camera, json: #"{"status":"denied","__proto__":{"admin":true}}"#,
            400, .unknownMember),
        Case("null body", .put, camera, json: "null", 400, .invalidRequest),
        Case("array body", .put, camera, json: #"[{"status":"denied"}]"#, 400, .invalidRequest),
        Case(
            "null where an object belongs", .put, "/v1/apps/com.example.maps", json: #"{"name":"x","purposeStrings":null}"#,
            400, .invalidRequest),
        Case("trailing garbage", .put, camera, json: #"{"status":"denied"} {"status":"authorized"}"#, 400, .invalidJSON),
        // NUL and control characters.
        Case(
            "raw NUL in a string", .put, camera, body: Array(#"{"status":"denied"#.utf8) + [0] + Array(#""}"#.utf8), 400,
            .invalidJSON),
        Case("escaped NUL in a status", .put, camera, json: #"{"status":"denied\u0000"}"#, 400, .invalidRequest),
        Case(
            "NUL in a purpose string", .put, "/v1/apps/com.example.maps",
            json: #"{"name":"Maps","purposeStrings":{"NSCameraUsageDescription":"Scan\u0000codes"}}"#, 400, .invalidRequest),
        Case(
            "escape sequence in a purpose string", .put, "/v1/apps/com.example.maps",
            json: #"{"name":"Maps","purposeStrings":{"NSCameraUsageDescription":"\u001b[2J fake prompt"}}"#, 400, .invalidRequest),
        Case(
            "newline in a purpose string", .put, "/v1/apps/com.example.maps",
            json: #"{"name":"Maps","purposeStrings":{"NSCameraUsageDescription":"line\nbreak"}}"#, 400, .invalidRequest),
        Case(
            "DEL in a purpose string", .put, "/v1/apps/com.example.maps",
            json: #"{"name":"Maps","purposeStrings":{"NSCameraUsageDescription":"x\u007f"}}"#, 400, .invalidRequest),
        // Size and media type.
        Case(
            "1 MiB body", .put, camera, json: #"{"status":"denied","level":""# + String(repeating: "x", count: 1 << 20) + #""}"#,
            413, .payloadTooLarge),
        Case(
            "text/plain body", .put, camera, json: #"{"status":"denied"}"#, contentType: "text/plain", 415, .unsupportedMediaType),
        Case(
            "multipart body", .put, camera, json: #"{"status":"denied"}"#, contentType: "multipart/form-data; boundary=x",
            415, .unsupportedMediaType),
        Case(
            "json look-alike type", .put, camera, json: #"{"status":"denied"}"#, contentType: "application/jsonp",
            415, .unsupportedMediaType),
        // Query strings.
        Case("negative limit", .get, "/v1/audit?limit=-1", 400, .invalidRequest),
        Case("zero limit", .get, "/v1/audit?limit=0", 400, .invalidRequest),
        Case("huge limit", .get, "/v1/audit?limit=99999999999999999999999", 400, .invalidRequest),
        Case("negative after", .get, "/v1/audit?after=-5", 400, .invalidRequest),
        Case("huge after", .get, "/v1/audit?after=99999999999999999999999", 400, .invalidRequest),
        Case("garbage cursor", .get, "/v1/users/u42/authorizations?after=%FF%00../../", 400, .invalidRequest),
        Case("forged cursor", .get, "/v1/apps?after=" + String(repeating: "QUFB", count: 3_000), 400, .invalidRequest),
        Case("bad percent-encoding in the query", .get, "/v1/audit?limit=%ZZ", 400, .invalidRequest),
    ]

    @Test(arguments: cases)
    func hostileRequestIsRefusedAndChangesNothing(_ hostile: Case) throws {
        let app = try TestApp()
        try app.registerApp()
        try app.set("camera", #"{"status":"denied"}"#)
        let appBefore = try app.send(.get, "/v1/apps/com.example.maps").text
        let before = try app.lastSeq()
        let headers: [(String, String)] = hostile.body.isEmpty ? [] : [("Content-Type", hostile.contentType)]
        let response = try app.send(hostile.method, hostile.target, body: hostile.body, headers: headers)
        #expect(response.status == hostile.status, "\(response.text.prefix(300))")
        if let type = hostile.type { #expect(response.problemType == type, "\(response.text.prefix(300))") }
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(try app.lastSeq() == before)
        let camera = try app.authorization("camera")
        #expect(camera.status == .denied && camera.version == 1)
        #expect(try app.send(.get, "/v1/apps/com.example.maps").text == appBefore)
        #expect(try app.send(.get, "/v1/policies").decode(PolicyList.self).items.isEmpty)
    }

    /// Unknown query parameters are ignored (openapi.yaml declares no `additionalProperties` for
    /// queries, and a newer client may send one an older server lacks): the answer is the
    /// same as without them.
    @Test func unknownQueryParametersAreIgnored() throws {
        let app = try TestApp()
        try app.set("camera", #"{"status":"denied"}"#)
        let plain = try app.send(.get, "/v1/audit?limit=5")
        let extra = try app.send(.get, "/v1/audit?limit=5&admin=true&limit2=-1&%00=%00")
        #expect(plain.status == 200 && extra.status == 200)
        #expect(plain.text == extra.text)
    }

    /// An `X-Request-Id` that is not 1-128 characters of `A-Z a-z 0-9 . _ : -` is replaced by
    /// one the server makes, so nothing a caller sends there reaches a header or a log line.
    @Test(arguments: [
        "abc\r\nSet-Cookie: session=evil", "abc\nX-Admin: 1", "<script>alert(1)</script>", "id with spaces",
        String(repeating: "r", count: 10_000), "a\u{0}b", "caf\u{E9}", "",
    ])
    func hostileRequestIdIsReplaced(_ value: String) throws {
        let app = try TestApp()
        let before = try app.lastSeq()
        let response = try app.send(
            .put, "/v1/users/%2e%2e/apps/com.example.maps/authorizations/Camera",
            json: #"{"status":"denied"}"#, headers: [("X-Request-Id", value)])
        #expect(response.status == 400)
        let echoed = try #require(response.headers["X-Request-Id"])
        #expect(echoed != value)
        #expect(!echoed.isEmpty && echoed.utf8.count <= 128)
        #expect(echoed.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F })
        #expect(response.problem?.requestId == echoed)
        #expect(try app.lastSeq() == before)
    }
}
