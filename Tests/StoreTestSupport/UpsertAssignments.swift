import Foundation
package import PermissionDomain
import StoredRows

extension StoredAuthorization {
    /// The columns ``upsertAssignments`` sets, in its order; nil when one of its assignments is
    /// not `column = excluded.column` (a record's update must copy each column from the new row).
    package static var upsertAssignedColumns: [String]? {
        var columns: [String] = []
        for assignment in upsertAssignments.split(separator: ",") {
            let sides = assignment.split(separator: "=").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            guard sides.count == 2, sides[1] == "excluded." + sides[0] else { return nil }
            columns.append(sides[0])
        }
        return columns
    }
}
