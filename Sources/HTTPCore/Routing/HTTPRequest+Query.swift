extension HTTPRequest {
    /// The query's name/value pairs in order, percent-decoded with "+" as space
    /// (application/x-www-form-urlencoded); empty when there is no query.
    /// - Throws: `HTTPError` 400 when an escape or the decoded UTF-8 is invalid.
    public func queryItems() throws -> [(name: String, value: String)] {
        guard let query = head.query, !query.isEmpty else { return [] }
        guard let items = parseQuery(query) else {
            throw HTTPError(.badRequest, detail: "The query string has an invalid percent-encoding.")
        }
        return items
    }

    /// The first value of the query parameter `name`, or nil.
    /// - Throws: `HTTPError` 400 when the query cannot be decoded.
    public func queryValue(_ name: String) throws -> String? {
        try queryItems().first { $0.name == name }?.value
    }
}
