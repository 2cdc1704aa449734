import PermissionDomain
import Testing

/// The audit detail's bytes are hashed into the audit chain: they must never change. A fixed
/// vector pins them (sorted keys; only `\t \n \r` short, other controls as `\u00XX`;
/// U+2028 and non-ASCII as UTF-8).
@Suite struct DetailJSONTests {
    @Test func bytesArePinned() {
        let detail = [
            "z": "last", "a": "q\"b\\s/", "controls": "\u{8}\u{C}\t\n\r\u{0}\u{1F}", "text": "é \u{2028} 😀",
        ]
        let expected =
            #"{"a":"q\"b\\s/","controls":"\u0008\u000c\t\n\r\u0000\u001f","text":"é "# + "\u{2028}" + #" 😀","z":"last"}"#
        #expect(DetailJSON.encode(detail) == expected)
        #expect(DetailJSON.decode(expected) == detail)
        #expect(DetailJSON.encode([:]) == nil)
    }
}
