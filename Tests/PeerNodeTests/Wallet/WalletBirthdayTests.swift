import Bitcoin
import HTLC
@testable import PeerNode
import Regtest
import XCTest

/// A database lost with the wallet's birthday in it: the new database's birthday is the
/// tip of its first run, and the wallet sees nothing from before (found by the
/// `submarine-recover-refund` scenario: after `recover`, savings looked 374,623 sat short,
/// the lock's change). `lowerBirthday` starts the wallet over from the recovery's height.
final class WalletBirthdayTests: XCTestCase {
    private let coin: Int64 = 5_000_000_000

    func testAWalletBornTooLateSeesItsCoinsOnceItsBirthdayIsLowered() async throws {
        let fixture = try WalletFixture()
        defer { fixture.close() }
        let first = try fixture.wallet()
        let address = await first.newAddress()
        try fixture.chain.mine(101, to: address.scriptPubKey)
        _ = try await first.sync()
        let whole = await first.balance()
        XCTAssertEqual(whole.confirmed, 2 * coin)

        // The same seed, born at today's tip: the coins are older than its birthday.
        let restored = try fixture.wallet(birthday: fixture.chain.height)
        _ = try await restored.sync()
        let blind = await restored.balance()
        XCTAssertEqual(blind.confirmed, 0, "coins before the birthday are not seen")

        let lowered = await restored.lowerBirthday(to: 0)
        XCTAssertTrue(lowered)
        let birthday = await restored.birthdayHeight
        XCTAssertEqual(birthday, 0)
        _ = try await restored.sync()
        let found = await restored.balance()
        XCTAssertEqual(found, whole, "every coin is seen again")
        let again = await restored.lowerBirthday(to: 5)
        XCTAssertFalse(again, "a birthday is only ever lowered")
    }

    /// Coins reserved by a transaction being broadcast stay reserved across the restart:
    /// no second transaction may pick them while the blocks are read again.
    func testReservationsSurviveTheRestart() throws {
        var state = WalletState(birthdayHeight: 50)
        let txid = try TransactionID(hex: String(repeating: "aa", count: 32))
        let outpoint = OutPoint(txid: txid, index: 1)
        state.reserve([outpoint], for: txid)
        let restarted = state.restarted(fromHeight: 0)
        XCTAssertEqual(restarted.birthdayHeight, 0)
        XCTAssertNil(restarted.tip)
        XCTAssertEqual(restarted.reservations, [outpoint: txid])
    }
}
