import Foundation
import PermissionWire

/// Reads a user's export document (openapi.yaml `UserExport`, one JSON object) as it streams
/// past, without keeping it: whether it is complete (its outermost object closed, nothing but
/// white space after it: a body cut anywhere never closes it), and what the summary of
/// `users export --output` prints: `user`, the number of elements of `consentRecords`,
/// `prompts` and `audit`, and `head`. It follows strings, escapes and nesting (RFC 8259), and
/// leaves the full check of the document to `scripts/verify-export.py`.
struct ExportScanner {
    /// The arrays whose elements are counted.
    static let countedMembers: Set<String> = ["consentRecords", "prompts", "audit"]
    /// The longest `head` object (a seq and a hash) and `user` string kept.
    static let maxCapturedBytes = 4096

    /// Elements of each member of `countedMembers` seen.
    private(set) var counts: [String: Int] = [:]
    private var userBytes: [UInt8] = []
    private var headBytes: [UInt8] = []
    private var sawUser = false
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var started = false
    private var closed = false
    private var malformed = false
    /// At depth 1: the next string is a member name.
    private var expectingKey = false
    private var key: [UInt8] = []
    /// The member of the outermost object whose value is being read.
    private var member = ""
    private enum Capture { case none, key, user, head }
    private var capture = Capture.none
    /// Inside a counted array (depth 2): the member, and whether an element may start next.
    private var countedArray: String?
    private var awaitingElement = false

    /// Whether the document is one closed JSON object with only white space after it.
    var isComplete: Bool { started && closed && !malformed }

    /// The `user` member, when it was a string.
    var user: String? {
        guard sawUser else { return nil }
        return try? JSONDecoder().decode(String.self, from: Data([0x22] + userBytes + [0x22]))
    }

    /// The `head` member, when it was a chain head.
    var head: UserExport.Head? {
        guard !headBytes.isEmpty else { return nil }
        return try? WireDecoder.decodeResponse(UserExport.Head.self, from: headBytes)
    }

    /// Consumes the next bytes of the document.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes where !malformed { consume(byte) }
    }

    private mutating func consume(_ byte: UInt8) {
        let isSpace = byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
        if closed {
            if !isSpace { malformed = true }
            return
        }
        if inString {
            readString(byte)
            return
        }
        if isSpace {
            if capture == .head { keep(byte) }
            return
        }
        guard started else {
            started = byte == UInt8(ascii: "{")
            malformed = !started
            depth = 1
            expectingKey = true
            return
        }
        if let countedArray, depth == 2, awaitingElement, byte != UInt8(ascii: "]") {
            counts[countedArray, default: 0] += 1
            awaitingElement = false
        }
        if capture == .head { keep(byte) }
        switch byte {
        case UInt8(ascii: "\""):
            inString = true
            if depth == 1, expectingKey {
                capture = .key
                key.removeAll(keepingCapacity: true)
            } else if depth == 1, member == "user" {
                capture = .user
                sawUser = true
                userBytes = []
            }
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            depth += 1
            guard depth == 2 else { return }
            if byte == UInt8(ascii: "["), Self.countedMembers.contains(member) {
                countedArray = member
                awaitingElement = true
                counts[member] = 0
            } else if byte == UInt8(ascii: "{"), member == "head" {
                capture = .head
                headBytes = [byte]
            }
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            depth -= 1
            if depth == 1 {
                countedArray = nil
                if capture == .head { capture = .none }
            }
            if depth == 0 { closed = true }
            if depth < 0 { malformed = true }
        case UInt8(ascii: ","):
            if depth == 1 { expectingKey = true }
            if depth == 2, countedArray != nil { awaitingElement = true }
        case UInt8(ascii: ":"):
            if depth == 1 { expectingKey = false }
        default:
            break
        }
    }

    private mutating func readString(_ byte: UInt8) {
        let ends = !escaped && byte == UInt8(ascii: "\"")
        if escaped {
            escaped = false
        } else if byte == UInt8(ascii: "\\") {
            escaped = true
        }
        if ends {
            inString = false
            switch capture {
            case .key:
                member = String(decoding: key, as: UTF8.self)
                capture = .none
            case .user:
                capture = .none
            case .head:
                keep(byte)
            case .none:
                break
            }
        } else {
            keep(byte)
        }
    }

    /// Keeps `byte` in the buffer of what is being captured, if anything; past
    /// `maxCapturedBytes` the document is malformed.
    private mutating func keep(_ byte: UInt8) {
        let kept: Bool
        switch capture {
        case .key: kept = Self.append(byte, to: &key)
        case .user: kept = Self.append(byte, to: &userBytes)
        case .head: kept = Self.append(byte, to: &headBytes)
        case .none: kept = true
        }
        if !kept { malformed = true }
    }

    /// Appends `byte` to `bytes`, or marks the document malformed past `maxCapturedBytes`.
    private static func append(_ byte: UInt8, to bytes: inout [UInt8]) -> Bool {
        guard bytes.count < maxCapturedBytes else { return false }
        bytes.append(byte)
        return true
    }
}
