/// Which language of an app's purpose strings a person is shown (SPEC §11): the best match for
/// their languages among the app's localizations, else the base string.
public enum PurposeLanguage {
    /// RFC 4647 §3.4 lookup: for each language range of `requested` in order, the tag of
    /// `available` equal to it, else to it with its last subtag removed, and so on (`de-CH-1996`
    /// → `de-CH` → `de`; a single-letter subtag left at the end is removed with the one after
    /// it), comparing case-insensitively (RFC 4647 §2). The first range with a match wins, so a
    /// preferred language's generic tag beats a less preferred language (`["de-CH", "fr"]` with
    /// `de` and `fr` available gives `de`). The wildcard `*` and empty ranges match nothing
    /// (§3.4: the default, here the base string, is the caller's).
    /// - Parameters:
    ///   - requested: language ranges, most preferred first (see ``preferences(acceptLanguage:)``).
    ///   - available: the tags there are strings for.
    /// - Returns: the matching tag as spelled in `available`, or nil (show the base string).
    public static func bestMatch(requested: [String], available: Set<String>) -> String? {
        guard !available.isEmpty else { return nil }
        var byFolded: [String: String] = [:]
        for tag in available {
            let folded = tag.lowercased()
            // Two spellings of one tag: the smaller, so the answer does not depend on hashing.
            if let other = byFolded[folded], other < tag { continue }
            byFolded[folded] = tag
        }
        for range in requested {
            var subtags = range.lowercased().split(separator: "-", omittingEmptySubsequences: false)
            guard !subtags.isEmpty, !subtags.contains(where: { $0.isEmpty || $0 == "*" }) else { continue }
            while !subtags.isEmpty {
                if let tag = byFolded[subtags.joined(separator: "-")] { return tag }
                subtags.removeLast()
                if let last = subtags.last, last.count == 1 { subtags.removeLast() }
            }
        }
        return nil
    }

    /// The language ranges of an `Accept-Language` field value (RFC 9110 §12.5.4), most
    /// preferred first: by descending q-value (1 when absent), ties in the order written;
    /// ranges with `q=0` ("not acceptable") and malformed members are left out.
    /// - Parameter acceptLanguage: the field value, e.g. `de-CH, de;q=0.9, en;q=0.5`.
    public static func preferences(acceptLanguage: String) -> [String] {
        var weighted: [(range: String, quality: Int, order: Int)] = []
        for (order, member) in acceptLanguage.split(separator: ",").enumerated() {
            let parts = member.split(separator: ";")
            guard let first = parts.first else { continue }
            let range = first.trimmingSpaces()
            guard !range.isEmpty, range.utf8.count <= 64,
                range.utf8.allSatisfy({ $0 == 0x2D || $0 == 0x2A || IdentifierSyntax.isAlphanumeric($0) })
            else { continue }
            var quality = 1000
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard pair.count == 2, pair[0].trimmingSpaces().lowercased() == "q" else { continue }
                guard let parsed = qvalue(pair[1].trimmingSpaces()) else {
                    quality = -1
                    break
                }
                quality = parsed
            }
            if quality > 0 { weighted.append((range, quality, order)) }
        }
        weighted.sort { $0.quality != $1.quality ? $0.quality > $1.quality : $0.order < $1.order }
        return weighted.map(\.range)
    }

    /// A qvalue (RFC 9110 §12.4.2: `0[.ddd]` or `1[.000]`) in thousandths, nil when malformed.
    private static func qvalue(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, first == 0x30 || first == 0x31 else { return nil }
        guard bytes.count > 1 else { return first == 0x31 ? 1000 : 0 }
        guard bytes[1] == 0x2E, bytes.count <= 5 else { return nil }
        var thousandths = 0
        var scale = 100
        for byte in bytes[2...] {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            thousandths += Int(byte - 0x30) * scale
            scale /= 10
        }
        if first == 0x31 { return thousandths == 0 ? 1000 : nil }
        return thousandths
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (OWS, RFC 9110 §5.6.3).
    fileprivate func trimmingSpaces() -> String {
        var view = self[...]
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" { view = view.dropLast() }
        return String(view)
    }
}
