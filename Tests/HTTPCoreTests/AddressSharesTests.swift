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

    /// One host is usually given a whole IPv6 /64 and may connect from any address in it: the
    /// /64 holds one share. An IPv4-mapped address is its IPv4 client's.
    @Test func anIPv6SlashSixtyFourHoldsOneShare() {
        var shares = AddressShares(share: 1)
        #expect(shares.admit("2001:db8:1:2::1") == .admitted)
        #expect(shares.admit("2001:db8:1:2:ffff:1:2:3") == .refused)
        #expect(shares.admit("2001:db8:1:3::1") == .admitted, "another /64")
        #expect(shares.admit("127.0.0.1") == .admitted)
        #expect(shares.admit("::ffff:127.0.0.1") == .refused)
        #expect(shares.admitted("2001:db8:1:2::42") == 1)
        shares.release("2001:db8:1:2::1", .admitted)
        shares.release("2001:db8:1:2:ffff:1:2:3", .refused)
        shares.release("2001:db8:1:3::1", .admitted)
        shares.release("::ffff:127.0.0.1", .refused)
        shares.release("127.0.0.1", .admitted)
        #expect(shares.addresses == 0)
        #expect(AddressShares.holder(of: "2001:db8:1:2:3:4:5:6") == "2001:db8:1:2::/64")
        #expect(AddressShares.holder(of: "::1") == "::/64")
        #expect(AddressShares.holder(of: "10.1.2.3") == "10.1.2.3")
        #expect(AddressShares.holder(of: "unknown") == "unknown")
    }

    @Test func zeroShareAdmitsEverything() {
        var shares = AddressShares(share: 0)
        for _ in 0..<10_000 { #expect(shares.admit("a") == .admitted) }
        #expect(shares.admitted("a") == 10_000)
    }
}
