import ByteText

extension Authorization {
    /// Appends the authorization as compact JSON with sorted keys, byte-identical to
    /// `WireEncoder.encode(self)`, without Foundation on the way (RFC 8259 §7 escaping).
    /// - Parameter bytes: the buffer to append to.
    public func jsonBytes(into bytes: inout [UInt8]) {
        // Written in place, into room measured from these very writes (see `ByteCursor`),
        // member names with their punctuation as single literals: the hot path. `self` is
        // handed to the body, not captured (a capture would copy it).
        ByteCursor.append(to: &bytes, self) { authorization, json in authorization.write(to: &json) }
    }

    /// Writes the authorization (see `jsonBytes(into:)`).
    @inline(__always)
    func write(to json: inout ByteCursor) {
        json.literal("{\"app\":")
        json.jsonString(app)
        json.literal(",\"expiresAt\":")
        json.jsonOptionalTimestamp(expiresAt)
        if let level {
            json.literal(",\"level\":")
            json.jsonString(level)
        }
        json.literal(",\"once\":")
        json.jsonBool(once)
        json.literal(",\"provisional\":")
        json.jsonBool(provisional)
        json.literal(",\"purpose\":")
        json.jsonOptionalString(purpose)
        if let purposeChanged {
            json.literal(",\"purposeChanged\":")
            json.jsonBool(purposeChanged)
        }
        if let purposeLanguage {
            json.literal(",\"purposeLanguage\":")
            json.jsonString(purposeLanguage)
        }
        json.literal(",\"reason\":")
        json.jsonString(reason.rawValue)
        json.literal(",\"service\":")
        json.jsonString(service)
        json.literal(",\"status\":")
        json.jsonString(status.rawValue)
        json.literal(",\"updatedAt\":")
        json.jsonTimestamp(updatedAt)
        json.literal(",\"user\":")
        json.jsonString(user)
        json.literal(",\"version\":")
        json.decimal(version)
        json.literal("}")
    }

    public var jsonBytes: [UInt8] {
        var bytes: [UInt8] = []
        jsonBytes(into: &bytes)  // reserves what it needs
        return bytes
    }
}
