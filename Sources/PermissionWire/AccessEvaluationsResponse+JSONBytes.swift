import ByteText

extension AccessEvaluationsResponse {
    /// The answers as compact JSON with sorted keys, byte-identical to
    /// `WireEncoder.encode(self)`, without Foundation.
    public var jsonBytes: [UInt8] {
        ByteCursor.bytes { json in
            json.literal("{\"evaluations\":[")
            for (index, evaluation) in evaluations.enumerated() {
                if index > 0 { json.literal(",") }
                evaluation.write(to: &json)
            }
            json.literal("]}")
        }
    }
}
