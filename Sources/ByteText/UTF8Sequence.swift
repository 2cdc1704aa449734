/// Well-formed UTF-8 (Unicode §3.9, table 3-7; RFC 3629 §4): no overlong forms, no surrogates,
/// nothing above U+10FFFF. The one check behind the HTTP engine's decoded path segments and the
/// JSON reader's strings.
package enum UTF8Sequence {
    /// Why the bytes at an index are not a well-formed sequence.
    package enum Failure: Error, Equatable {
        /// A byte that cannot start a sequence (a continuation byte, 0xC0, 0xC1, 0xF5 and above).
        case invalidLead(UInt8)
        /// The sequence runs past the end of the bytes.
        case truncated
        /// A byte after the lead is outside the range the lead allows.
        case invalidContinuation(lead: UInt8)
    }

    /// The length (2 to 4) of the multi-byte sequence starting at `index`, whose lead byte is
    /// 0x80 or above.
    @inlinable
    package static func length(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Result<Int, Failure> {
        let lead = bytes[index]
        let length: Int
        var lowest: UInt8 = 0x80
        var highest: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            lowest = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            highest = 0x9F
        case 0xF0:
            length = 4
            lowest = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            highest = 0x8F
        default: return .failure(.invalidLead(lead))
        }
        guard index + length <= bytes.count else { return .failure(.truncated) }
        let second = bytes[index + 1]
        guard second >= lowest && second <= highest else { return .failure(.invalidContinuation(lead: lead)) }
        for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 {
            return .failure(.invalidContinuation(lead: lead))
        }
        return .success(length)
    }

    /// Whether all of `bytes` is well-formed UTF-8.
    package static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < bytes.count {
            if bytes[index] < 0x80 {
                index += 1
                continue
            }
            guard case .success(let length) = length(in: bytes, at: index) else { return false }
            index += length
        }
        return true
    }
}
