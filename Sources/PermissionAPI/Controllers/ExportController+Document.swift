import HTTPCore
import PermissionDomain
import PermissionWire

/// The export document written as it is read: the bytes `WireEncoder` gives for the whole
/// ``PermissionWire/UserExport`` (compact, its members in the encoder's sorted order), without
/// the whole ever being in memory. Each listing is encoded a page at a time (a JSON array of
/// the page, brackets dropped) and written and flushed before its next page is read, so the
/// writer blocks on a slow client rather than the export reading ahead of it.
extension ExportController {
    /// Writes the document of `export` to `writer`.
    /// - Parameter publicURL: the base of the consent page named as the way to withdraw.
    /// - Throws: the writer's errors (the client left, or stopped reading for the write
    ///   timeout); the export's (the store's); either leaves the document unfinished.
    static func writeDocument(
        _ export: PermissionDomain.UserExport, publicURL: String, to writer: any HTTPBodyWriter
    ) throws {
        var out = DocumentOutput(writer: writer)
        // The members in the order of `.sortedKeys` (`audit` sorts before `auditEncoding`).
        out.literal(#"{"audit":"#)
        try out.list(export.audit, WireMapping.auditItem)
        out.literal(#","auditEncoding":"#)
        try out.value(WireMapping.auditEncoding)
        out.literal(#","consentRecords":"#)
        try out.list(export.records) { WireMapping.consentRecord($0, publicURL: publicURL) }
        out.literal(#","exportedAt":"#)
        try out.value(export.exportedAt)
        out.literal(#","head":"#)
        try out.value(WireMapping.exportHead(export))
        out.literal(#","locationAlerts":"#)
        try out.list(export.locationAlerts, WireMapping.locationAlert)
        out.literal(#","prompts":"#)
        try out.list(export.prompts, WireMapping.prompt)
        out.literal(#","schema":"#)
        try out.value(PermissionWire.UserExport.Schema())
        out.literal(#","settings":"#)
        try out.value(WireMapping.settings(export.settings))
        out.literal(#","user":"#)
        try out.value(export.user.rawValue)
        out.literal("}")
        try out.send()
    }
}

/// The bytes of the document not yet handed to the writer.
private struct DocumentOutput {
    let writer: any HTTPBodyWriter
    var pending: [UInt8] = []

    mutating func literal(_ text: String) {
        pending.append(contentsOf: text.utf8)
    }

    /// `value` as `WireEncoder` encodes it.
    mutating func value<Value: Encodable>(_ value: Value) throws {
        pending.append(contentsOf: try WireEncoder.encode(value))
    }

    /// A JSON array of the elements `walk` hands over page by page, each page mapped by
    /// `element`, encoded in one go and sent before the walk reads the next.
    mutating func list<Element, Wire: Encodable>(
        _ walk: (([Element]) throws -> Void) throws -> Void, _ element: @escaping (Element) -> Wire
    ) throws {
        pending.append(UInt8(ascii: "["))
        var first = true
        try walk { page in
            let encoded = try WireEncoder.encode(page.map(element))  // "[a,b,...]": one page, never empty
            if !first { pending.append(UInt8(ascii: ",")) }
            first = false
            pending.append(contentsOf: encoded[1..<(encoded.count - 1)])
            try send()
        }
        pending.append(UInt8(ascii: "]"))
    }

    /// Writes what is pending as one chunk and sends it.
    mutating func send() throws {
        guard !pending.isEmpty else { return }
        try writer.write(pending)
        pending.removeAll(keepingCapacity: false)
        try writer.flush()
    }
}
