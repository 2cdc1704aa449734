package import Foundation
package import PermissionDomain

/// Validated ids for tests; the literals are well-formed.
package func user(_ raw: String) throws -> UserID { try UserID(raw) }
package func app(_ raw: String) throws -> AppID { try AppID(raw) }
package func service(_ raw: String) throws -> ServiceID { try ServiceID(raw) }
package func purpose(_ raw: String) throws -> PurposeString { try PurposeString(raw) }

/// A fixed instant, whole milliseconds.
package let epoch = Date(millisecondsSince1970: 1_795_000_000_000)
