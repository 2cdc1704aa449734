/// Character-class checks shared by the validating initialisers of the identifiers (SPEC §1).
/// ASCII only, byte-wise, so that validation on the hot path never allocates.
enum IdentifierSyntax {
    /// `A-Z a-z 0-9`.
    @inline(__always)
    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    /// `a-z`.
    @inline(__always)
    static func isLowercase(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }

    /// `check` over the UTF-8 of `text`, in place when the string is contiguous (a native one,
    /// the usual case): validating ids runs on every request, and walking a `String.UTF8View`
    /// byte by byte costs several times more than walking a buffer.
    @inline(__always)
    static func bytes(of text: String, _ check: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        if let result = text.utf8.withContiguousStorageIfAvailable(check) { return result }
        return Array(text.utf8).withUnsafeBufferPointer(check)
    }

    /// lowerCamel: `^[a-z][A-Za-z0-9]{0,63}$`, the syntax of service ids and level names.
    static func isLowerCamel(_ text: String) -> Bool {
        bytes(of: text) { isLowerCamel(utf8: $0) }
    }

    private static func isLowerCamel(utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        var count = 0
        for byte in utf8 {
            if count == 0 {
                guard isLowercase(byte) else { return false }
            } else {
                guard isAlphanumeric(byte) else { return false }
            }
            count += 1
            if count > 64 { return false }
        }
        return count > 0
    }

    /// Whether a Unicode scalar is a control character (general category Cc: C0, DEL, C1).
    @inline(__always)
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value <= 0x9F)
    }

    /// Text of `1...maxCount` characters (extended grapheme clusters) without control characters.
    static func isDisplayText(_ text: String, maxCount: Int) -> Bool {
        if text.isEmpty { return false }
        for scalar in text.unicodeScalars where isControl(scalar) { return false }
        // Counting characters is linear; bound it by the UTF-8 size first.
        if text.utf8.count <= maxCount { return true }
        return text.count <= maxCount
    }
}
