import Bitcoin
@testable import HTLC
import TestSupport
import XCTest

/// `SpendSize` against real signed claims and refunds (and the kernel accepting them).
final class SpendSizeTests: XCTestCase {
    /// Taproot: Schnorr signatures are always 64 bytes, so the size is exact.
    /// P2WSH: DER signatures vary by a byte or two, so the estimate (72-byte DER) is at most
    /// one vbyte above the signed transaction and never below it.
    func testSizesMatchSignedTransactions() throws {
        let kernel = try makeKernelVerifier()
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            let spent = contract.lockOutput(value: Fixture.lockValue)
            for destination in DestinationType.allCases {
                let claimEstimate = SpendSize.claim(contract: contract, destination: destination)
                let refundEstimate = SpendSize.refund(contract: contract, destination: destination)
                // Several amounts give several sighashes, so several DER lengths for P2WSH.
                for rate: Int64 in [1000, 1500, 2000, 5000, 12_345, 20_000, 33_333, 50_000] {
                    let feeRate = try FeeRate(satPerKvB: rate)
                    let claim = try ClaimBuilder().build(Fixture.claimRequest(contract, to: destination, feeRate: feeRate),
                                                         claimKey: Fixture.claimKey, preimage: Fixture.preimage)
                    let refund = try RefundBuilder.build(Fixture.refundRequest(contract, to: destination, feeRate: feeRate),
                                                         refundKey: Fixture.refundKey)
                    XCTAssertTrue(try kernel.accepts(claim.transaction, spending: spent))
                    XCTAssertTrue(try kernel.accepts(refund.transaction, spending: spent))
                    for (estimate, actual, what) in [(claimEstimate, claim.transaction.virtualSize, "claim"),
                                                     (refundEstimate, refund.transaction.virtualSize, "refund")] {
                        if type == .taprootBoltz {
                            XCTAssertEqual(estimate, actual, "\(type) \(what) to \(destination)")
                        } else {
                            XCTAssertTrue((0...1).contains(estimate - actual),
                                          "\(type) \(what) to \(destination): estimate \(estimate), signed \(actual)")
                        }
                    }
                    // The fee paid covers the requested rate on the real size.
                    XCTAssertGreaterThanOrEqual(claim.plan.fee * 1000, rate * Int64(claim.transaction.virtualSize))
                    XCTAssertGreaterThanOrEqual(refund.fee * 1000, rate * Int64(refund.transaction.virtualSize))
                    XCTAssertEqual(claim.plan.virtualSize, claimEstimate)
                    XCTAssertEqual(refund.virtualSize, refundEstimate)
                }
            }
        }
    }

    /// The table in docs/HTLC.md: timeout 850000 (a 3-byte CScriptNum, like every mainnet
    /// height until 8,388,608). Pinned so a change to a script or a witness shows up here
    /// and in the doc together.
    func testVirtualSizeTable() {
        let expected: [ContractType: [DestinationType: (claim: Int, refund: Int)]] = [
            .taprootBoltz: [.p2pkh: (143, 129), .p2sh: (141, 127), .p2wpkh: (140, 126), .p2wsh: (152, 138), .p2tr: (152, 138)],
            // OP_SIZE 32 OP_EQUALVERIFY adds 4 witness bytes: one vbyte more than the retired layout.
            .p2wsh: [.p2pkh: (143, 135), .p2sh: (141, 133), .p2wpkh: (140, 132), .p2wsh: (152, 144), .p2tr: (152, 144)],
            .p2wshUnsized: [.p2pkh: (142, 134), .p2sh: (140, 132), .p2wpkh: (139, 131), .p2wsh: (151, 143), .p2tr: (151, 143)],
        ]
        var table = ["| contract | destination | claim vB | refund vB |", "|---|---|---|---|"]
        for type in ContractType.known {
            let contract = Fixture.contract(type)
            for destination in DestinationType.allCases {
                let claim = SpendSize.claim(contract: contract, destination: destination)
                let refund = SpendSize.refund(contract: contract, destination: destination)
                table.append("| \(type) | \(destination) | \(claim) | \(refund) |")
                XCTAssertEqual(claim, expected[type]?[destination]?.claim, "\(type) claim to \(destination)")
                XCTAssertEqual(refund, expected[type]?[destination]?.refund, "\(type) refund to \(destination)")
            }
        }
        print(table.joined(separator: "\n"))
    }
}
