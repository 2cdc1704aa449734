import Testing

@testable import PermissionAPI

/// Which `Content-Type` values a JSON body may come with (RFC 9110 §8.3, RFC 6839 §3.1): the
/// media type in any case, any parameters, spaces and tabs around it.
@Suite struct ContentTypeTests {
    @Test(arguments: [
        "application/json", "Application/JSON", "application/json; charset=utf-8", " application/json ;charset=UTF-8",
        "\tapplication/json\t", "application/problem+json", "APPLICATION/MERGE-PATCH+JSON; q=1", "application/+json",
        "application/json;", "application/json; charset=\"utf-8\"", "application/json; charset=utf8; x=y",
    ])
    func jsonMediaTypesAreAccepted(contentType: String) {
        #expect(APIRequest.isJSON(contentType))
    }

    @Test(arguments: [
        "", " ", "text/json", "application/jsonx", "application/xml", "text/plain; x=application/json", "application/json5",
        "app/json", "application/jso", "xapplication/json", "application/json+xml", "application/ json", "+json",
        "application/x+jsonx", "application\\json", "applicatioN/jsoN\u{0}", "appl\u{00E9}cation/json",
        // JSON is UTF-8 (RFC 8259 §8.1): a body said to be in another encoding was sent in it.
        "application/json; charset=latin1", "application/json;charset=ISO-8859-1", "application/json; x=1; charset=\"utf-16\"",
    ])
    func otherMediaTypesAreRefused(contentType: String) {
        #expect(!APIRequest.isJSON(contentType))
    }

    @Test func noContentTypeIsRefused() {
        #expect(!APIRequest.isJSON(nil))
    }

    /// The 415 says what is wrong: no body at all, or one in another format; `Accept-Post` on
    /// a POST only.
    @Test func theRefusalSaysWhatWasMissing() throws {
        let app = try TestApp()
        let path = TestApp.path("u42", "com.example.maps", "camera")
        let none = try app.send(.post, path + "/request")
        #expect(none.status == 415 && none.problem?.detail.contains("none was sent") == true, "\(none.text)")
        #expect(none.headers["Accept-Post"] == "application/json")
        let latin1 = try app.send(
            .put, path, body: Array(#"{"status":"denied"}"#.utf8), headers: [("Content-Type", "application/json; charset=latin1")]
        )
        #expect(latin1.status == 415 && latin1.problem?.detail.contains("UTF-8") == true, "\(latin1.text)")
        #expect(latin1.headers["Accept-Post"] == nil, "a PUT")
        #expect(try app.lastSeq() == 0)
    }
}
