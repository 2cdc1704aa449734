internal import CCurl

/// The server URL as libcurl's own parser reads it (https://curl.se/libcurl/c/curl_url_set.html),
/// the one every transfer uses: a URL it refuses (a port that is not a number, a space in the
/// host) is the caller's mistake, said when the client is made rather than as a transport
/// failure on each call.
enum URLSyntax {
    /// Why libcurl refuses `url` (its `curl_url_strerror` text), or nil when it parses.
    static func refusal(of url: String) -> String? {
        guard let handle = curl_url() else { return nil }  // out of memory: the transfer will say so
        defer { curl_url_cleanup(handle) }
        let code = curl_url_set(handle, CURLUPART_URL, url, 0)
        guard code != CURLUE_OK else { return nil }
        return curl_url_strerror(code).map { String(cString: $0) } ?? "libcurl URL error \(code.rawValue)"
    }
}
