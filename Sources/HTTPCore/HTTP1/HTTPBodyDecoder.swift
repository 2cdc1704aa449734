/// Reads a request body framed by Content-Length or the chunked transfer coding (RFC 9112 §6.3, §7.1),
/// incrementally: any split of the input gives the same content, trailers and errors.
///
/// Chunk-size lines and trailer lines split across reads are kept in a small bounded buffer, so
/// every byte given is consumed except those after the end of the body (the next request's).
public struct HTTPBodyDecoder: Sendable {
    enum State: Sendable, Equatable {
        case fixed(remaining: Int)
        case chunkLine
        case data(remaining: Int)
        case dataCR
        case dataLF
        case trailerLine
        case done
        case failed(HTTPParseError)
    }

    let limits: HTTPLimits
    var state: State
    /// The current chunk-size or trailer line, up to and including its LF.
    var line: [UInt8] = []
    /// Content bytes produced so far.
    public private(set) var decodedCount = 0
    /// Content bytes announced by the chunk sizes read so far (checked against `maxBodyBytes`).
    var announcedCount = 0
    /// Bytes of the chunk-size lines read so far (sizes and extensions, with their CRLFs).
    var chunkLineBytes = 0
    var trailerBytes = 0
    /// The chunk-size lines' bytes a body may spend beyond ``chunkLineBytesPerContentByte`` for
    /// each byte of content its sizes announce.
    static let chunkLineAllowance = 4096
    /// Each line is bounded (`maxChunkLineBytes`), but not their sum: without a bound on it, a
    /// client could make the server read and parse a thousand bytes of extensions for each
    /// byte of content (as Go's CVE-2023-39326). Sizes with short extensions stay far below.
    static let chunkLineBytesPerContentByte = 16
    /// The trailer fields after the last chunk (RFC 9112 §7.1.2), kept apart from the header fields.
    public private(set) var trailers = HTTPHeaders()

    /// - Parameters:
    ///   - framing: the framing the head announced.
    ///   - limits: `maxBodyBytes`, `maxChunkLineBytes` and `maxTrailerBytes` apply.
    public init(framing: HTTPBodyFraming, limits: HTTPLimits) {
        self.limits = limits
        switch framing {
        case .none:
            state = .done
        case .contentLength(let length):
            if length < 0 {
                state = .failed(.badRequest("Negative Content-Length."))
            } else if length > limits.maxBodyBytes {
                state = .failed(.contentTooLarge)
            } else {
                state = length == 0 ? .done : .fixed(remaining: length)
            }
        case .chunked:
            state = .chunkLine
        }
    }

    /// Whether the whole body, with its trailers, has been read.
    public var isComplete: Bool { state == .done }

    /// Consumes body bytes from the front of `bytes`, appending content to `body`.
    /// - Parameters:
    ///   - bytes: bytes received after the head (or after what earlier calls consumed).
    ///   - body: where the decoded content is appended.
    /// - Returns: how many bytes were consumed, and whether the body (with trailers) is complete;
    ///   once complete, the bytes after `consumed` belong to the next request.
    /// - Throws: `badRequest` for malformed chunking, `contentTooLarge` (413) past `maxBodyBytes`,
    ///   `headerFieldsTooLarge` (431) for trailers past `maxTrailerBytes`. The error repeats on later calls.
    public mutating func decode(
        _ bytes: UnsafeRawBufferPointer, into body: inout [UInt8]
    ) throws(HTTPParseError) -> (consumed: Int, complete: Bool) {
        do {
            return try step(bytes, into: &body)
        } catch {
            state = .failed(error)
            throw error
        }
    }

    /// Decodes from a byte array (a convenience for tests and tools).
    public mutating func decode(
        _ bytes: [UInt8], into body: inout [UInt8]
    ) throws(HTTPParseError) -> (consumed: Int, complete: Bool) {
        // `withUnsafeBytes` rethrows untyped errors, so carry the typed one out in a Result.
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(HTTPParseError) -> (consumed: Int, complete: Bool) in try decode(raw, into: &body) }
        }
        return try result.get()
    }

    private mutating func step(
        _ b: UnsafeRawBufferPointer, into body: inout [UInt8]
    ) throws(HTTPParseError) -> (consumed: Int, complete: Bool) {
        var i = 0
        while true {
            switch state {
            case .done:
                return (i, true)
            case .failed(let error):
                throw error
            case .fixed(let remaining):
                let n = min(remaining, b.count - i)
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[i..<(i + n)]))
                i += n
                decodedCount += n
                state = remaining == n ? .done : .fixed(remaining: remaining - n)
                if remaining != n { return (i, false) }
            case .data(let remaining):
                if i == b.count { return (i, false) }
                let n = min(remaining, b.count - i)
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[i..<(i + n)]))
                i += n
                decodedCount += n
                state = remaining == n ? .dataCR : .data(remaining: remaining - n)
            case .dataCR, .dataLF:
                if i == b.count { return (i, false) }
                let expected = state == .dataCR ? ASCII.cr : ASCII.lf
                guard b[i] == expected else { throw .badRequest("Chunk data not followed by CRLF.") }
                i += 1
                state = state == .dataCR ? .dataLF : .chunkLine
            case .chunkLine:
                let lineLimit = limits.maxChunkLineBytes > Int.max - 2 ? Int.max : max(0, limits.maxChunkLineBytes) + 2
                guard try takeLine(b, &i, limit: lineLimit, tooLong: .badRequest("Chunk-size line too long.")) else {
                    return (i, false)
                }
                let size = try ChunkLine.size(line)
                chunkLineBytes += line.count
                line.removeAll(keepingCapacity: true)
                if size == 0 {
                    state = .trailerLine
                } else {
                    guard size <= limits.maxBodyBytes - announcedCount else { throw .contentTooLarge }
                    announcedCount += size
                    state = .data(remaining: size)
                }
                guard max(0, chunkLineBytes - Self.chunkLineAllowance) / Self.chunkLineBytesPerContentByte <= announcedCount
                else { throw .badRequest("Chunk-size lines too long for the content they announce.") }
            case .trailerLine:
                let budget = max(0, limits.maxTrailerBytes - trailerBytes)
                guard try takeLine(b, &i, limit: budget, tooLong: .headerFieldsTooLarge) else { return (i, false) }
                trailerBytes += line.count
                try takeTrailer()
                line.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Moves bytes up to and including the next LF into `line`.
    /// - Returns: true when `line` holds a whole line; false when `b` ended first.
    /// - Throws: `tooLong` once `line` reaches `limit` bytes without a LF.
    private mutating func takeLine(
        _ b: UnsafeRawBufferPointer, _ i: inout Int, limit: Int, tooLong: HTTPParseError
    ) throws(HTTPParseError) -> Bool {
        let room = limit - line.count
        let end = room >= b.count - i ? b.count : i + room
        var j = i
        while j < end && b[j] != ASCII.lf { j += 1 }
        if j < end {
            line.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[i...j]))
            i = j + 1
            return true
        }
        line.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[i..<end]))
        i = end
        if line.count >= limit { throw tooLong }
        return false
    }

    /// Checks the trailer line in `line` with the header field rules; the empty line ends the body.
    private mutating func takeTrailer() throws(HTTPParseError) {
        let result = line.withUnsafeBytes { b in
            Result { () throws(ScanStop) -> FieldLineScanner.Result in try FieldLineScanner.scan(b, from: 0, cap: Int.max) }
        }
        let scanned: FieldLineScanner.Result
        switch result {
        case .success(let value): scanned = value
        case .failure(.failure(let failure)): throw failure
        case .failure(.needMore): throw .badRequest("Bare LF as a line ending.")
        }
        switch scanned {
        case .end(let next):
            guard next == line.count else { throw .badRequest("Malformed trailer section.") }
            state = .done
        case .field(let field, let next):
            guard next == line.count else { throw .badRequest("Malformed trailer field.") }
            line.withUnsafeBytes { b in trailers.add(name: b.string(field.name), value: b.string(field.value)) }
        }
    }
}
