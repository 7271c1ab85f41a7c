import Foundation

/// `peernode-testnet bench --chain electrum` (issue 18's figure): the benchmark's accept ->
/// claim latency on Electrum against Core in the same run (`BenchLegs`): every node on the
/// hub's Bitcoin Core RPC, then every node on a real ElectrumX over a fresh hub (trusted,
/// loopback, as `electrum-pay`).
enum ChainBench {
    static func run(_ run: RunContext, _ options: BenchOptions) -> Int32 {
        BenchLegs.run(run, options, headline: "peernode bench --chain electrum: \(options.swaps) sequential swaps with every node "
                          + "on Bitcoin Core, then on a real ElectrumX, zero-conf, real daemons, `peernode pay`",
                      variants: [
                          BenchLegs.Variant(name: "bitcoind", title: "every node on Bitcoin Core") { _, _ throws(Failure) in },
                          BenchLegs.Variant(name: "electrum", title: "every node on ElectrumX") { net, clock throws(Failure) in
                              let server = try ElectrumNodeScenarios.startElectrumX(net, clock)
                              net.chainConfig = server.nodeConfig(trusted: true)
                          },
                      ],
                      ratio: "accept -> claim p50 on ElectrumX / on Core")
    }
}

/// `peernode-testnet bench --coop` (issue 17's figure): the cost of cooperation, accept ->
/// claim in the mempool with every claim through the script path (`musig2=0` on every
/// node: no CoopClaimRequest round) against the key path (`musig2=1`, the default: one
/// round trip to the provider, which records, settles and co-signs before the claim
/// goes out), in the same run (`BenchLegs`), with each leg's claim sizes and fees.
enum CoopBench {
    static func run(_ run: RunContext, _ options: BenchOptions) -> Int32 {
        BenchLegs.run(run, options, headline: "peernode bench --coop: \(options.swaps) sequential swaps claimed through the "
                          + "script path (musig2=0), then through the key path (musig2=1), zero-conf, real daemons, `peernode pay`",
                      variants: [
                          BenchLegs.Variant(name: "script-path", title: "musig2=0 on every node: script-path claims") { net, _ throws(Failure) in
                              net.nodeConfig = ["musig2=0"]
                          },
                          BenchLegs.Variant(name: "key-path", title: "musig2=1 on every node: cooperative key-path claims") { net, _ throws(Failure) in
                              net.nodeConfig = ["musig2=1"]
                          },
                      ],
                      ratio: "accept -> claim p50, key path / script path")
    }
}
