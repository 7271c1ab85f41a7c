import Bitcoin
import HTLC
import Offers
@testable import PeerNode
import Transport
import XCTest

/// What `swaps` and `swap show` add as a swap's proof of payment (`ControlDispatcher
/// .proofOfPayment`): a submarine client's preimage and its source from `paid` on, and
/// nothing for any other swap, whatever its events hold.
final class ProofOfPaymentDisplayTests: XCTestCase {
    typealias F = SubmarineClientFixture

    private func submarineRecord(_ fixture: F, role: SwapRole = .client) -> SwapRecord {
        let contact = Offers.Contact(pubky: F.provider.pubky, host: "127.0.0.1", port: 1, name: "prov")
        let record = SubmarineClientRecord(provider: contact, quote: Signed(signing: fixture.quote, with: F.provider),
                                           request: fixture.request, invoicePaymentHash: F.paymentHash, network: .regtest,
                                           ownInvoice: false)
        return SwapRecord(id: "sub-q", role: role, swapIndex: 3, keyScheme: .current, peer: F.provider.pubky.z32,
                          createdAt: 1, contract: record.json)
    }

    private func event(_ phase: SubmarineClientPhase, _ fixture: F) -> SwapEvent {
        let state = fixture.machine(at: phase).state
        return SwapEvent(sequence: 1, kind: state.phase.rawValue, data: state.json, isFinal: state.phase.isFinal, at: 1)
    }

    func testASubmarineClientSwapShowsItsPreimageFromPaidOn() {
        let fixture = F()
        let record = submarineRecord(fixture)
        for phase in [SubmarineClientPhase.quoted, .accepted, .lockIntent, .lockBroadcast, .lockConfirmed, .refundBroadcast] {
            XCTAssertEqual(ControlDispatcher.proofOfPayment(record, last: event(phase, fixture)), [:], "\(phase)")
        }
        let paid = ControlDispatcher.proofOfPayment(record, last: event(.paid, fixture))
        XCTAssertEqual(paid["preimage"], .string(F.preimage.hex))
        XCTAssertNotNil(paid["preimage_source"]?.stringValue)
        XCTAssertEqual(ControlDispatcher.proofOfPayment(record, last: event(.completed, fixture))["preimage"],
                       .string(F.preimage.hex), "still shown once the swap completed")
    }

    func testNoOtherSwapShowsAPreimage() {
        let fixture = F()
        let paid = event(.paid, fixture)
        // The same data under a provider record (the provider's own submarine swap).
        XCTAssertEqual(ControlDispatcher.proofOfPayment(submarineRecord(fixture, role: .provider), last: paid), [:])
        // A reverse client swap: its events never carry a preimage, and even one that did is not shown.
        let reverse = SwapRecord(id: "r", role: .client, swapIndex: 4, keyScheme: .current, peer: F.provider.pubky.z32,
                                 createdAt: 1, contract: .object(["purpose": .string("payContact"), "amount_sat": .integer(5),
                                                                  "payment_hash": .string(F.paymentHash.hex)]))
        let forged = SwapEvent(sequence: 2, kind: "lock_seen", data: .object(["preimage": .string(F.preimage.hex)]),
                               isFinal: false, at: 1)
        XCTAssertEqual(ControlDispatcher.proofOfPayment(reverse, last: forged), [:])
        // A value that is not the payment hash's preimage is nobody's proof.
        guard case .object(var members) = paid.data else { return XCTFail("an object") }
        members["preimage"] = .string([UInt8](repeating: 0x08, count: 32).hex)
        let wrong = SwapEvent(sequence: 3, kind: "paid", data: .object(members), isFinal: false, at: 1)
        XCTAssertEqual(ControlDispatcher.proofOfPayment(submarineRecord(fixture), last: wrong), [:])
    }
}
