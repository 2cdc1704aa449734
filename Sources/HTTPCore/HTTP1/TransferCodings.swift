/// Accumulates the transfer codings of every Transfer-Encoding line of a request, in order, and
/// decides whether the body can be read (RFC 9112 §6.1, §6.3, §7).
struct TransferCodings {
    /// A Transfer-Encoding field was present.
    private(set) var present = false
    private var elementCount = 0
    private var chunkedSeen = false
    /// The first coding before `chunked` (which the server does not implement).
    private var unsupported: String? = nil
    private var failure: HTTPParseError? = nil

    /// Adds the codings of one field line.
    mutating func add(_ b: UnsafeRawBufferPointer, _ value: Range<Int>) throws(HTTPParseError) {
        present = true
        ListElements.forEach(b, value) { element in
            guard failure == nil else { return }
            elementCount += 1
            addElement(b, element)
        }
        if let failure { throw failure }
    }

    /// Checks the list once every line is in: it must end in exactly one `chunked`.
    func finish() throws(HTTPParseError) {
        if let failure { throw failure }
        if elementCount == 0 { throw .badRequest("An empty Transfer-Encoding.") }
        if !chunkedSeen { throw .badRequest("The final transfer coding is not chunked (RFC 9112 §6.3).") }
        if let unsupported { throw .notImplemented(unsupported) }
    }

    /// transfer-coding = token *( OWS ";" OWS token "=" token ); quoted parameter values are not accepted.
    private mutating func addElement(_ b: UnsafeRawBufferPointer, _ element: Range<Int>) {
        var i = element.lowerBound
        while i < element.upperBound && ASCII.isTchar(b[i]) { i += 1 }
        let name = element.lowerBound..<i
        guard !name.isEmpty else {
            failure = .badRequest("Invalid Transfer-Encoding.")
            return
        }
        let hasParameters = i < element.upperBound
        if hasParameters && !validParameters(b, i..<element.upperBound) {
            failure = .badRequest("Invalid Transfer-Encoding.")
            return
        }
        if chunkedSeen {
            failure = .badRequest(
                b.equalsLowercase(name, "chunked")
                    ? "chunked applied more than once (RFC 9112 §6.1)."
                    : "The final transfer coding is not chunked (RFC 9112 §6.3).")
            return
        }
        if b.equalsLowercase(name, "chunked") {
            if hasParameters {
                failure = .badRequest("chunked takes no parameters.")
                return
            }
            chunkedSeen = true
        } else if unsupported == nil {
            unsupported = b.string(name).lowercased()
        }
    }

    private func validParameters(_ b: UnsafeRawBufferPointer, _ range: Range<Int>) -> Bool {
        var i = range.lowerBound
        let end = range.upperBound
        while i < end {
            while i < end && ASCII.isWhitespace(b[i]) { i += 1 }
            guard i < end, b[i] == ASCII.semicolon else { return false }
            i += 1
            while i < end && ASCII.isWhitespace(b[i]) { i += 1 }
            let nameStart = i
            while i < end && ASCII.isTchar(b[i]) { i += 1 }
            guard i > nameStart, i < end, b[i] == ASCII.equals else { return false }
            i += 1
            let valueStart = i
            while i < end && ASCII.isTchar(b[i]) { i += 1 }
            guard i > valueStart else { return false }
        }
        return true
    }
}
