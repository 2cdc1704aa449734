import Foundation
import PermissionAPI
import PermissionWire
import Testing

/// `DELETE /v1/users/{user}` over HTTP (SPEC §11 Erasure) on either store, with the read cache
/// on: the user reads as never asked at once (memory forgets what the erasure deleted), the
/// audit keeps the entries without their personal fields, one `user.erased` entry names only
/// the pseudonym, and a second erasure or an unknown user is `404` with nothing written.
@Suite struct ErasureTests {
    @Test func anErasedUserReadsAsNeverAskedAndTheAuditKeepsOnlyThePseudonym() throws {
        let app = try TestApp()
        try app.registerApp()
        #expect(try app.set("camera", #"{"status":"authorized","level":"full"}"#).status == 200)
        #expect(try app.set("contacts", #"{"status":"denied"}"#, user: "u43").status == 200)
        #expect(try app.authorization("camera").status == .authorized)  // now in memory
        let before = try app.audit("user=u42")
        let pseudonym = try #require(before.first?.pseudonym)
        #expect(before.allSatisfy { $0.user == "u42" && $0.pseudonym == pseudonym && $0.erased == nil })

        let response = try app.send(.delete, "/v1/users/u42")
        #expect(response.status == 200, "\(response.text)")
        #expect(response.headers["Cache-Control"] == "no-store")
        let result = try response.decode(UserErasureResult.self)
        #expect(result.pseudonym == pseudonym && result.authorizations == 1 && result.prompts == 0 && !result.settings)
        let revision = try #require(response.headers["Permission-Revision"])
        #expect(revision == String(result.auditSeq))

        let read = try app.send(
            .get, TestApp.path("u42", "com.example.maps", "camera"), headers: [("Permission-Consistency", "at-least \(revision)")]
        )
        #expect(try read.decode(Authorization.self).status == .notDetermined)
        #expect(try app.authorization("contacts", user: "u43").status == .denied, "another user is untouched")
        #expect(try app.audit("user=u42").isEmpty)
        let erasedEntries = try app.audit().filter { $0.pseudonym == pseudonym && $0.action != "user.erased" }
        #expect(erasedEntries.count == before.count)
        #expect(erasedEntries.allSatisfy { $0.user == nil && $0.purpose == nil && $0.erased == true })
        let entry = try #require(try app.audit("action=user.erased").first)
        #expect(entry.seq == result.auditSeq && entry.user == nil && entry.detail?["pseudonym"] == pseudonym)
        #expect(!(entry.detail ?? [:]).values.contains("u42"))
        let verified = try app.send(.get, "/v1/audit/verify")
        let verification = try verified.decode(AuditVerification.self)
        #expect(verified.status == 200 && verification.valid)

        let seq = try app.lastSeq()
        let again = try app.send(.delete, "/v1/users/u42")
        let detail = again.problem?.detail ?? ""
        #expect(again.status == 404 && detail.contains("u42"), "\(again.text)")
        #expect(try app.send(.delete, "/v1/users/nobody").status == 404)
        #expect(try app.send(.delete, "/v1/users/bad%20id").status == 400)
        #expect(try app.lastSeq() == seq, "a refused erasure writes nothing")
    }

    /// Background uses of location kept for location alerts are data about the user too: they
    /// are erased and counted with the rest, not left behind.
    @Test func locationUsesAreErased() throws {
        let app = try TestApp()
        try app.registerApp()
        #expect(try app.set("location", #"{"status":"authorized","level":"always"}"#, user: "u77").status == 200)
        let used = try LocationAlertTests.used(app, user: "u77")
        #expect(try used.decode(LifecycleResult.self).usageRecorded == true, "\(used.text)")
        #expect(try app.send(.get, "/v1/users/u77/export").decode(UserExport.self).locationAlerts?.count == 1)

        let response = try app.send(.delete, "/v1/users/u77")
        #expect(response.status == 200, "\(response.text)")
        let result = try response.decode(UserErasureResult.self)
        #expect(result.locationAlerts == 1 && result.authorizations == 1, "\(response.text)")
        let entry = try #require(try app.audit("action=user.erased").first)
        #expect(entry.detail?["locationAlerts"] == "1")
        #expect(try app.send(.get, "/v1/users/u77/export").decode(UserExport.self).locationAlerts ?? [] == [])
        #expect(try app.send(.delete, "/v1/users/u77").status == 404, "nothing left")
    }
}
