import ByteText

extension JSONParser {
    /// Reads a string starting at its opening quote (RFC 8259 §7): validates UTF-8 (RFC 3629
    /// §4: no overlong forms, no encoded surrogates, nothing above U+10FFFF), refuses unescaped
    /// control characters, and decodes escapes, pairing `\uD8xx\uDCxx` surrogates and refusing
    /// lone ones.
    mutating func parseString() throws(WireDecodingError) -> String {
        index += 1
        let start = index
        var decoded: [UInt8]? = nil
        var runStart = index
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let tail = UnsafeBufferPointer(rebasing: bytes[runStart..<index])
                index += 1
                guard var text = decoded else {
                    return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)]), as: UTF8.self)
                }
                text.append(contentsOf: tail)
                return String(decoding: text, as: UTF8.self)
            } else if byte == UInt8(ascii: "\\") {
                var text = decoded ?? []
                text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                try readEscape(into: &text)
                decoded = text
                runStart = index
            } else if byte < 0x20 {
                throw fail("unescaped control character 0x\(String(byte, radix: 16, uppercase: true)) in a string")
            } else if byte < 0x80 {
                index += 1
            } else {
                try skipUTF8Sequence()
            }
        }
    }

    private mutating func readEscape(into text: inout [UInt8]) throws(WireDecodingError) {
        index += 1
        guard index < bytes.count else { throw fail("unterminated escape") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): text.append(0x22)
        case UInt8(ascii: "\\"): text.append(0x5C)
        case UInt8(ascii: "/"): text.append(0x2F)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try readHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw fail("lone surrogate \\u\(String(scalar, radix: 16, uppercase: true)) in a string")
                }
                index += 2
                let low = try readHex4()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw fail("lone surrogate \\u\(String(scalar, radix: 16, uppercase: true)) in a string")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw fail("lone surrogate \\u\(String(scalar, radix: 16, uppercase: true)) in a string")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape") }
            text.append(contentsOf: UTF8.encode(unicode).map { Array($0) } ?? [])
        default:
            index -= 1
            throw fail("invalid escape '\\\(Character(Unicode.Scalar(byte)))'")
        }
    }

    private mutating func readHex4() throws(WireDecodingError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("\\u needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw fail("\\u needs four hex digits")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// Steps over one multi-byte UTF-8 sequence at `index` (lead byte >= 0x80), per the
    /// well-formed byte sequences table of Unicode §3.9 / RFC 3629 §4 (``UTF8Sequence``).
    private mutating func skipUTF8Sequence() throws(WireDecodingError) {
        switch UTF8Sequence.length(in: bytes, at: index) {
        case .success(let length):
            index += length
        case .failure(.invalidLead(let lead)):
            throw fail("invalid UTF-8 byte 0x\(String(lead, radix: 16, uppercase: true))")
        case .failure(.truncated):
            throw fail("truncated UTF-8 sequence")
        case .failure(.invalidContinuation(let lead)):
            throw fail("invalid UTF-8 sequence starting with 0x\(String(lead, radix: 16, uppercase: true))")
        }
    }
}
