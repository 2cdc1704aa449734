internal import Foundation
package import PermissionDomain

extension APIKey {
    /// Decodes a stored API key from the columns both stores select, in this order: `id`,
    /// `role`, `app`, `name`, `secret_hash`, `created_at`, `revoked_at`.
    /// - Throws: the store's corruption error for a value that does not parse, a role no key
    ///   may have, or a secret hash that is not 32 bytes.
    package init(storedColumns row: some StoredColumns) throws {
        let id = try row.required(0, "api_keys", "id")
        guard KeyID.isValid(id) else { throw row.corrupt("api_keys", "id") }
        let role = try row.enumeration(Role.self, at: 1, "api_keys", "role")
        guard role.isKeyRole else { throw row.corrupt("api_keys", "role") }
        guard let hash = try row.bytes(4), hash.count == 32 else { throw row.corrupt("api_keys", "secret_hash") }
        guard let created = try row.integer(5) else { throw row.corrupt("api_keys", "created_at") }
        self.init(
            trusted: KeyID(trusted: id), role: role, app: row.text(2).map { AppID(trusted: $0) },
            name: try row.required(3, "api_keys", "name"), secretHash: hash,
            createdAt: Date(millisecondsSince1970: created), revokedAt: try row.date(6))
    }
}
