extension PermissionService {
    /// An operator's reset (SPEC §4 Reset, `tccutil reset SERVICE [BUNDLE_ID]`): matching
    /// records back to notDetermined (`reset`), each audited, and matching pending prompts
    /// cancelled. Versions keep growing: records are rewritten, never deleted.
    /// - Parameters:
    ///   - scope: one service or all.
    ///   - app: only this app, or every app.
    ///   - user: only this user, or every user.
    /// - Returns: the number of authorizations that changed or had a prompt cancelled.
    /// - Throws: `PermissionError.unknownService`.
    public func reset(scope: ResetScope, app: AppID?, user: UserID?, actor: Actor, requestId: String?) throws -> Int {
        try store.write { writer in
            let context = ChangeContext(actor: actor, requestId: requestId, now: now)
            var serviceID: ServiceID?
            if case .service(let id) = scope {
                _ = try resolveService(writer, id)
                serviceID = id
            }
            var counted = Set<AuthorizationKey>()
            let filter = AuthorizationFilter(user: user, app: app, service: serviceID)
            var after: AuthorizationKey?
            while true {
                let page = try writer.authorizations(matching: filter, after: after, limit: 500)
                for stored in page {
                    guard let next = Rules.reset(stored: stored, reason: .reset) else { continue }
                    try commit(writer, old: stored, next: next, action: .authorizationReset, context: context)
                    counted.insert(stored.key)
                }
                guard page.count == 500, let last = page.last else { break }
                after = last.key
            }
            let prompts = PromptFilter(user: user, app: app, service: serviceID, state: .pending)
            while true {
                // Cancelled prompts leave the pending filter, so each page starts from the beginning.
                let page = try writer.prompts(matching: prompts, after: nil, limit: 500)
                for prompt in page where try cancelOrExpire(writer, prompt: prompt, context: context) {
                    counted.insert(AuthorizationKey(user: prompt.user, app: prompt.app, service: prompt.service))
                }
                if page.count < 500 { break }
            }
            return counted.count
        }
    }
}
