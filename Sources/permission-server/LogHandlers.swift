import ByteText
import Foundation
import Logging

/// Writes one line an event to standard error, as JSON
/// (`{"at":...,"level":...,"label":...,"message":...,<metadata>}`, strings escaped in the
/// `minimal` style) or as text
/// (`2026-11-23T10:00:00.000Z info label: message key=value ...`, control characters written
/// out, ``oneLine(_:)``). Each line goes out in one
/// write(2), so lines from concurrent requests never interleave.
struct LineLogHandler: LogHandler {
    enum Format { case json, text }

    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    var logLevel: Logger.Level = .info
    let label: String
    let format: Format

    init(label: String, format: Format, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.format = format
        self.metadataProvider = metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        let fields = merged.keys.sorted().compactMap { key in merged[key].map { (key, $0.description) } }
        switch format {
        case .json: writeToStandardError(jsonLine(event, fields))
        case .text: writeToStandardError(Array(textLine(event, fields).utf8))
        }
    }

    private func jsonLine(_ event: LogEvent, _ fields: [(String, String)]) -> [UInt8] {
        let at = LogTimestamp.now()
        let message = event.message.description
        return ByteCursor.bytes { line in
            line.literal("{\"at\":")
            line.jsonString(at, style: .minimal)
            line.literal(",\"level\":")
            line.jsonString(event.level.rawValue, style: .minimal)
            line.literal(",\"label\":")
            line.jsonString(label, style: .minimal)
            line.literal(",\"message\":")
            line.jsonString(message, style: .minimal)
            for (key, value) in fields {
                line.literal(",")
                line.jsonString(key, style: .minimal)
                line.literal(":")
                line.jsonString(value, style: .minimal)
            }
            line.literal("}\n")
        }
    }

    private func textLine(_ event: LogEvent, _ fields: [(String, String)]) -> String {
        var line = "\(LogTimestamp.now()) \(event.level.rawValue) \(label): \(Self.oneLine(event.message.description))"
        for (key, value) in fields { line += " \(key)=\(Self.oneLine(value))" }
        return line + "\n"
    }

    /// `text` with its control characters written out (`\n`, `\r`, `\t`, `\u{1B}`), so that an
    /// event is one line whatever it carries: a libpq message ends its first line with a newline
    /// and a tab, and a log shipper splitting on lines would make two events of it.
    static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where isControl(scalar): out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// C0 and C1 controls, DEL, and the line and paragraph separators.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }
}

private func writeToStandardError(_ line: [UInt8]) {
    line.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let n = write(2, buffer.baseAddress! + offset, buffer.count - offset)
            if n <= 0 {
                if errno == EINTR { continue }
                return
            }
            offset += n
        }
    }
}

/// RFC 3339 UTC timestamps with milliseconds for log lines.
enum LogTimestamp {
    static func now() -> String {
        var tv = timeval()
        gettimeofday(&tv, nil)
        var seconds = time_t(tv.tv_sec)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let ms = Int(tv.tv_usec) / 1000
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(ms), 3))Z"
    }
}
