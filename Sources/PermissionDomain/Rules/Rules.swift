/// The pure rules of the permission model (SPEC §3-§4): functions of values and a time,
/// without I/O. `PermissionService` reads state from the store, applies a rule, and writes
/// the result; the tests run every rule with a fixed clock.
public enum Rules {}
