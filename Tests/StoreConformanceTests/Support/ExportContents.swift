import PermissionDomain

/// Every listing of an export, walked to its end and collected, and the export closed.
struct ExportContents {
    var records: [UserExport.Record] = []
    var prompts: [Prompt] = []
    var locationAlerts: [LocationAlertSchedule] = []
    var audit: [UserExport.AuditItem] = []
    /// The size of every page each listing was read in, in order.
    var pages: [String: [Int]] = [:]

    init(_ export: UserExport) throws {
        defer { export.close() }
        try export.records {
            records += $0
            pages["records", default: []].append($0.count)
        }
        try export.prompts {
            prompts += $0
            pages["prompts", default: []].append($0.count)
        }
        try export.locationAlerts {
            locationAlerts += $0
            pages["locationAlerts", default: []].append($0.count)
        }
        try export.audit {
            audit += $0
            pages["audit", default: []].append($0.count)
        }
    }
}
