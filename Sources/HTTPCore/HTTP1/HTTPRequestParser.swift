/// A pure, bounded parser of HTTP/1.1 request heads (RFC 9112 §2-§7, RFC 9110).
///
/// It is stateless: the caller passes everything buffered since the previous request ended, again
/// after more bytes arrive. Bytes are checked in order, so the first offending byte decides the
/// error however the input was split; `needMore` means no byte so far is invalid. Strings are built
/// only for the parts kept, once the head is complete.
public struct HTTPRequestParser: Sendable {
    public let limits: HTTPLimits

    public init(limits: HTTPLimits) {
        self.limits = limits
    }

    /// Parses the request head at the start of `bytes`.
    /// - Parameter bytes: everything buffered since the previous request on the connection ended.
    /// - Returns: `needMore`, the complete head with the number of bytes it took, or the error to answer.
    public func parseHead(_ bytes: UnsafeRawBufferPointer) -> HTTPHeadParseResult {
        do {
            let (head, consumed) = try scanHead(bytes)
            return .complete(head, consumed: consumed)
        } catch {
            switch error {
            case .needMore: return .needMore
            case .failure(let failure): return .failure(failure)
            }
        }
    }

    /// Parses the request head in a byte array (a convenience for tests and tools).
    public func parseHead(_ bytes: [UInt8]) -> HTTPHeadParseResult {
        bytes.withUnsafeBytes { parseHead($0) }
    }

    private func scanHead(_ b: UnsafeRawBufferPointer) throws(ScanStop) -> (HTTPRequestHead, Int) {
        let headCap = max(0, limits.maxHeaderBytes)
        let count = b.count
        var i = 0
        // RFC 9112 §2.2: ignore empty lines before the request line (they count toward the head size).
        while true {
            if i >= headCap { throw .failure(.headerFieldsTooLarge) }
            if i >= count { throw .needMore }
            if b[i] == ASCII.lf { throw .failure(.badRequest("Bare LF as a line ending.")) }
            if b[i] != ASCII.cr { break }
            if i + 1 >= headCap { throw .failure(.headerFieldsTooLarge) }
            if i + 1 >= count { throw .needMore }
            guard b[i + 1] == ASCII.lf else { throw .failure(.badRequest("Bare CR before the request line.")) }
            i += 2
        }
        let lineCap = i + min(max(0, limits.maxRequestLineBytes), Int.max - i)
        let line = try RequestLineScanner.scan(b, from: i, lineCap: lineCap, headCap: headCap)
        let method = HTTPRequestParser.method(b, line.method)
        let target: RequestTarget
        do {
            target = try RequestTarget.parse(b, line.target, isOptions: method == .options)
        } catch {
            throw .failure(error)
        }
        // The field ranges live only until `interpret` has made the headers: temporary memory on
        // the stack (Swift's limit for that on Linux is 1 KiB, 32 fields), not an array allocated
        // per request; a head with more fields is scanned again into memory for all it may have.
        let maxFields = max(0, limits.maxHeaderCount)
        let onStack = min(maxFields, 32)
        let small = try withUnsafeTemporaryAllocation(of: FieldLineScanner.Field.self, capacity: onStack) {
            fields throws(ScanStop) in
            try fieldsAndInterpret(b, method: method, line: line, target: target, into: fields, maxFields: maxFields)
        }
        if let small { return small }
        return try withUnsafeTemporaryAllocation(of: FieldLineScanner.Field.self, capacity: maxFields) {
            fields throws(ScanStop) in
            // Room for `maxFields`, so it never comes back nil.
            try fieldsAndInterpret(b, method: method, line: line, target: target, into: fields, maxFields: maxFields)!
        }
    }

    /// Scans the field lines into `fields`, then builds the head; nil when `fields` fills up
    /// before the field section ends and the limit allows more.
    private func fieldsAndInterpret(
        _ b: UnsafeRawBufferPointer, method: HTTPMethod, line: RequestLineScanner.Line, target: RequestTarget,
        into fields: UnsafeMutableBufferPointer<FieldLineScanner.Field>, maxFields: Int
    ) throws(ScanStop) -> (HTTPRequestHead, Int)? {
        let headCap = max(0, limits.maxHeaderBytes)
        var count = 0
        var j = line.next
        scanning: while true {
            switch try FieldLineScanner.scan(b, from: j, cap: headCap) {
            case .field(let field, let next):
                if count >= maxFields { throw .failure(.headerFieldsTooLarge) }
                if count == fields.count { return nil }
                fields.initializeElement(at: count, to: field)  // ranges: nothing to deinitialize
                count += 1
                j = next
            case .end(let next):
                j = next
                break scanning
            }
        }
        do throws(HTTPParseError) {
            let scanned = UnsafeBufferPointer(rebasing: fields[..<count])
            return (try interpret(b, method: method, line: line, target: target, fields: scanned), j)
        } catch {
            throw .failure(error)
        }
    }

    /// The method of a request whose head was refused (or never completed), when its request
    /// line got that far: the token ended by the first SP after any leading empty lines
    /// (RFC 9112 §3). An answer to a `HEAD` then goes without content (RFC 9110 §9.3.2).
    /// - Parameter bytes: what was buffered of the head.
    /// - Returns: the method, or nil when the bytes do not begin with a method and a space.
    public static func method(ofRefusedHead bytes: UnsafeRawBufferPointer) -> HTTPMethod? {
        var i = 0
        while i + 1 < bytes.count, bytes[i] == ASCII.cr, bytes[i + 1] == ASCII.lf { i += 2 }
        let start = i
        while i < bytes.count, ASCII.isTchar(bytes[i]) { i += 1 }
        guard i > start, i < bytes.count, bytes[i] == ASCII.sp else { return nil }
        return method(bytes, start..<i)
    }

    /// The path of a request whose head was refused (or never completed), as far as its request
    /// line got: the target after the method and its SP (an absolute-form target's after its
    /// scheme and authority), up to `?`, SP, CR or LF, or to the end of what was buffered (so a
    /// target cut short, a `414`'s, gives its beginning). Enough to tell which part of a site a
    /// refused request was for.
    /// - Parameter bytes: what was buffered of the head.
    /// - Returns: the path or its beginning, or nil when no method, SP and a path begin the bytes.
    public static func path(ofRefusedHead bytes: UnsafeRawBufferPointer) -> String? {
        var i = 0
        while i + 1 < bytes.count, bytes[i] == ASCII.cr, bytes[i + 1] == ASCII.lf { i += 2 }
        let methodStart = i
        while i < bytes.count, ASCII.isTchar(bytes[i]) { i += 1 }
        guard i > methodStart, i + 1 < bytes.count, bytes[i] == ASCII.sp else { return nil }
        i += 1
        // absolute-form (RFC 9112 §3.2.2): "http://" or "https://", then the authority.
        for scheme in ["http://", "https://"] where i + scheme.utf8.count <= bytes.count {
            let prefix = UnsafeRawBufferPointer(rebasing: bytes[i..<(i + scheme.utf8.count)])
            if prefix.elementsEqual(scheme.utf8, by: { ASCII.lower($0) == $1 }) {
                i += scheme.utf8.count
                while i < bytes.count, bytes[i] != ASCII.slash, bytes[i] != ASCII.question, bytes[i] != ASCII.sp {
                    i += 1
                }
                break
            }
        }
        guard i < bytes.count, bytes[i] == ASCII.slash else { return nil }
        let start = i
        var end = start
        while end < bytes.count, end - start < 1024 {
            let byte = bytes[end]
            if byte == UInt8(ascii: "?") || byte == ASCII.sp || byte == ASCII.cr || byte == ASCII.lf { break }
            end += 1
        }
        return bytes.string(start..<end)
    }

    /// The method as a value, reusing the constants for the common ones.
    private static func method(_ b: UnsafeRawBufferPointer, _ range: Range<Int>) -> HTTPMethod {
        switch range.count {
        case 3 where b[range.lowerBound] == 0x47 && b[range.lowerBound + 1] == 0x45 && b[range.lowerBound + 2] == 0x54:
            return .get
        default:
            return HTTPMethod(rawValue: b.string(range))
        }
    }
}
