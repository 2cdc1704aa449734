import PermissionWire

/// The wire shapes of openapi.yaml under one namespace, so that files importing
/// PermissionDomain (whose value types share names such as `Authorization` and `Prompt`)
/// can name them without ambiguity.
enum Wire {
    typealias Authorization = PermissionWire.Authorization
    typealias AuthorizationList = PermissionWire.AuthorizationList
    typealias AccessRequest = PermissionWire.AccessRequest
    typealias RequestOutcome = PermissionWire.RequestOutcome
    typealias LocationButtonResult = PermissionWire.LocationButtonResult
    typealias Prompt = PermissionWire.Prompt
    typealias PromptList = PermissionWire.PromptList
    typealias Decision = PermissionWire.Decision
    typealias DecisionResult = PermissionWire.DecisionResult
    typealias SettingsChange = PermissionWire.SettingsChange
    typealias LifecycleEvent = PermissionWire.LifecycleEvent
    typealias LifecycleResult = PermissionWire.LifecycleResult
    typealias UserSettings = PermissionWire.UserSettings
    typealias Policy = PermissionWire.Policy
    typealias PolicyDefinition = PermissionWire.PolicyDefinition
    typealias PolicyList = PermissionWire.PolicyList
    typealias ResetRequest = PermissionWire.ResetRequest
    typealias ResetResult = PermissionWire.ResetResult
    typealias UserErasureResult = PermissionWire.UserErasureResult
    typealias App = PermissionWire.App
    typealias AppList = PermissionWire.AppList
    typealias AppRegistration = PermissionWire.AppRegistration
    typealias ServiceDefinition = PermissionWire.ServiceDefinition
    typealias ServiceList = PermissionWire.ServiceList
    typealias ServiceRegistration = PermissionWire.ServiceRegistration
    typealias AuditEntry = PermissionWire.AuditEntry
    typealias AuditVerification = PermissionWire.AuditVerification
    typealias AuditPage = PermissionWire.AuditPage
    typealias Health = PermissionWire.Health
    typealias ConsentSession = PermissionWire.ConsentSession
    typealias ConsentSessionLink = PermissionWire.ConsentSessionLink
    typealias NewConsentSession = PermissionWire.NewConsentSession
    typealias ProblemType = PermissionWire.ProblemType
    typealias RequestBody = PermissionWire.RequestBody
    typealias WireDecoder = PermissionWire.WireDecoder
    typealias WireDecodingError = PermissionWire.WireDecodingError
    typealias WireEncoder = PermissionWire.WireEncoder
    typealias StrictJSONLimits = PermissionWire.StrictJSON.Limits
    typealias Timestamp = PermissionWire.Timestamp
}
