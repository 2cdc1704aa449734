import ByteText
import Testing

@Suite("UTF-8 well-formedness (Unicode §3.9 table 3-7)")
struct UTF8SequenceTests {
    static func length(_ bytes: [UInt8]) -> Result<Int, UTF8Sequence.Failure> {
        bytes.withUnsafeBufferPointer { UTF8Sequence.length(in: $0, at: 0) }
    }

    @Test(
        "each row of the table's first and last well-formed sequence is accepted with its length",
        arguments: [
            ([0xC2, 0x80], 2), ([0xDF, 0xBF], 2),
            ([0xE0, 0xA0, 0x80], 3), ([0xE0, 0xBF, 0xBF], 3),
            ([0xE1, 0x80, 0x80], 3), ([0xEC, 0xBF, 0xBF], 3),
            ([0xED, 0x80, 0x80], 3), ([0xED, 0x9F, 0xBF], 3),
            ([0xEE, 0x80, 0x80], 3), ([0xEF, 0xBF, 0xBF], 3),
            ([0xF0, 0x90, 0x80, 0x80], 4), ([0xF0, 0xBF, 0xBF, 0xBF], 4),
            ([0xF1, 0x80, 0x80, 0x80], 4), ([0xF3, 0xBF, 0xBF, 0xBF], 4),
            ([0xF4, 0x80, 0x80, 0x80], 4), ([0xF4, 0x8F, 0xBF, 0xBF], 4),
        ] as [([UInt8], Int)])
    func wellFormed(bytes: [UInt8], expected: Int) {
        #expect(Self.length(bytes) == .success(expected))
        #expect(bytes.withUnsafeBufferPointer(UTF8Sequence.isValid))
    }

    @Test(
        "overlong forms, surrogates, values above U+10FFFF and stray bytes are refused, and say why",
        arguments: [
            ([0xC0, 0x80], UTF8Sequence.Failure.invalidLead(0xC0)),  // overlong NUL
            ([0xC1, 0xBF], .invalidLead(0xC1)),
            ([0x80], .invalidLead(0x80)),  // a continuation byte first
            ([0xF5, 0x80, 0x80, 0x80], .invalidLead(0xF5)),
            ([0xFF], .invalidLead(0xFF)),
            ([0xE0, 0x9F, 0xBF], .invalidContinuation(lead: 0xE0)),  // overlong three bytes
            ([0xED, 0xA0, 0x80], .invalidContinuation(lead: 0xED)),  // U+D800, a surrogate
            ([0xF0, 0x8F, 0xBF, 0xBF], .invalidContinuation(lead: 0xF0)),  // overlong four bytes
            ([0xF4, 0x90, 0x80, 0x80], .invalidContinuation(lead: 0xF4)),  // above U+10FFFF
            ([0xE1, 0x80, 0x41], .invalidContinuation(lead: 0xE1)),  // ASCII inside
            ([0xE1, 0x80], .truncated),
            ([0xF1, 0x80, 0x80], .truncated),
        ] as [([UInt8], UTF8Sequence.Failure)])
    func illFormed(bytes: [UInt8], failure: UTF8Sequence.Failure) {
        #expect(Self.length(bytes) == .failure(failure))
        #expect(!bytes.withUnsafeBufferPointer(UTF8Sequence.isValid))
    }

    @Test("a whole text agrees with Swift's own decoding on every two-byte prefix")
    func agreesWithTheStandardLibrary() {
        for first in UInt8.min...UInt8.max {
            for second in UInt8.min...UInt8.max {
                let bytes = [first, second]
                let ours = bytes.withUnsafeBufferPointer(UTF8Sequence.isValid)
                let swift = String(validating: bytes, as: UTF8.self) != nil
                #expect(ours == swift, "\(bytes)")
            }
        }
    }
}
