import HTTPCore
import PermissionDomain

/// The history: the session user's own audit entries, newest first, paged by `after` (the
/// seq of the last entry shown: the next page has the entries before it).
extension ConsentController {
    func registerHistory(on routes: inout APIRoutes) {
        let permissions = permissions
        routes.page(.get, "/consent/history", access: .ownHistory, sessions: sessions) { request, _, visit in
            var before: Int64?
            if let raw = try? request.queryValue("after"), !raw.isEmpty {
                guard raw.utf8.count <= 19, raw.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let seq = Int64(raw) else {
                    throw ConsentPageError.notFound
                }
                before = seq
            }
            let size = ConsentHistoryPage.pageSize
            let entries = try permissions.audit(
                query: AuditQuery(user: visit.user, before: before, newestFirst: true, limit: size + 1))
            var names = ConsentApps()
            let items = try entries.prefix(size).map { entry in
                ConsentHistoryPage.Item(entry: entry, appName: try entry.app.map { try names.name(of: $0, permissions) })
            }
            let older = entries.count > size ? items.last?.entry.seq : nil
            return ConsentHistoryPage.page(
                items, older: older, visit: visit, language: ConsentLanguage.of(request.headers), flash: Self.flash(request)
            ).response
        }
    }
}
