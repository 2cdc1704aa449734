extension AccessEvaluationResponse {
    /// The most `jsonBytes(into:)` writes for this answer.
    var jsonBound: Int {
        guard let context else { return 20 }
        return 100 + JSONWriter.bound(of: context.status) + JSONWriter.bound(of: context.reason)
            + JSONWriter.bound(of: context.level)
    }

    /// Appends the answer as compact JSON with sorted keys, byte-identical to
    /// `WireEncoder.encode(self)`, without Foundation (the evaluation is a hot path).
    /// - Parameter bytes: the buffer to append to.
    public func jsonBytes(into bytes: inout [UInt8]) {
        JSONWriter.write(into: &bytes, bound: jsonBound) { json in
            if let context {
                json.literal("{\"context\":{\"level\":")
                json.optionalString(context.level)
                json.literal(",\"prompt_required\":")
                json.bool(context.promptRequired)
                json.literal(",\"reason\":")
                json.string(context.reason)
                json.literal(",\"status\":")
                json.string(context.status)
                json.literal("},\"decision\":")
            } else {
                json.literal("{\"decision\":")
            }
            json.bool(decision)
            json.literal("}")
        }
    }

    public var jsonBytes: [UInt8] {
        var bytes: [UInt8] = []
        jsonBytes(into: &bytes)
        return bytes
    }
}
