/// Every bound the parser enforces, in one place (see NIO's `NIOHTTPDecoderLimitConfiguration`).
public struct HTTPLimits: Sendable, Equatable {
    /// Longest request line, in bytes, without CRLF; longer → 414.
    public var maxRequestLineBytes: Int = 8 * 1024
    /// Largest header section (request line and fields), in bytes; larger → 431.
    public var maxHeaderBytes: Int = 16 * 1024
    /// Most header fields; more → 431.
    public var maxHeaderCount: Int = 100
    /// Largest request body, in bytes, however it is framed; larger → 413 (from the body
    /// decoder: a head announcing more is still parsed).
    public var maxBodyBytes: Int = 1024 * 1024
    /// Longest chunk-size line (size plus extensions), in bytes; longer → 400.
    public var maxChunkLineBytes: Int = 1024
    /// Largest trailer section after the last chunk, in bytes; larger → 431.
    public var maxTrailerBytes: Int = 8 * 1024

    public init() {}
}
