import Testing

@testable import PermissionAPI

/// Which `Content-Type` values a JSON body may come with (RFC 9110 §8.3, RFC 6839 §3.1): the
/// media type in any case, any parameters, spaces and tabs around it.
@Suite struct ContentTypeTests {
    @Test(arguments: [
        "application/json", "Application/JSON", "application/json; charset=utf-8", " application/json ;charset=UTF-8",
        "\tapplication/json\t", "application/problem+json", "APPLICATION/MERGE-PATCH+JSON; q=1", "application/+json",
        "application/json;",
    ])
    func jsonMediaTypesAreAccepted(contentType: String) {
        #expect(APIRequest.isJSON(contentType))
    }

    @Test(arguments: [
        "", " ", "text/json", "application/jsonx", "application/xml", "text/plain; x=application/json", "application/json5",
        "app/json", "application/jso", "xapplication/json", "application/json+xml", "application/ json", "+json",
        "application/x+jsonx", "application\\json", "applicatioN/jsoN\u{0}", "appl\u{00E9}cation/json",
    ])
    func otherMediaTypesAreRefused(contentType: String) {
        #expect(!APIRequest.isJSON(contentType))
    }

    @Test func noContentTypeIsRefused() {
        #expect(!APIRequest.isJSON(nil))
    }
}
