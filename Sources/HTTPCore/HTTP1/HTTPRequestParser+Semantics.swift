/// The meaning of the head's fields: authority, framing, persistence and expectations.
extension HTTPRequestParser {
    /// Builds the head from the scanned parts and applies the message rules of RFC 9112 §3.2
    /// (Host), §6 (body framing), §9.3 (persistence) and RFC 9110 §10.1.1 (Expect).
    func interpret(
        _ b: UnsafeRawBufferPointer, method: HTTPMethod, line: RequestLineScanner.Line, target: RequestTarget,
        fields: UnsafeBufferPointer<FieldLineScanner.Field>
    ) throws(HTTPParseError) -> HTTPRequestHead {
        let version = line.version
        var host: Range<Int>? = nil
        var hostCount = 0
        var contentLength: Int? = nil
        var transferEncoding = TransferCodings()
        var close = false
        var keepAliveToken = false
        var expectContinue = false
        var headers = HTTPHeaders(minimumCapacity: fields.count)
        var hostText: String? = nil
        for field in fields {
            let name = field.name
            let value = field.value
            var isHost = false
            switch name.count {
            case 4 where b.equalsLowercase(name, "host"):
                hostCount += 1
                host = value
                isHost = true
            case 14 where b.equalsLowercase(name, "content-length"):
                let length = try HTTPRequestParser.contentLength(b, value)
                if let previous = contentLength, previous != length {
                    throw .badRequest("Content-Length fields with differing values.")
                }
                contentLength = length
            case 17 where b.equalsLowercase(name, "transfer-encoding"):
                try transferEncoding.add(b, value)
            case 10 where b.equalsLowercase(name, "connection"):
                ListElements.forEach(b, value) { element in
                    if b.equalsLowercase(element, "close") { close = true }
                    if b.equalsLowercase(element, "keep-alive") { keepAliveToken = true }
                }
            case 6 where b.equalsLowercase(name, "expect"):
                var unsupported = false
                ListElements.forEach(b, value) { element in
                    if b.equalsLowercase(element, "100-continue") { expectContinue = true } else { unsupported = true }
                }
                if unsupported { throw .expectationFailed }
            default:
                break
            }
            let valueText = b.string(value)
            if isHost { hostText = valueText }  // the authority below: the same string, not a second one
            headers.add(name: b.string(name), value: valueText)
        }

        // Host: exactly one in HTTP/1.1, at most one in any version, and valid (RFC 9112 §3.2).
        if hostCount > 1 { throw .badRequest("More than one Host field.") }
        if let host { try HostValidator.validate(b, host) }
        if hostCount == 0 && version == .http1_1 { throw .badRequest("An HTTP/1.1 request without a Host field.") }

        // Framing (RFC 9112 §6.1-§6.3).
        let framing: HTTPBodyFraming
        if transferEncoding.present {
            if version == .http1_0 { throw .badRequest("Transfer-Encoding in an HTTP/1.0 request.") }
            if contentLength != nil { throw .badRequest("Both Transfer-Encoding and Content-Length.") }
            try transferEncoding.finish()
            framing = .chunked
        } else if let contentLength {
            // One over `maxBodyBytes` still makes a head: the body decoder refuses it (413), and a
            // connection refuses it before reading (`ConnectionStateMachine.headParsed`) with
            // the head at hand, whose fields (an `X-Request-Id`) its answer may use.
            framing = contentLength == 0 ? .none : .contentLength(contentLength)
        } else {
            framing = .none
        }

        let keepAlive = version == .http1_1 ? !close : (keepAliveToken && !close)
        let path: String
        if target.isAsterisk {
            path = "*"
        } else if target.path.isEmpty {
            path = "/"
        } else {
            path = b.string(target.path)
        }
        let authority: String?
        if let range = target.authority {
            authority = b.string(range)
        } else if let hostText, !hostText.isEmpty {
            authority = hostText
        } else {
            authority = nil
        }
        // An origin-form target without a query is its path: the same string, not a second copy.
        let targetText = target.path == line.target && !target.isAsterisk ? path : b.string(line.target)
        return HTTPRequestHead(
            method: method, target: targetText, path: path, query: target.query.map { b.string($0) },
            version: version, headers: headers, authority: authority, keepAlive: keepAlive, framing: framing,
            // RFC 9110 §10.1.1: a 100-continue expectation in an HTTP/1.0 request is ignored.
            expectContinue: expectContinue && version == .http1_1
        )
    }

    /// Content-Length = 1*DIGIT; a list of identical values counts as one (RFC 9110 §8.6).
    static func contentLength(_ b: UnsafeRawBufferPointer, _ range: Range<Int>) throws(HTTPParseError) -> Int {
        var result: Int? = nil
        var elementCount = 0
        var failure: HTTPParseError? = nil
        ListElements.forEach(b, range, keepEmpty: true) { element in
            guard failure == nil else { return }
            elementCount += 1
            guard !element.isEmpty else {
                failure = .badRequest("An empty Content-Length value.")
                return
            }
            var value = 0
            for i in element {
                guard ASCII.isDigit(b[i]) else {
                    failure = .badRequest("Content-Length is not a decimal number.")
                    return
                }
                let (times10, o1) = value.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(Int(b[i] - 0x30))
                guard !o1 && !o2 else {
                    failure = .badRequest("Content-Length overflows.")
                    return
                }
                value = sum
            }
            if let previous = result, previous != value {
                failure = .badRequest("Content-Length lists differing values.")
                return
            }
            result = value
        }
        if let failure { throw failure }
        guard let result, elementCount > 0 else { throw .badRequest("An empty Content-Length value.") }
        return result
    }
}
