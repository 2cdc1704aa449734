import HTTPCore

/// The bytes of a request written as a string literal (`\r\n` spelled out).
func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

/// What parsing a whole request (head, then body) gives: the head, body and trailers, or the error.
struct ParsedRequest: Equatable {
    var head: HTTPRequestHead
    var body: [UInt8]
    var trailers: HTTPHeaders
    /// Bytes of the request, head and body, so the next request starts right after.
    var consumed: Int
}

enum ParseOutcome: Equatable {
    case needMore
    case request(ParsedRequest)
    case failure(HTTPParseError)

    var status: Int? {
        if case .failure(let error) = self { return error.status.code }
        return nil
    }
}

/// Parses the head in `input`, then decodes the body from the bytes after it, all in one call each.
func parseRequest(_ input: [UInt8], limits: HTTPLimits = HTTPLimits()) -> ParseOutcome {
    let parser = HTTPRequestParser(limits: limits)
    switch parser.parseHead(input) {
    case .needMore:
        return .needMore
    case .failure(let error):
        return .failure(error)
    case .complete(let head, let consumed):
        var decoder = HTTPBodyDecoder(framing: head.framing, limits: limits)
        var body: [UInt8] = []
        do {
            let (n, complete) = try decoder.decode(Array(input[consumed...]), into: &body)
            guard complete else { return .needMore }
            return .request(ParsedRequest(head: head, body: body, trailers: decoder.trailers, consumed: consumed + n))
        } catch {
            return .failure(error)
        }
    }
}

/// Feeds `input` the way a connection would when the bytes arrive in the pieces `cuts` makes:
/// the head parser sees everything buffered so far, the decoder sees each new piece.
func parseRequestIncrementally(_ input: [UInt8], cuts: [Int], limits: HTTPLimits = HTTPLimits()) -> ParseOutcome {
    let parser = HTTPRequestParser(limits: limits)
    var buffered: [UInt8] = []
    var decoder: HTTPBodyDecoder? = nil
    var head: HTTPRequestHead? = nil
    var headBytes = 0
    var bodyConsumed = 0
    var body: [UInt8] = []
    var start = 0
    for end in cuts + [input.count] {
        var piece = Array(input[start..<end])
        start = end
        if decoder == nil {
            buffered += piece
            switch parser.parseHead(buffered) {
            case .needMore: continue
            case .failure(let error): return .failure(error)
            case .complete(let parsed, let consumed):
                head = parsed
                headBytes = consumed
                decoder = HTTPBodyDecoder(framing: parsed.framing, limits: limits)
                piece = Array(buffered[consumed...])
            }
        }
        guard var current = decoder, let head else { continue }
        do {
            let (n, complete) = try current.decode(piece, into: &body)
            decoder = current
            bodyConsumed += n
            if complete {
                return .request(
                    ParsedRequest(head: head, body: body, trailers: current.trailers, consumed: headBytes + bodyConsumed))
            }
        } catch {
            return .failure(error)
        }
    }
    return .needMore
}
