extension Problem {
    /// Appends the problem as compact JSON with sorted keys, byte-identical to
    /// `WireEncoder.encode(self)`; absent optional members are left out.
    /// - Parameter bytes: the buffer to append to.
    public func jsonBytes(into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        if let allowed {
            JSONBytes.appendKey("allowed", into: &bytes)
            bytes.append(UInt8(ascii: "["))
            for (i, choice) in allowed.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONBytes.appendString(choice, into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
            bytes.append(UInt8(ascii: ","))
        }
        JSONBytes.appendKey("detail", into: &bytes)
        JSONBytes.appendString(detail, into: &bytes)
        if let errors {
            bytes.append(UInt8(ascii: ","))
            JSONBytes.appendKey("errors", into: &bytes)
            bytes.append(UInt8(ascii: "["))
            for (i, error) in errors.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes.append(UInt8(ascii: "{"))
                JSONBytes.appendKey("detail", into: &bytes)
                JSONBytes.appendString(error.detail, into: &bytes)
                bytes.append(UInt8(ascii: ","))
                JSONBytes.appendKey("pointer", into: &bytes)
                JSONBytes.appendString(error.pointer, into: &bytes)
                bytes.append(UInt8(ascii: "}"))
            }
            bytes.append(UInt8(ascii: "]"))
        }
        if let instance {
            bytes.append(UInt8(ascii: ","))
            JSONBytes.appendKey("instance", into: &bytes)
            JSONBytes.appendString(instance, into: &bytes)
        }
        if let key {
            bytes.append(UInt8(ascii: ","))
            JSONBytes.appendKey("key", into: &bytes)
            JSONBytes.appendString(key, into: &bytes)
        }
        bytes.append(UInt8(ascii: ","))
        JSONBytes.appendKey("requestId", into: &bytes)
        JSONBytes.appendString(requestId, into: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONBytes.appendKey("status", into: &bytes)
        JSONBytes.appendInt(Int64(status), into: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONBytes.appendKey("title", into: &bytes)
        JSONBytes.appendString(title, into: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONBytes.appendKey("type", into: &bytes)
        JSONBytes.appendString(type, into: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }

    /// The problem as compact JSON bytes; see `jsonBytes(into:)`.
    public var jsonBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        jsonBytes(into: &bytes)
        return bytes
    }
}
