import Bitcoin
import HTLC
import Offers
@testable import PeerNode
import XCTest

/// Issue #9's figure, measured (printed, never asserted): from calling `pay` to the claim
/// being broadcast, for sequential swaps on the hub with zero-conf, both engines real and
/// every message over loopback TCP. Each swap is also checked to deliver exactly X.
final class EndToEndLatencyTests: XCTestCase {
    func testTwentySequentialSwapsFromPayToClaimBroadcast() async throws {
        let swaps = 20
        let amount: Int64 = 100_000
        // No wait for the claim's confirmation: `pay` returns as the claim is accepted.
        let configuration = SwapClientNode.testConfiguration(confirmationWaitMilliseconds: 0)
        try await EndToEndNetwork.run(directory: try StoreFixture.directory(for: self),
                                      clientBalanceSat: 5_000_000, clientConfiguration: configuration) { network in
            let destination = try await network.client.onchainEndpoint(of: network.payee.contact)
            let decision = try await network.routeThroughProvider(amountSat: amount, to: destination)
            let provider = try XCTUnwrap(decision.choice).provider
            let engine = network.client.engine
            var toReturn: [Duration] = []
            var toIntent: [Duration] = []
            for _ in 0..<swaps {
                let start = ContinuousClock.now
                let report = try await engine.pay(destination: destination, amountSat: amount, via: provider)
                toReturn.append(ContinuousClock.now - start)
                if let intent = network.client.progress.first(.claimBroadcast, of: report.swapID) {
                    toIntent.append(intent - start)
                }
                XCTAssertNotNil(network.hub.chain.mempoolEntry(report.claimTxid), "the claim is out when pay returns")
                // Settle each before the next, outside the measurement.
                try network.hub.mine(1)
                try await network.eventually("swap \(report.swapID) completes") {
                    try await network.client.lastKind(report.swapID) == "completed"
                }
                try await network.eventually("swap \(report.swapID) settles") {
                    try await network.provider.lastKind(report.swapID) == "settled"
                }
            }
            let received = try await network.payee.chainBalance()
            XCTAssertEqual(received, Int64(swaps) * amount)
            print("end-to-end pay -> claim broadcast (\(swaps) swaps, zero-conf, loopback TCP): "
                  + "p50 \(Self.milliseconds(Self.percentile(0.50, of: toReturn))) ms, "
                  + "p99 \(Self.milliseconds(Self.percentile(0.99, of: toReturn))) ms, "
                  + "min \(Self.milliseconds(toReturn.min() ?? .zero)) ms, max \(Self.milliseconds(toReturn.max() ?? .zero)) ms")
            print("end-to-end pay -> claim intent recorded: p50 \(Self.milliseconds(Self.percentile(0.50, of: toIntent))) ms, "
                  + "p99 \(Self.milliseconds(Self.percentile(0.99, of: toIntent))) ms")
        }
    }

    /// Nearest-rank percentile.
    static func percentile(_ q: Double, of samples: [Duration]) -> Duration {
        guard !samples.isEmpty else { return .zero }
        let sorted = samples.sorted()
        let rank = Int((q * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let ms = Double(seconds) * 1_000 + Double(attoseconds) / 1e15
        return String(format: "%.1f", ms)
    }
}
