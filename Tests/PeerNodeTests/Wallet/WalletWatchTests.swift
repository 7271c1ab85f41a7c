import Bitcoin
@testable import PeerNode
import XCTest

/// The wallet names its scripts to the backend (an Electrum server only reports watched
/// scripts) once each: every sync checks whether any key was derived since the last time
/// all were named, by the count of watched scripts (they are only ever added), instead of
/// building the set of every script at each poll.
final class WalletWatchTests: XCTestCase {
    func testEveryScriptIsNamedOnceAndNewKeysAreNamedAtTheNextSync() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        try fixture.mineElsewhere(1)
        let wallet = try fixture.wallet()
        let watched = await wallet.keys.watchedScripts
        XCTAssertEqual(watched.count, 2 * WalletKeys.defaultGapLimit)

        try await wallet.sync()
        XCTAssertEqual(fixture.backend.watchCalls, [watched], "every script named, in one call")
        try await wallet.sync()
        try await wallet.sync()
        XCTAssertEqual(fixture.backend.watchCalls.count, 1, "nothing new: nothing named again")

        // Handing out an address moves the gap: the key derived past it is named next.
        _ = await wallet.newAddress()
        let afterHandout = await wallet.keys.watchedScripts
        XCTAssertEqual(afterHandout.count, watched.count + 1)
        try await wallet.sync()
        XCTAssertEqual(fixture.backend.watchCalls.count, 2)
        XCTAssertEqual(fixture.backend.watchCalls.last, afterHandout.subtracting(watched))

        // A payment to the last receive key of the gap marks it used while blocks are
        // applied: the keys derived past it are named in the same sync, by its next pass.
        let gapEnd = WalletKeyPath(chain: .receive, index: UInt32(WalletKeys.defaultGapLimit))
        let gapEndScript = try await XCTUnwrapAsync(await wallet.keys.script(for: gapEnd))
        try fixture.chain.mine(1, to: gapEndScript)
        let calls = fixture.backend.watchCalls.count
        try await wallet.sync()
        let afterPayment = await wallet.keys.watchedScripts
        XCTAssertGreaterThan(afterPayment.count, afterHandout.count)
        XCTAssertEqual(fixture.backend.watchCalls.count, calls + 1)
        XCTAssertEqual(fixture.backend.watchCalls.last, afterPayment.subtracting(afterHandout))
        try await wallet.sync()
        XCTAssertEqual(fixture.backend.watchCalls.count, calls + 1, "all named: nothing again")
    }
}
