import ByteText
import Testing

/// The cursor: what it measures is what it may write, and what it writes.
@Suite struct ByteCursorTests {
    @Test func theReserveIsMeasuredFromTheWrites() {
        let body: (inout ByteCursor) -> Void = { out in
            out.literal("HTTP/1.1 ")
            out.decimal(404)
            out.put(UInt8(ascii: " "))
            out.text("Not Found")
            out.put([0x0D, 0x0A])
            out.jsonString("é\"")
        }
        // Literals count their bytes, an integer twenty, a JSON string six per byte plus quotes.
        #expect(ByteCursor.bound(of: body) == 9 + 20 + 1 + 9 + 2 + (2 + 6 * 3))
        let bytes = ByteCursor.bytes(body)
        #expect(String(decoding: bytes, as: UTF8.self) == "HTTP/1.1 404 Not Found\r\n\"é\\\"\"")
        #expect(bytes.capacity >= ByteCursor.bound(of: body))
    }

    @Test(arguments: [Int64.min, -1, 0, 7, 10, 99, 100, 12345, 1 << 40, Int64.max])
    func decimals(value: Int64) {
        #expect(String(decoding: ByteCursor.bytes { $0.decimal(value) }, as: UTF8.self) == String(value))
    }

    @Test func appendsAfterExistingBytesAndReservesWhatFollows() {
        var bytes = Array("prefix ".utf8)
        ByteCursor.append(to: &bytes, reservingAfter: 100, "a\nb") { text, out in out.jsonString(text) }
        #expect(String(decoding: bytes, as: UTF8.self) == #"prefix "a\nb""#)
        #expect(bytes.capacity >= bytes.count + 100)
        var empty: [UInt8] = []
        ByteCursor.append(to: &empty, ()) { _, out in out.literal("x") }
        #expect(empty == [UInt8(ascii: "x")])
    }

    @Test func rawWritesTakeWhatTheyReturn() {
        let bytes = ByteCursor.bytes { out in
            out.raw(upTo: 8) { at in
                at[0] = UInt8(ascii: "o")
                at[1] = UInt8(ascii: "k")
                return 2
            }
            out.literal("!")
        }
        #expect(String(decoding: bytes, as: UTF8.self) == "ok!")
    }

    @Test func stringsAndHexDigits() {
        let tag = ByteCursor.string { out in
            out.literal("\"")
            out.decimal(-7)
            out.literal("-")
            out.hex(0x0123_4567_89ab_cdef)
            out.literal("\"")
        }
        #expect(tag == "\"-7-0123456789abcdef\"")
        #expect(ByteCursor.string { $0.hex(0xA) } == "000000000000000a")
        #expect(ByteCursor.string { _ in }.isEmpty)
    }

    @Test func anEmptyBodyWritesNothing() {
        #expect(ByteCursor.bytes { _ in }.isEmpty)
        #expect(ByteCursor.bound(of: { _ in }) == 0)
    }
}
