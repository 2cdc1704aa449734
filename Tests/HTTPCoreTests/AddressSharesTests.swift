import Testing

@testable import HTTPCore

/// The per-address connection share as a pure state machine: admit up to the share, refuse a
/// bounded number at once, drop the rest, and give back exactly what was taken.
@Suite struct AddressSharesTests {
    @Test func admitsUpToTheShareThenRefusesThenDrops() {
        var shares = AddressShares(share: 2)
        #expect(shares.admit("10.0.0.1") == .admitted)
        #expect(shares.admit("10.0.0.1") == .admitted)
        for _ in 0..<AddressShares.refusalsInFlight { #expect(shares.admit("10.0.0.1") == .refused) }
        #expect(shares.admit("10.0.0.1") == .dropped)
        // Another address has its own share.
        #expect(shares.admit("::1") == .admitted)
        #expect(shares.admitted("10.0.0.1") == 2)
        #expect(shares.admitted("::1") == 1)
    }

    @Test func closingGivesBackWhatWasTaken() {
        var shares = AddressShares(share: 1)
        #expect(shares.admit("a") == .admitted)
        #expect(shares.admit("a") == .refused)
        shares.release("a", .refused)
        #expect(shares.admit("a") == .refused)  // the admitted one still holds the share
        shares.release("a", .admitted)
        #expect(shares.admitted("a") == 0)
        #expect(shares.admit("a") == .admitted)
        shares.release("a", .admitted)
        shares.release("a", .refused)
        shares.release("a", .dropped)  // never counted: a no-op
        #expect(shares.addresses == 0)
    }

    /// An IPv4-mapped address is its IPv4 client's; an IPv6 address counts in full.
    @Test func anIPv4MappedAddressSharesItsIPv4AddressesShare() {
        var shares = AddressShares(share: 1)
        #expect(shares.admit("127.0.0.1") == .admitted)
        #expect(shares.admit("::ffff:127.0.0.1") == .refused)
        #expect(shares.admit("2001:db8:1:2::1") == .admitted)
        #expect(shares.admit("2001:db8:1:2::2") == .admitted, "another host of the same /64")
        #expect(shares.admitted("::FFFF:127.0.0.1") == 1)
        shares.release("::ffff:127.0.0.1", .refused)
        shares.release("127.0.0.1", .admitted)
        shares.release("2001:db8:1:2::1", .admitted)
        shares.release("2001:db8:1:2::2", .admitted)
        #expect(shares.addresses == 0)
        #expect(AddressShares.holder(of: "::ffff:10.1.2.3") == "10.1.2.3")
        #expect(AddressShares.holder(of: "::ffff:1:2") == "::ffff:1:2")
        #expect(AddressShares.holder(of: "10.1.2.3") == "10.1.2.3")
    }

    @Test func zeroShareAdmitsEverything() {
        var shares = AddressShares(share: 0)
        for _ in 0..<10_000 { #expect(shares.admit("a") == .admitted) }
        #expect(shares.admitted("a") == 10_000)
    }
}
