import Bitcoin
import HTLC
@testable import PeerNode
import Transport
import XCTest

/// Audit L-5: `swap show` (any control answer) never prints a client's claim transaction,
/// whose witness holds the preimage, while the claim is unconfirmed; the store keeps it.
final class ClientSwapDisplayTests: XCTestCase {
    private let preimage = [UInt8](repeating: 0xA5, count: 32)

    private var claim: Transaction {
        let input = TransactionInput(previousOutput: OutPoint(txid: try! TransactionID(bytes: [UInt8](repeating: 1, count: 32)),
                                                              index: 0),
                                     sequence: TransactionInput.replaceableSequence,
                                     witness: Witness([[UInt8](repeating: 0x30, count: 71), preimage, [0x51]]))
        let output = TransactionOutput(value: 50_000,
                                       scriptPubKey: Address.p2wpkh(pubkeyHash: [UInt8](repeating: 2, count: 20)).script)
        return Transaction(version: 2, inputs: [input], outputs: [output], lockTime: 0)
    }

    private func event(_ phase: ClientSwapPhase, _ sequence: Int64) -> SwapEvent {
        let state = ClientSwapState(phase: phase, claim: claim, claimTxids: [claim.txid])
        return SwapEvent(sequence: sequence, kind: phase.rawValue, data: state.json, isFinal: phase.isFinal, at: sequence)
    }

    private func text(_ values: [JSONValue]) -> String { values.map { "\($0)" }.joined(separator: "\n") }

    func testAnUnconfirmedClaimIsNeverShownWithItsPreimage() throws {
        let stored = event(.claimBroadcast, 1)
        XCTAssertTrue("\(stored.data)".contains(preimage.hex), "the store keeps the claim (recovery needs it)")

        let shown = ClientSwapDisplay.shown([stored])
        XCTAssertFalse(text(shown).contains(preimage.hex), text(shown))
        XCTAssertNil(shown[0]["claim_tx"])
        XCTAssertEqual(shown[0]["claim_txid"]?.stringValue, claim.txid.hex)
        XCTAssertNotNil(shown[0]["claim_tx_withheld"])
        // A claim never accepted that ended the swap (`failed`): never shown either.
        XCTAssertFalse(text(ClientSwapDisplay.shown([stored, event(.failed, 2)])).contains(preimage.hex))
        // Reorged back to `claim_broadcast`: withheld again.
        XCTAssertFalse(text(ClientSwapDisplay.shown([stored, event(.claimConfirmed, 2), event(.claimBroadcast, 3)]))
            .contains(preimage.hex))
    }

    func testAConfirmedClaimIsPublicAndShown() {
        for last in [ClientSwapPhase.claimConfirmed, .completed] {
            let events = [event(.claimBroadcast, 1), event(last, 2)]
            XCTAssertEqual(ClientSwapDisplay.shown(events), events.map(\.data), "\(last)")
        }
    }
}
