import Bitcoin
import Regtest
import Synchronization
import XCTest

/// A settable chain tip and clock, as the hub's chain and wall clock would supply them.
final class SimEnvironment: Sendable {
    static let startTime: UInt64 = 1_767_225_600
    static let startHeight = 100

    let tip = Mutex(SimEnvironment.startHeight)
    let time = Mutex(SimEnvironment.startTime)
}

/// A network over a `SimEnvironment`: the set-up every simulator test starts from.
final class SimWorld: Sendable {
    let environment = SimEnvironment()
    let network: LightningNetwork

    init(policy: RoutingPolicy = .standard) {
        let environment = self.environment
        network = LightningNetwork(policy: policy,
                                   chainTip: { environment.tip.withLock { $0 } },
                                   clock: { environment.time.withLock { $0 } })
    }

    var tip: Int { environment.tip.withLock { $0 } }
    var now: UInt64 { environment.time.withLock { $0 } }

    func advanceTime(by seconds: UInt64) { environment.time.withLock { $0 += seconds } }

    /// Moves the tip and tells the network, as the hub does for each new block.
    func mine(to height: Int) {
        environment.tip.withLock { $0 = height }
        network.blockConnected(height: height)
    }
}

/// Reads streams the simulator has already fed; they never wait on other work.
func collect<T: Sendable>(_ stream: AsyncStream<T>) async -> [T] {
    var values = [T]()
    for await value in stream { values.append(value) }
    return values
}

func preimage(_ seed: UInt8) -> [UInt8] { [UInt8](repeating: seed, count: 32) }

/// A deterministic generator (SplitMix64) for the randomised conservation test.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
