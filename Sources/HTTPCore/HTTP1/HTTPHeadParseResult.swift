/// The outcome of parsing the bytes buffered at the start of a request.
public enum HTTPHeadParseResult: Sendable, Equatable {
    /// The head is incomplete and no byte seen so far is invalid; call again with more bytes.
    case needMore
    /// The head is complete; its bytes (with any leading empty lines) are the first `consumed` bytes.
    case complete(HTTPRequestHead, consumed: Int)
    /// The request is invalid; answer with `error.status` and close the connection.
    case failure(HTTPParseError)
}
