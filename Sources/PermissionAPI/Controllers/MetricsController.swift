import HTTPCore

/// `GET /metrics`: the Prometheus text exposition (format 0.0.4), open or admin-only by
/// configuration. The text is rendered at scrape time by the closure `main` supplies.
struct MetricsController {
    let render: @Sendable () throws -> String
    let access: RouteAccess

    func register(on routes: inout APIRoutes) {
        let render = render
        routes.get("/metrics", access: access, execution: .worker) { _ in
            HTTPResponse(status: .ok, contentType: PrometheusText.contentType, body: Array(try render().utf8))
        }
    }
}
