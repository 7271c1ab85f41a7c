/// `hub_clock`: the hub's simulated time, for daemons started with
/// `PEERNODE_TEST_CLOCK=hub` (they poll it and interpolate with `rate`) and for runners
/// that wait for a simulated deadline.
extension BitcoinRPCMethods {
    static func hubClock(_ clock: SimulatedClock, blockIntervalSeconds: Int?) -> RPCMethod {
        RPCMethod("hub_clock",
                  summary: "Reports the hub's simulated unix time, how many simulated seconds pass per real second, "
                      + "and the simulated seconds between the blocks the hub mines by itself (null: none).",
                  result: "{...}    (json object) unix_time, unix_time_ms, rate, block_interval_seconds",
                  examples: [.cli(""), .rpc("")]) { _ in
            let milliseconds = clock.nowMilliseconds()
            return .object([
                "unix_time": .int(milliseconds / 1_000), "unix_time_ms": .int(milliseconds), "rate": .int(clock.rate),
                "block_interval_seconds": blockIntervalSeconds.map { .int($0) } ?? .null,
            ])
        }
    }
}
