import HTTPCore

/// `GET /openapi.yaml`: the contract, byte for byte the repository's openapi.yaml (compiled in
/// at build time by OpenAPIDocumentPlugin as `OpenAPIDocument.text`).
struct OpenAPIController {
    /// The YAML media type (RFC 9512).
    static let contentType = "application/yaml"

    func register(on routes: inout APIRoutes) {
        let body = Array(OpenAPIDocument.text.utf8)
        routes.get("/openapi.yaml", access: .open) { _ in
            HTTPResponse(status: .ok, contentType: Self.contentType, body: body)
        }
    }
}
