import Bitcoin
import XCTest
@testable import HTLC

/// The memo that spares an engine rebuilding a swap's contract at each step: what it gives
/// must be what building gives, for these terms and no others, and it stays bounded.
final class TaprootContractMemoTests: XCTestCase {
    func testARememberedContractIsTheOneBuildingGives() throws {
        for timeout in [Fixture.timeout, Fixture.timeout + 1] {
            for hashByte: UInt8 in [0x11, 0x12] {
                let terms = Fixture.terms(paymentHash: [UInt8](repeating: hashByte, count: 32), timeout: timeout)
                let first = try TaprootSwapContract(terms: terms)
                XCTAssertEqual(TaprootSwapContract.built[terms], first, "remembered")
                let again = try TaprootSwapContract(terms: terms)
                XCTAssertEqual(again, try TaprootSwapContract(building: terms))
                XCTAssertEqual(again.terms, terms)
            }
        }
        // Terms one field apart have contracts apart: the memo never answers for other terms.
        let a = try TaprootSwapContract(terms: Fixture.terms(timeout: Fixture.timeout))
        let b = try TaprootSwapContract(terms: Fixture.terms(timeout: Fixture.timeout + 7))
        XCTAssertNotEqual(a.outputKey, b.outputKey)
        XCTAssertNotEqual(a.address, b.address)
    }

    func testTheMemoIsEmptiedWhenFull() throws {
        let memo = BoundedMemo<SwapTerms, TaprootSwapContract>(capacity: TaprootSwapContract.built.capacity)
        for index in 0..<(memo.capacity + 3) {
            let terms = Fixture.terms(timeout: 800_000 + UInt32(index))
            let built = try TaprootSwapContract(building: terms)
            memo.remember(built, for: terms)
            XCTAssertLessThanOrEqual(memo.count, memo.capacity)
        }
        XCTAssertEqual(memo.count, 3, "emptied once at the capacity, then the last three")
    }
}
