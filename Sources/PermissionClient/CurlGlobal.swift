internal import CCurl

/// `curl_global_init` exactly once per process, before the first easy handle
/// (https://curl.se/libcurl/c/curl_global_init.html: not thread-safe, so it runs inside the
/// lazy, thread-safe initializer of a static constant).
enum CurlGlobal {
    private static let initResult: Int = Int(ccurl_global_init_default().rawValue)

    /// Initializes libcurl on first use.
    /// - Returns: the `CURLcode` of `curl_global_init` (0 on success).
    static func ensureInitialized() -> Int { initResult }
}
