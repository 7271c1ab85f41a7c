#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A provider's capacity (issue 14): its wallet spends its own unconfirmed change, so one
/// coin locks several swaps before the next block.
enum CapacityScenarios {
    static let all: [Scenario] = [
        Scenario(name: "single-coin-5",
                 summary: "a provider with a single coin serves 5 swaps within one block interval: 5 locks, each on "
                     + "the previous one's change, before any block; all 5 complete",
                 group: .other, body: singleCoinFive),
    ]

    static func singleCoinFive(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let count = 5
        let load = try LoadNetwork.setUp(net, clock, clients: 1, clientSat: 500_000, providerCoins: 1, coinSat: 1_000_000)
        let provider = load.provider
        let before = try net.hub.rpc.balances()
        let payeeBefore = try load.payee.walletBalance().total
        let startHeight = try height(net)
        let amounts = LoadNetwork.amounts(count: count)
        var lockedAt = -1
        let outcomes = try clock.stage("\(count) pays at once from one client, no block mined until provA has locked all \(count)") {
            () throws(Failure) -> [PayOutcome] in
            let burst = try PayBurst(net, clients: load.clients, payee: load.payee, amounts: amounts, tag: "cap")
            defer { burst.stop() }
            let deadline = Date().addingTimeInterval(120)
            var locked = 0
            while Date() < deadline {
                locked = try locksOut(provider)
                if locked >= count || burst.running == 0 { break }
                usleep(100_000)
            }
            lockedAt = try height(net)
            clock.note("provA broadcast \(locked) lock(s) at height \(lockedAt) (the pays started at \(startHeight)); "
                + "mempool \(JSON.array(try net.hub.rpc.call("getrawmempool")).count) tx")
            // Now blocks: the first lock (confirmed input) was claimed at zero-conf; the
            // chained ones wait for their confirmation, as clients require.
            return try Scenario.withAutomine(net) { () throws(Failure) -> [PayOutcome] in
                try burst.waitAll(timeout: 300)
                clock.note("all \(count) pays ended \(StageClock.seconds(burst.elapsedSeconds).trimmingCharacters(in: .whitespaces)) "
                    + "after the first was launched, at height \(try height(net))")
                return burst.outcomes()
            }
        }
        let blocks = try clock.stage("mine until every swap is final") { () throws(Failure) -> Int in
            try CrashScenarios.settle(net)
        }
        clock.note("mined \(blocks) block(s)")
        let after = try net.hub.rpc.balances()
        let payeeGain = try load.payee.walletBalance().total - payeeBefore
        let lockedAfter = try locksOut(provider)
        var checks = [Check("provA locked all \(count) swaps from its one coin within one block interval",
                            lockedAt == startHeight && lockedAfter >= count,
                            "tip \(startHeight) when the pays started, \(lockedAt) when the \(count)th lock was out")]
        checks += load.deliveryChecks(outcomes, before: before, after: after, payeeGain: payeeGain)
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        return checks
    }

    private static func height(_ net: Testnet) throws(Failure) -> Int {
        JSON.int(try net.hub.rpc.call("getblockcount")).map(Int.init) ?? -1
    }

    /// The provider's swaps whose lock is out (broadcast, confirmed, or further).
    private static func locksOut(_ provider: Node) throws(Failure) -> Int {
        let swaps = JSON.array(try provider.must(["swaps", "--limit", "100"])["swaps"])
        let beyond: Set<String> = ["lock_broadcast", "lock_confirmed", "claim_observed", "coop_signed", "settled"]
        return swaps.filter { beyond.contains(JSON.string(JSON.object($0)?["state"]) ?? "") }.count
    }
}
