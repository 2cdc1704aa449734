extension Authorization {
    /// Appends the authorization as compact JSON with sorted keys, byte-identical to
    /// `WireEncoder.encode(self)`, without Foundation on the way (RFC 8259 §7 escaping).
    /// - Parameter bytes: the buffer to append to.
    public func jsonBytes(into bytes: inout [UInt8]) {
        // Written into memory reserved for the longest this record can be (every string fully
        // escaped), member names with their punctuation as single literals: the hot path.
        let strings =
            JSONWriter.bound(of: app) + JSONWriter.bound(of: level) + JSONWriter.bound(of: purpose)
            + JSONWriter.bound(of: purposeLanguage)
            + JSONWriter.bound(of: reason.rawValue) + JSONWriter.bound(of: service)
            + JSONWriter.bound(of: status.rawValue) + JSONWriter.bound(of: user)
        let bound = 205 + strings + 2 * JSONWriter.timestampBound + JSONWriter.intBound
        JSONWriter.write(into: &bytes, bound: bound) { json in
            json.literal("{\"app\":")
            json.string(app)
            json.literal(",\"expiresAt\":")
            json.optionalTimestamp(expiresAt)
            if let level {
                json.literal(",\"level\":")
                json.string(level)
            }
            json.literal(",\"once\":")
            json.bool(once)
            json.literal(",\"provisional\":")
            json.bool(provisional)
            json.literal(",\"purpose\":")
            json.optionalString(purpose)
            if let purposeChanged {
                json.literal(",\"purposeChanged\":")
                json.bool(purposeChanged)
            }
            if let purposeLanguage {
                json.literal(",\"purposeLanguage\":")
                json.string(purposeLanguage)
            }
            json.literal(",\"reason\":")
            json.string(reason.rawValue)
            json.literal(",\"service\":")
            json.string(service)
            json.literal(",\"status\":")
            json.string(status.rawValue)
            json.literal(",\"updatedAt\":")
            json.timestamp(updatedAt)
            json.literal(",\"user\":")
            json.string(user)
            json.literal(",\"version\":")
            json.int(version)
            json.literal("}")
        }
    }

    public var jsonBytes: [UInt8] {
        var bytes: [UInt8] = []
        jsonBytes(into: &bytes)  // reserves what it needs
        return bytes
    }
}
