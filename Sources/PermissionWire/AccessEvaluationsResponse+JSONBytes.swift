extension AccessEvaluationsResponse {
    /// The answers as compact JSON with sorted keys, byte-identical to
    /// `WireEncoder.encode(self)`, without Foundation.
    public var jsonBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + evaluations.reduce(0) { $0 + $1.jsonBound + 1 })
        let open: StaticString = "{\"evaluations\":["
        open.withUTF8Buffer { bytes.append(contentsOf: $0) }
        for (index, evaluation) in evaluations.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            evaluation.jsonBytes(into: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}
