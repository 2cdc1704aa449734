/// The recursive-descent reader behind `StrictJSON` (RFC 8259 §2-§8). Recursion is bounded by
/// `maxDepth`; every error carries the JSON Pointer of the value being read and a byte offset.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0
    var depth = 0
    var path: [String] = []

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func parseDocument() throws(WireDecodingError) -> JSONValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw fail("a byte order mark is not allowed (RFC 8259 §8.1)")
        }
        skipWhitespace()
        guard index < bytes.count else { throw fail("empty body") }
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw unexpected("after the JSON value") }
        return value
    }

    private mutating func parseValue() throws(WireDecodingError) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw unexpected("where a value was expected")
        }
    }

    private mutating func enterContainer() throws(WireDecodingError) {
        depth += 1
        guard depth <= maxDepth else { throw fail("nesting deeper than \(maxDepth)") }
        index += 1
    }

    private mutating func parseObject() throws(WireDecodingError) -> JSONValue {
        try enterContainer()
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            guard index < bytes.count else { throw fail("unexpected end of input in an object") }
            guard bytes[index] == UInt8(ascii: "\"") else {
                throw unexpected("where a member name in double quotes was expected")
            }
            let name = try parseString()
            guard members[name] == nil else { throw fail("duplicate member '\(name)'") }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw unexpected("where ':' was expected")
            }
            index += 1
            skipWhitespace()
            path.append(name)
            members[name] = try parseValue()
            path.removeLast()
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input in an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return .object(members)
            } else {
                throw unexpected("where ',' or '}' was expected")
            }
        }
    }

    private mutating func parseArray() throws(WireDecodingError) -> JSONValue {
        try enterContainer()
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            path.append(String(elements.count))
            elements.append(try parseValue())
            path.removeLast()
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input in an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { throw fail("trailing comma") }
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return .array(elements)
            } else {
                throw unexpected("where ',' or ']' was expected")
            }
        }
    }

    /// `number = [ minus ] int [ frac ] [ exp ]` (RFC 8259 §6), kept as text.
    private mutating func parseNumber() throws(WireDecodingError) -> String {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("a digit must follow '-'") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw fail("leading zeros are not allowed") }
        } else {
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("a digit must follow '.'") }
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("a digit must follow the exponent") }
            skipDigits()
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(WireDecodingError) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw unexpected("where a value was expected") }
        let matches = literal.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[index + $0] == expected[$0] }
        }
        guard matches else { throw unexpected("where a value was expected") }
        index += count
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    func fail(_ message: String) -> WireDecodingError {
        WireDecodingError(
            kind: .invalidJSON, path: WireDecodingError.pointer(path),
            message: "\(message) (byte \(index))")
    }

    /// An error naming the unexpected byte, with a specific hint for common non-JSON syntax.
    func unexpected(_ context: String) -> WireDecodingError {
        guard index < bytes.count else { return fail("unexpected end of input") }
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "/"): return fail("comments are not allowed")
        case UInt8(ascii: "N"), UInt8(ascii: "I"): return fail("NaN and Infinity are not allowed")
        case UInt8(ascii: "'"): return fail("strings must use double quotes")
        case UInt8(ascii: "}"), UInt8(ascii: "]"): return fail("trailing comma or missing value")
        case 0x21...0x7E: return fail("unexpected '\(Character(Unicode.Scalar(byte)))' \(context)")
        default: return fail("unexpected byte 0x\(String(byte, radix: 16, uppercase: true)) \(context)")
        }
    }
}
