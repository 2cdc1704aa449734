extension Authorization {
    /// Appends the authorization as compact JSON with sorted keys, byte-identical to
    /// `WireEncoder.encode(self)`, without Foundation on the way (RFC 8259 §7 escaping).
    /// - Parameter bytes: the buffer to append to.
    public func jsonBytes(into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        JSONBytes.appendKey("app", into: &bytes)
        JSONBytes.appendString(app, into: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONBytes.appendKey("expiresAt", into: &bytes)
        JSONBytes.appendOptionalTimestamp(expiresAt, into: &bytes)
        if let level {
            bytes.append(UInt8(ascii: ","))
            JSONBytes.appendKey("level", into: &bytes)
            JSONBytes.appendString(level, into: &bytes)
        }
        bytes.append(UInt8(ascii: ","))
        JSONBytes.appendKey("once", into: &bytes)
        JSONBytes.appendBool(once, into: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONBytes.appendKey("provisional", into: &bytes)
        JSONBytes.appendBool(provisional, into: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONBytes.appendKey("purpose", into: &bytes)
        JSONBytes.appendOptionalString(purpose, into: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONBytes.appendKey("reason", into: &bytes)
        JSONBytes.appendString(reason.rawValue, into: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONBytes.appendKey("service", into: &bytes)
        JSONBytes.appendString(service, into: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONBytes.appendKey("status", into: &bytes)
        JSONBytes.appendString(status.rawValue, into: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONBytes.appendKey("updatedAt", into: &bytes)
        JSONBytes.appendTimestamp(updatedAt, into: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONBytes.appendKey("user", into: &bytes)
        JSONBytes.appendString(user, into: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONBytes.appendKey("version", into: &bytes)
        JSONBytes.appendInt(version, into: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }

    /// The authorization as compact JSON bytes; see `jsonBytes(into:)`.
    public var jsonBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(320)
        jsonBytes(into: &bytes)
        return bytes
    }
}
