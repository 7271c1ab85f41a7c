import Bitcoin
import HTLC
import Lightning
@testable import PeerNode
import XCTest

/// Audit H-1: `swap claim` reopens a final swap only when its lock is unspent, the claim
/// rule still allows a first claim and the payment is still held.
final class ClientReopenRuleTests: XCTestCase {
    private func ended(_ phase: ClientSwapPhase, lock: Bool = false) -> ClientSwapState {
        var state = ClientSwapState(phase: phase, paidAtUnix: 100, timeoutHeight: 200)
        if lock {
            let transaction = Transaction(version: 2, inputs: [], outputs: [TransactionOutput(value: 1_000, scriptPubKey: Script(bytes: [0x51]))],
                                          lockTime: 0)
            state.lock = ClientLockSighting(transaction: transaction, outputIndex: 0, confirmations: 1, source: .chain)
        }
        state.outcome = ClientSwapOutcome(reason: "given up", funds: .heldUntilCancelled)
        return state
    }

    func testAnAbandonedSwapWhoseLockCanStillBeClaimedReopens() throws {
        XCTAssertEqual(try ClientReopenRule.check(ended(.abandoned), tipHeight: 193, payment: .inFlight, lockUnspent: nil), .lockSeen)
        XCTAssertEqual(try ClientReopenRule.check(ended(.failed, lock: true), tipHeight: 150, payment: .inFlight, lockUnspent: true),
                       .lockSeen)
    }

    func testEachConditionRefusesWithItsReason() {
        let cases: [(ClientSwapState, Int, PaymentUpdate.Status?, Bool?, ClientReopenRefusal)] = [
            (ended(.completed), 150, .inFlight, nil, .notGivenUp(.completed)),
            (ended(.abandoned), 150, nil, nil, .paymentNotHeld),
            (ended(.abandoned), 150, .failed(.timeout), nil, .paymentNotHeld),
            (ended(.abandoned), 150, .succeeded(preimage: [UInt8](repeating: 1, count: 32)), nil, .paymentNotHeld),
            (ended(.abandoned), 194, .inFlight, nil, .claimRuleClosed(blocksLeft: 6)),
            (ended(.failed, lock: true), 150, .inFlight, false, .lockSpent),
            (ended(.failed, lock: true), 150, .inFlight, nil, .lockSpent),
        ]
        for (state, tip, payment, unspent, expected) in cases {
            XCTAssertThrowsError(try ClientReopenRule.check(state, tipHeight: tip, payment: payment, lockUnspent: unspent)) { error in
                XCTAssertEqual(error as? ClientReopenRefusal, expected)
                XCTAssertFalse(String(describing: error).isEmpty)
            }
        }
    }
}
