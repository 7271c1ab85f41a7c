import HTLC
import PeerNode
import Regtest
import TestSupport
import XCTest

/// Floor, cap and fallback around the backend's estimate.
final class FeeEstimatorTests: XCTestCase {
    private func rate(_ satPerKvB: Int64) -> FeeRate { try! FeeRate(satPerKvB: satPerKvB) }

    func testDefaultsAreOneSatFloorHundredCapTenFallback() {
        let policy = FeeEstimatePolicy.default
        XCTAssertEqual(policy.floor, rate(1_000))
        XCTAssertEqual(policy.cap, rate(100_000), "a provider's every lock pays its refund at the cap (H-4)")
        XCTAssertEqual(policy.fallback, rate(10_000))
    }

    func testEstimateWithinBoundsIsUsedAsIs() {
        XCTAssertEqual(FeeEstimatePolicy.default.apply(rate(2_000)), ChainFeeEstimate(rate: rate(2_000), source: .backend))
    }

    func testEstimateBelowTheFloorIsRaised() {
        XCTAssertEqual(FeeEstimatePolicy.default.apply(rate(100)), ChainFeeEstimate(rate: rate(1_000), source: .raisedToFloor))
    }

    func testEstimateAboveTheCapIsLowered() {
        XCTAssertEqual(FeeEstimatePolicy.default.apply(rate(2_000_000)),
                       ChainFeeEstimate(rate: rate(100_000), source: .loweredToCap))
    }

    func testNoEstimateUsesTheFallbackWithinBounds() {
        XCTAssertEqual(FeeEstimatePolicy.default.apply(nil), ChainFeeEstimate(rate: rate(10_000), source: .fallback))
        let odd = FeeEstimatePolicy(floor: rate(5_000), cap: rate(8_000), fallback: rate(20_000))
        XCTAssertEqual(odd.apply(nil).rate, rate(8_000), "a fallback above the cap is capped")
    }

    /// Against the kernel-validated chain: no data gives the fallback, a set rate is used,
    /// and out-of-range targets are moved into Core's 1...1008.
    func testEstimatorOverTheRegtestChain() async throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        let estimator = FeeEstimator(backend: RegtestChainBackend(chain: chain, verifier: try makeKernelVerifier()))
        var estimate = try await estimator.estimate(targetBlocks: 6)
        XCTAssertEqual(estimate, ChainFeeEstimate(rate: rate(10_000), source: .fallback))
        chain.setFeeEstimate(.feeRate(3_003))
        estimate = try await estimator.estimate(targetBlocks: 0)
        XCTAssertEqual(estimate, ChainFeeEstimate(rate: rate(3_003), source: .backend))
        chain.setFeeEstimate(.feeRate(400))
        let floored = try await estimator.feeRate(targetBlocks: 5_000)
        XCTAssertEqual(floored, rate(1_000))
    }
}
