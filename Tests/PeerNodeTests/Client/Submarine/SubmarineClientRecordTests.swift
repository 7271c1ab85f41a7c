import Bitcoin
import HTLC
@testable import PeerNode
import Transport
import XCTest

/// The stored form of a client submarine swap: every phase reads back as it was written,
/// a restart from the record alone resumes as from memory, the preimage is absent until the
/// invoice is paid, and a damaged record is a typed error.
final class SubmarineClientRecordTests: XCTestCase {
    typealias F = SubmarineClientFixture

    func testEveryPhaseReadsBackAsWrittenAndResumesTheSame() throws {
        let rounds: Set<SubmarineClientPhase> = [.coopSigned, .coopRefundRequested]
        for type in F.offeredTypes {
            // The rounds' phases exist for a cooperative taproot swap only.
            for phase in SubmarineClientPhase.allCases where type == .taprootBoltz || !rounds.contains(phase) {
                let fixture = F(type, cooperative: rounds.contains(phase))
                let stored = fixture.machine(at: phase).state
                // Through the canonical bytes, as the store keeps them.
                let bytes = stored.json.canonicalBytes
                let read = try SubmarineClientState(kind: phase.rawValue, data: try JSONParser.parse(bytes))
                XCTAssertEqual(read, stored, "\(type) \(phase)")
                var fromMemory = SubmarineClientMachine(settings: fixture.settings(), state: stored)
                var fromDisk = SubmarineClientMachine(settings: fixture.settings(), state: read)
                XCTAssertEqual(fromDisk.handle(.recover(tipHeight: nil)), fromMemory.handle(.recover(tipHeight: nil)),
                               "\(type) \(phase)")
            }
        }
    }

    func testThePreimageIsStoredOnlyOnceTheInvoiceIsPaid() {
        let fixture = F()
        let preimageHex = F.preimage.hex
        for phase in [SubmarineClientPhase.quoted, .accepted, .lockIntent, .lockBroadcast, .lockConfirmed, .refundBroadcast] {
            let text = String(decoding: fixture.machine(at: phase).state.json.canonicalBytes, as: UTF8.self)
            XCTAssertFalse(text.contains(preimageHex), "\(phase)")
        }
        let paid = String(decoding: fixture.machine(at: .paid).state.json.canonicalBytes, as: UTF8.self)
        XCTAssertTrue(paid.contains(preimageHex), "paid: the proof of payment is kept")
    }

    func testADamagedRecordIsATypedError() {
        let stored = F().machine(at: .lockIntent).state
        guard case .object(var members) = stored.json else { return XCTFail("not an object") }
        XCTAssertThrowsError(try SubmarineClientState(kind: "lock_sent", data: stored.json)) { error in
            XCTAssertEqual(error as? ClientEngineError, .corruptRecord("unknown event kind lock_sent"))
        }
        members["funding_tx"] = .string("00zz")
        XCTAssertThrowsError(try SubmarineClientState(kind: "lock_intent", data: .object(members))) { error in
            guard case .corruptRecord = error as? ClientEngineError else { return XCTFail("\(error)") }
        }
        guard case .object(var contract)? = stored.json["contract"] else { return XCTFail("no contract") }
        contract.removeValue(forKey: "claim_pubkey")
        members = [:]
        members["contract"] = .object(contract)
        XCTAssertThrowsError(try SubmarineClientState(kind: "accepted", data: .object(members))) { error in
            XCTAssertEqual(error as? ClientEngineError, .corruptRecord("a submarine swap's contract lacks a field"))
        }
    }
}
