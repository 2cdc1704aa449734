/// A small strict JSON reader for request bodies (RFC 8259, and the I-JSON restrictions of
/// RFC 7493 §2 where they matter): it rejects invalid UTF-8, a byte order mark, nesting deeper
/// than a limit, duplicate member names, bodies over a size limit, trailing data, comments,
/// trailing commas, `NaN`/`Infinity`, leading zeros, unescaped control characters and lone
/// surrogates in `\u` escapes. Numbers are kept as text.
public enum StrictJSON {
    /// Bounds on the input.
    public struct Limits: Sendable, Equatable {
        /// The largest body accepted, in bytes.
        public var maxBytes: Int
        /// The deepest nesting of arrays and objects accepted (the top-level container is 1).
        public var maxDepth: Int

        /// - Parameters:
        ///   - maxBytes: the largest body accepted (default 64 KiB).
        ///   - maxDepth: the deepest nesting accepted (default 32).
        public init(maxBytes: Int = 65_536, maxDepth: Int = 32) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
        }
    }

    /// Parses one JSON value that must fill all of `bytes` (whitespace around it allowed).
    /// - Parameters:
    ///   - bytes: the UTF-8 body.
    ///   - limits: size and nesting bounds.
    /// - Returns: the value.
    /// - Throws: `WireDecodingError` of kind `.tooLarge` or `.invalidJSON`, naming the path and
    ///   the byte offset.
    public static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(WireDecodingError) -> JSONValue {
        guard bytes.count <= limits.maxBytes else {
            throw WireDecodingError(
                kind: .tooLarge, path: "",
                message: "body of \(bytes.count) bytes is larger than the limit of \(limits.maxBytes) bytes")
        }
        var result: Result<JSONValue, WireDecodingError> = .failure(
            WireDecodingError(kind: .invalidJSON, path: "", message: "empty body"))
        bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(bytes: buffer, maxDepth: limits.maxDepth)
            do throws(WireDecodingError) {
                result = .success(try parser.parseDocument())
            } catch {
                result = .failure(error)
            }
        }
        return try result.get()
    }
}
