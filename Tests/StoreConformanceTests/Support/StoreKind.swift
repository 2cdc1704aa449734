import Testing

/// The stores the conformance suite runs on. Every test takes one as its argument
/// (`@Test(arguments: StoreKind.allCases)`), so each requirement is written once and checked
/// on both.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `SQLitePermissionStore` on a fresh file in a temporary directory.
    case sqlite
    /// `PostgresPermissionStore` on a fresh database of the PostgreSQL the tests start.
    case postgres

    var testDescription: String { rawValue }

    /// A fresh, empty, migrated store of this kind.
    func open() throws -> StoreUnderTest { try StoreUnderTest(self) }
}
