public import PermissionDomain

/// What a route does, as access control sees it: every route declares one, and
/// `AccessMatrix` (SPEC §6) says which roles hold it.
public typealias RouteAccess = AccessRight
