internal import CCurl
internal import Ownership

/// One libcurl easy handle (https://curl.se/libcurl/c/libcurl-easy.html) with the options a
/// client sets once: allowed protocols (HTTP and HTTPS only), no signals, `TCP_NODELAY`, TCP
/// keep-alive, the connect timeout, the user agent, TLS verification (its CA file and pinned
/// key) and the proxy. It keeps its connection alive between calls. A handle is used by one
/// thread at a time (the pool hands it out exclusively), and the header list it sends lives as
/// long as the handle needs it.
final class EasyHandle {
    /// Options fixed for the life of the handle.
    struct Settings: Sendable {
        var connectTimeoutMilliseconds: Int
        var userAgent: String
        var verifyTLS: Bool
        var caFile: String? = nil
        var pinnedPublicKey: String? = nil
        var proxy: String? = nil
    }

    private let curl: UnsafeMutableRawPointer
    private let sink = ResponseSink()
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// The pool's loans of this handle to one call at a time, checked in debug builds.
    let use = ExclusiveUse("a curl handle")

    /// Creates and configures a handle.
    /// - Throws: `.transport` when libcurl cannot be initialized or refuses an option.
    init(settings: Settings) throws(PermissionClientError) {
        let global = CurlGlobal.ensureInitialized()
        guard global == 0 else {
            throw .transport(code: global, message: "curl_global_init failed", requestId: nil)
        }
        guard let curl = curl_easy_init() else {
            throw .transport(code: 2, message: "curl_easy_init failed", requestId: nil)
        }
        self.curl = curl
        let size = Int(ccurl_error_size())
        errorBuffer = .allocate(capacity: size)
        errorBuffer.initialize(repeating: 0, count: size)
        try configure(settings)
    }

    deinit {
        curl_easy_cleanup(curl)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    private func configure(_ settings: Settings) throws(PermissionClientError) {
        let context = Unmanaged.passUnretained(sink).toOpaque()
        try check(ccurl_setopt_string(curl, CURLOPT_PROTOCOLS_STR, "http,https"))
        try check(ccurl_setopt_long(curl, CURLOPT_NOSIGNAL, 1))
        try check(ccurl_setopt_long(curl, CURLOPT_TCP_NODELAY, 1))
        try check(ccurl_setopt_long(curl, CURLOPT_TCP_KEEPALIVE, 1))
        // One connection a handle: libcurl's default cache keeps up to five. A call on a fresh
        // connection (below) runs on a new handle (``HandlePool``), so no connection kept
        // before stays open beside it (docs/client.md counts them against the server's
        // per-address limit).
        try check(ccurl_setopt_long(curl, CURLOPT_MAXCONNECTS, 1))
        try check(ccurl_setopt_long(curl, CURLOPT_FOLLOWLOCATION, 0))
        try check(ccurl_setopt_long(curl, CURLOPT_CONNECTTIMEOUT_MS, settings.connectTimeoutMilliseconds))
        try check(ccurl_setopt_string(curl, CURLOPT_USERAGENT, settings.userAgent))
        try check(ccurl_setopt_long(curl, CURLOPT_SSL_VERIFYPEER, settings.verifyTLS ? 1 : 0))
        try check(ccurl_setopt_long(curl, CURLOPT_SSL_VERIFYHOST, settings.verifyTLS ? 2 : 0))
        if let caFile = settings.caFile { try check(ccurl_setopt_string(curl, CURLOPT_CAINFO, caFile)) }
        if let pinned = settings.pinnedPublicKey { try check(ccurl_setopt_string(curl, CURLOPT_PINNEDPUBLICKEY, pinned)) }
        // "" turns off the proxy the environment would otherwise give.
        if let proxy = settings.proxy { try check(ccurl_setopt_string(curl, CURLOPT_PROXY, proxy)) }
        try check(ccurl_setopt_pointer(curl, CURLOPT_ERRORBUFFER, errorBuffer))
        try check(ccurl_setopt_write_function(curl, easyHandleWrite))
        try check(ccurl_setopt_pointer(curl, CURLOPT_WRITEDATA, context))
        try check(ccurl_setopt_header_function(curl, easyHandleHeader))
        try check(ccurl_setopt_pointer(curl, CURLOPT_HEADERDATA, context))
        try check(ccurl_setopt_xferinfo_function(curl, easyHandleProgress))
        try check(ccurl_setopt_pointer(curl, CURLOPT_XFERINFODATA, context))
    }

    /// Performs one exchange on this handle.
    /// - Parameters:
    ///   - url: the absolute URL.
    ///   - call: method, body and extra fields.
    ///   - fields: the fixed fields of every call (`Authorization`, `X-Request-Id`).
    ///   - timeoutMilliseconds: the total timeout, 0 for none (streams).
    ///   - cancel: polled by the progress callback, when given.
    ///   - stream: receives 2xx body bytes instead of the buffer; returning `false` stops.
    ///   - streamType: when set, a 2xx body reaches `stream` only with this media type as its
    ///     `Content-Type`; another ends the transfer before its first byte is handed over (the
    ///     caller sees the type in the response).
    ///   - idleLimit: the longest the transfer may go without a byte (from its start, then
    ///     from each byte of the head or body); `nil` for no limit. Past it the call fails
    ///     with `.transport` code 28 (a timeout).
    /// - Returns: the response, or `.transport` with the libcurl code and message.
    func perform(
        url: String, call: HTTPCall, fields: [String], timeoutMilliseconds: Int,
        cancel: CancellationFlag?, stream: ((UnsafeRawBufferPointer) -> Bool)? = nil, streamType: String? = nil,
        idleLimit: Duration? = nil
    )
        -> Result<RawResponse, PermissionClientError>
    {
        use.check()
        sink.reset(cancel: cancel, stream: stream, streamType: streamType, idleLimit: idleLimit)
        // The stream closure may be one `withoutActuallyEscaping` lent: no path out of this call
        // may leave it in the pooled handle's sink, a refused option's early return included.
        defer {
            sink.cancel = nil
            sink.stream = nil
        }
        errorBuffer[0] = 0
        do throws(PermissionClientError) {
            try check(ccurl_setopt_string(curl, CURLOPT_URL, url))
            try setMethod(call)
            try setHeaders(call, fields: fields)
            try check(ccurl_setopt_long(curl, CURLOPT_TIMEOUT_MS, timeoutMilliseconds))
            // The progress callback polls the cancellation flag and the idle limit.
            try check(ccurl_setopt_long(curl, CURLOPT_NOPROGRESS, cancel == nil && idleLimit == nil ? 1 : 0))
            // libcurl silently resends a request once when a reused connection dies before the
            // answer; for a POST, a DELETE or a conditional PUT that may already have been
            // applied (RFC 9112 §9.3.1), so these always go on a fresh connection, which libcurl
            // never resends.
            try check(ccurl_setopt_long(curl, CURLOPT_FRESH_CONNECT, call.repeatsSafely ? 0 : 1))
            // A buffered answer that announces more than it may hold fails before its body is
            // read (the sink's own cap stops one that does not say its length).
            try check(ccurl_setopt_long(curl, CURLOPT_MAXFILESIZE, stream == nil ? ResponseSink.maxBodyBytes : 0))
        } catch {
            return .failure(error)
        }
        let code = curl_easy_perform(curl)
        if code == CURLE_ABORTED_BY_CALLBACK, sink.idledOut, let idleLimit {
            return .failure(
                .transport(
                    code: PermissionClientError.timedOutCode,
                    message: "no byte arrived for \(idleLimit.roundedUpMilliseconds) ms", requestId: sink.requestId))
        }
        if code != CURLE_OK, !(sink.stoppedByConsumer && code == CURLE_WRITE_ERROR) {
            // A body over the cap stops the transfer with a write error: reported as what it is.
            let reported = code == CURLE_WRITE_ERROR && sink.overflowed ? PermissionClientError.tooLargeCode : Int(code.rawValue)
            return .failure(.transport(code: reported, message: message(for: code), requestId: sink.requestId))
        }
        var status = 0
        if ccurl_getinfo_long(curl, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK || status == 0 {
            status = sink.status
        }
        return .success(
            RawResponse(
                status: status, body: sink.takeBody(), requestId: sink.requestId,
                etag: sink.etag, contentType: sink.contentType, contentLength: sink.contentLength,
                retryAfter: sink.retryAfter, revision: sink.revision))
    }

    private func setMethod(_ call: HTTPCall) throws(PermissionClientError) {
        if call.body != nil || call.method == "POST" || call.method == "PUT" {
            let body = call.body ?? []
            try check(ccurl_setopt_off_t(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
            if body.isEmpty {
                try check(ccurl_setopt_string(curl, CURLOPT_COPYPOSTFIELDS, ""))
            } else {
                let code = body.withUnsafeBytes { bytes in
                    ccurl_setopt_pointer(curl, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                }
                try check(code)
            }
            try check(ccurl_setopt_string(curl, CURLOPT_CUSTOMREQUEST, call.method == "POST" ? nil : call.method))
        } else {
            try check(ccurl_setopt_long(curl, CURLOPT_HTTPGET, 1))
            try check(ccurl_setopt_string(curl, CURLOPT_CUSTOMREQUEST, call.method == "GET" ? nil : call.method))
        }
    }

    private func setHeaders(_ call: HTTPCall, fields: [String]) throws(PermissionClientError) {
        var list: UnsafeMutablePointer<curl_slist>?
        func append(_ line: String) {
            if let longer = curl_slist_append(list, line) { list = longer }
        }
        for field in fields { append(field) }
        append("Accept: " + call.accept)
        // An empty value removes a field libcurl would add on its own.
        append(call.body != nil ? "Content-Type: application/json" : "Content-Type:")
        append("Expect:")
        for (name, value) in call.headers { append(name + ": " + value) }
        let code = ccurl_setopt_slist(curl, CURLOPT_HTTPHEADER, list)
        curl_slist_free_all(headerList)
        headerList = list
        try check(code)
    }

    private func check(_ code: CURLcode) throws(PermissionClientError) {
        guard code == CURLE_OK else {
            throw .transport(code: Int(code.rawValue), message: message(for: code), requestId: nil)
        }
    }

    private func message(for code: CURLcode) -> String {
        if code == CURLE_ABORTED_BY_CALLBACK, sink.cancel?.isCancelled ?? true { return "cancelled" }
        if (code == CURLE_WRITE_ERROR && sink.overflowed) || code == CURLE_FILESIZE_EXCEEDED {
            return "response body larger than \(ResponseSink.maxBodyBytes) bytes"
        }
        let detail = String(cString: errorBuffer)
        if !detail.isEmpty { return detail }
        return String(cString: curl_easy_strerror(code))
    }
}

@available(*, unavailable)
extension EasyHandle: Sendable {}

/// `CURLOPT_WRITEFUNCTION`: body bytes into the handle's sink.
private let easyHandleWrite: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    data, size, count, context in
    guard let context else { return 0 }
    let total = size * count
    guard let data, total > 0 else { return total }
    let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
    return sink.receive(UnsafeRawBufferPointer(start: data, count: total)) ? total : 0
}

/// `CURLOPT_HEADERFUNCTION`: one header line at a time into the sink.
private let easyHandleHeader: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    data, size, count, context in
    let total = size * count
    guard let context, let data else { return total }
    let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
    sink.header(UnsafeRawBufferPointer(start: data, count: total))
    return total
}

/// `CURLOPT_XFERINFOFUNCTION` (called often while bytes flow, about once a second while none
/// do): a non-zero return aborts the call (`CURLE_ABORTED_BY_CALLBACK`).
private let easyHandleProgress:
    @convention(c) (UnsafeMutableRawPointer?, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> Int32 = {
        context, _, _, _, _ in
        guard let context else { return 0 }
        let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
        return sink.shouldAbort() ? 1 : 0
    }
