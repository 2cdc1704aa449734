internal import Foundation
package import PermissionDomain

extension Policy {
    /// Decodes a stored policy from the columns both stores select, in this order: `id`,
    /// `service`, `app`, the user, `effect`, `level`, `updated_at`.
    /// - Throws: the store's corruption error for a value that does not parse.
    package init(storedColumns row: some StoredColumns) throws {
        self.init(
            trusted: PolicyID(trusted: try row.required(0, "policies", "id")),
            service: ServiceID(trusted: try row.required(1, "policies", "service")),
            app: row.text(2).map(AppID.init(trusted:)),
            user: row.text(3).map(UserID.init(trusted:)),
            effect: try row.enumeration(PolicyEffect.self, at: 4, "policies", "effect"),
            level: row.text(5).map(Level.init(trusted:)),
            updatedAt: try row.date(6) ?? Date(millisecondsSince1970: 0))
    }
}
