import ByteText

extension AccessEvaluationResponse {
    /// Appends the answer as compact JSON with sorted keys, byte-identical to
    /// `WireEncoder.encode(self)`, without Foundation (the evaluation is a hot path).
    /// - Parameter bytes: the buffer to append to.
    public func jsonBytes(into bytes: inout [UInt8]) {
        ByteCursor.append(to: &bytes, self) { answer, json in answer.write(to: &json) }
    }

    /// Writes the answer (see `jsonBytes(into:)`).
    @inline(__always)
    func write(to json: inout ByteCursor) {
        if let context {
            json.literal("{\"context\":{\"level\":")
            json.jsonOptionalString(context.level)
            json.literal(",\"prompt_required\":")
            json.jsonBool(context.promptRequired)
            json.literal(",\"reason\":")
            json.jsonString(context.reason)
            json.literal(",\"status\":")
            json.jsonString(context.status)
            json.literal("},\"decision\":")
        } else {
            json.literal("{\"decision\":")
        }
        json.jsonBool(decision)
        json.literal("}")
    }

    public var jsonBytes: [UInt8] {
        var bytes: [UInt8] = []
        jsonBytes(into: &bytes)
        return bytes
    }
}
