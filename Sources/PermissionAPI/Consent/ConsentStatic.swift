import HTTPCore

/// The consent pages' two static files, embedded in the binary (``ConsentStyle``,
/// ``ConsentScript``): `GET /consent/static/style.css` and `/consent/static/app.js`, open
/// (a page that refuses still needs its stylesheet), with their media type and the same
/// headers as every `/consent/` response, `Cache-Control: no-store` included (two small
/// files; nothing of the consent pages is kept by a shared or a browser cache).
enum ConsentStatic {
    static let stylesheetPath = "/consent/static/style.css"
    static let scriptPath = "/consent/static/app.js"
    static let cacheControl = "no-store"

    /// The files by path: media type and bytes.
    static let files: [String: (contentType: String, bytes: [UInt8])] = [
        stylesheetPath: ("text/css; charset=utf-8", Array(ConsentStyle.css.utf8)),
        scriptPath: ("text/javascript; charset=utf-8", Array(ConsentScript.javaScript.utf8)),
    ]

    /// The response for the file at `path`, nil when there is none.
    static func response(_ path: String) -> HTTPResponse? {
        guard let file = files[path] else { return nil }
        return HTTPResponse(
            status: .ok, headers: ["Content-Type": file.contentType, "Cache-Control": cacheControl],
            body: .bytes(file.bytes))
    }
}
