import HTLC
@testable import Offers
import Transport
import XCTest

/// DESIGN 7's fee model and the provider's on-chain fee against numbers worked by hand.
final class FeeModelTests: XCTestCase {
    func testServiceFeeMatchesHandComputedExamples() {
        let model = FeeModel() // base 500, 2000 ppm
        XCTAssertEqual(model.serviceFee(amountSat: 100_000), 500 + 200)
        XCTAssertEqual(model.serviceFee(amountSat: 10_000), 500 + 20)
        XCTAssertEqual(model.serviceFee(amountSat: 1_000_000), 500 + 2_000)
        XCTAssertEqual(model.serviceFee(amountSat: 123_456), 500 + 246) // floor(246.912)
        XCTAssertEqual(model.serviceFee(amountSat: 499), 500) // floor(0.998)
        XCTAssertEqual(model.fee(amountSat: 100_000, onchainFeeSat: 743), 1_443)
        XCTAssertEqual(model.total(amountSat: 100_000, onchainFeeSat: 743), 101_443)
        // The largest amounts do not overflow: 21e14 × 1e6 is past 2^63.
        XCTAssertEqual(FeeModel(baseFeeSat: 0, feePPM: 1_000_000).serviceFee(amountSat: Amounts.maximumSat), Amounts.maximumSat)
        XCTAssertEqual(FeeModel(baseFeeSat: 0, feePPM: 333_333).serviceFee(amountSat: Amounts.maximumSat), 699_999_300_000_000)
    }

    func testLargestAmountIsExact() {
        let model = FeeModel()
        // 101,443 = 100,000 + 700 + 743 exactly.
        XCTAssertEqual(model.largestAmount(withTotalAtMost: 101_443, onchainFeeSat: 743), 100_000)
        XCTAssertEqual(model.largestAmount(withTotalAtMost: 101_442, onchainFeeSat: 743), 99_999)
        // 100,499 -> fee 700 (floor 200.998), total 101,942; 100,500 -> 701 -> 101,944.
        XCTAssertEqual(model.largestAmount(withTotalAtMost: 101_943, onchainFeeSat: 743), 100_499)
        XCTAssertEqual(model.largestAmount(withTotalAtMost: 1_242, onchainFeeSat: 743), nil)
        XCTAssertEqual(model.largestAmount(withTotalAtMost: 1_243, onchainFeeSat: 743), 0)
        // Exhaustively near a boundary: the answer fits and one more does not.
        for budget in Int64(50_000)...Int64(50_600) {
            let amount = model.largestAmount(withTotalAtMost: budget, onchainFeeSat: 743)!
            XCTAssertLessThanOrEqual(model.total(amountSat: amount, onchainFeeSat: 743), budget)
            XCTAssertGreaterThan(model.total(amountSat: amount + 1, onchainFeeSat: 743), budget)
        }
    }

    func testContractSizesMatchHandCountedTransactions() {
        // Taproot refund: 94 base bytes (4 version, 1+41 input, 1+43 P2TR output, 4 locktime)
        // = 376 WU, + 2 marker/flag + witness 1 + 65 sig + 40 leaf (39 bytes) + 66 control
        // block = 550 WU -> 138 vB.
        XCTAssertEqual(ContractSizes.refundVirtualSize(.taprootBoltz, destination: .p2tr), 138)
        // P2WSH (p2wsh_v2) refund: 376 + 2 + witness 1 + 74 sig + 1 empty + 119 script
        // (118 bytes, OP_SIZE 32 OP_EQUALVERIFY included) = 573 WU -> 144 vB; the retired
        // layout's 114-byte script gives 569 WU -> 143 vB.
        XCTAssertEqual(ContractSizes.refundVirtualSize(.p2wsh, destination: .p2tr), 144)
        XCTAssertEqual(ContractSizes.refundVirtualSize(.p2wshUnsized, destination: .p2tr), 143)
        XCTAssertEqual(OnchainFeeEstimate.lockVirtualSize, 154)
    }

    func testOnchainFeeFormula() throws {
        let estimate = OnchainFeeEstimate() // both contract types: refund reserve 144 vB, 125%
        XCTAssertEqual(estimate.refundVirtualSize, 144)
        // ceil(2000 × (154 + 144) × 125 / 100,000) = ceil(745) = 745
        XCTAssertEqual(estimate.onchainFee(at: Fixtures.rate(2)), 745)
        // ceil(1000 × 298 × 125 / 100,000) = ceil(372.5) = 373
        XCTAssertEqual(estimate.onchainFee(at: Fixtures.rate(1)), 373)
        // 12.5 sat/vB = 12,500 sat/kvB: ceil(12,500 × 298 × 1.25) = 4656.25 -> 4657
        XCTAssertEqual(estimate.onchainFee(at: try FeeRate(satPerKvB: 12_500)), 4_657)
        // Taproot only: ceil(2000 × (154 + 138) × 1.25) = 730
        XCTAssertEqual(OnchainFeeEstimate(contractTypes: [.taprootBoltz]).onchainFee(at: Fixtures.rate(2)), 730)
        // Safety 100%: cost only: ceil(2 × 298) = 596
        XCTAssertEqual(OnchainFeeEstimate(safetyPercent: 100).onchainFee(at: Fixtures.rate(2)), 596)
        XCTAssertEqual(OnchainFeeEstimate.wholeSatPerVByte(try FeeRate(satPerKvB: 12_500)), 13)
        XCTAssertEqual(estimate.onchainFee(at: try FeeRate(satPerKvB: 0)), 0)
    }

    func testOfferMaxNeverAboveWhatCanBeLockedNow() throws {
        // A cap of 50 sat/vB puts the refund floor (7,530) below the configured 10,000.
        let terms = ProviderTerms(network: .regtest, refundFeeCap: Fixtures.rate(50))
        let builder = OfferBuilder(terms: terms, provider: Fixtures.provider.pubky)
        // Plenty: the configured max.
        let rich = try builder.offer(requestID: "r", offerID: "o", liquiditySat: 5_000_000, rate: Fixtures.rate(2),
                                     nowUnix: Fixtures.now)
        XCTAssertEqual(rich.maxAmountSat, 1_000_000)
        XCTAssertEqual(rich.onchainFeeSat, 745)
        XCTAssertEqual(rich.feeRateSatPerVByte, 2)
        // The exact rate, so a client recomputes onchain_fee_sat (docs/TRANSPORT.md):
        // ceil(12,345 × (154 + 144) × 125 / 100,000) at 12.345 sat/vB, which whole sat/vB cannot say
        // (144: the p2wsh_v2 refund, the larger of the two offered).
        let odd = try builder.offer(requestID: "r", offerID: "o", liquiditySat: 5_000_000,
                                    rate: try FeeRate(satPerKvB: 12_345), nowUnix: Fixtures.now)
        XCTAssertEqual(odd.feeRateSatPerKvB, 12_345)
        XCTAssertEqual(odd.feeRateSatPerVByte, 13)
        XCTAssertEqual(terms.onchainFee.refundVirtualSize, 144)
        XCTAssertEqual(odd.onchainFeeSat, (12_345 * (154 + 144) * 125 + 99_999) / 100_000)
        XCTAssertEqual(rich.validUntilUnix, Fixtures.now + 600)
        XCTAssertEqual(rich.features, ["taproot_boltz", "p2wsh_v2", "preimage_push"])
        XCTAssertEqual(rich.providerPubky, Fixtures.provider.pubky)
        // 300,000 in the wallet: 300,000 − 745.
        let tight = try builder.offer(requestID: "r", offerID: "o", liquiditySat: 300_000, rate: Fixtures.rate(2),
                                      nowUnix: Fixtures.now)
        XCTAssertEqual(tight.maxAmountSat, 299_255)
        // Below the minimum once the fee is taken: no offer.
        XCTAssertOffersError(.insufficientLiquidity(available: 9_999, needed: 10_000)) {
            try builder.offer(requestID: "r", offerID: "o", liquiditySat: 10_744, rate: Fixtures.rate(2), nowUnix: Fixtures.now)
        }
        XCTAssertEqual(try builder.offer(requestID: "r", offerID: "o", liquiditySat: 10_745, rate: Fixtures.rate(2),
                                         nowUnix: Fixtures.now).maxAmountSat, 10_000)
    }
}
