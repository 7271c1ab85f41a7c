import Foundation

/// Mines for one submarine swap between `client` and `provider` the way its crash
/// scenarios need (SubmarineCrashScenarios.swift): quickly, yet so that every state the
/// flow can persist is persisted, and without spending the timeout's slack.
///
/// - A transaction in the mempool is mined once the node that reads it at 0 confirmations
///   has recorded it (the provider's `lock_seen` for the lock, the client's `paid` for the
///   claim), or after `longestDwell` whatever happened (a node down, a refund nobody waits
///   on). A plain block a second would often mine a transaction between two polls of a
///   node's chain follower, and that state would never be written.
/// - With the mempool empty, while a swap waits on the other side or on a follower
///   (`live`), nothing is mined: the provider pays only while `cltv_limit` at the tip
///   leaves a route, and blocks mined for nothing would eat that margin. One block comes
///   after `idleBlock` without any change, for a step retried at the next block.
/// - When the swaps wait only for a height (a refund timeout, a claim's depth, a provider
///   giving up a lock that never came), `burst` blocks at a time.
final class SubmarineMiner {
    /// Where each swap stands as the nodes' `swaps` tell it; nil: no swap, or the node is
    /// down (it cannot say).
    struct States: Equatable {
        var client: String?
        var provider: String?
        var clientUp = false
        var providerUp = false
    }

    /// The timings below, in polls of the nodes' chain followers.
    let longestDwell: TimeInterval
    /// At least this long in the mempool before a block: the node that announced a
    /// transaction may still be writing the state that follows its broadcast.
    let shortestDwell: TimeInterval
    let idleBlock: TimeInterval
    static let burst = 40
    /// The pause after a burst: a poll of the followers, so each node sees the blocks.
    let burstPause: TimeInterval

    private let net: Testnet
    private let client: Node
    private let provider: Node
    private var firstSeen: [String: Date] = [:]
    private var lastLook = Date.distantPast
    private var lastBlock = Date()
    private var lastChange = Date()
    private(set) var states = States()
    private(set) var mined = 0

    /// `followerPoll`: how often the nodes' chain followers look at the chain and the mempool.
    init(net: Testnet, client: Node, provider: Node, followerPoll: TimeInterval) {
        self.net = net
        self.client = client
        self.provider = provider
        longestDwell = 4 * followerPoll + 0.5
        shortestDwell = followerPoll
        idleBlock = 10 * followerPoll + 1
        burstPause = 2 * followerPoll
    }

    /// Looks at the mempool and the swaps (at most 10 times a second) and mines if the
    /// rules above say so. Cheap to call in a loop.
    func tick() throws(Failure) {
        let now = Date()
        guard now.timeIntervalSince(lastLook) >= 0.1 else { return }
        lastLook = now
        let mempool = Set(JSON.array(try net.hub.rpc.call("getrawmempool")).compactMap(JSON.string))
        firstSeen = firstSeen.filter { mempool.contains($0.key) }
        for txid in mempool where firstSeen[txid] == nil { firstSeen[txid] = now }
        let read = readStates()
        if read != states {
            states = read
            lastChange = now
        }
        if let newest = firstSeen.values.max() {
            let dwell = now.timeIntervalSince(newest)
            if dwell >= longestDwell || (dwell >= shortestDwell && observed(states)) { try mine(1) }
            return
        }
        if !live(states) {
            if now.timeIntervalSince(lastBlock) >= burstPause { try mine(Self.burst) }
        } else if now.timeIntervalSince(max(lastChange, lastBlock)) >= idleBlock {
            try mine(1)
        }
    }

    /// Whether both nodes are up and their swaps are final (or the provider never had one).
    var allFinal: Bool {
        let final: Set<String> = ["completed", "refunded", "abandoned", "claimed", "released", "lock_mismatch", "claim_lost"]
        guard states.clientUp, states.providerUp, let client = states.client, final.contains(client) else { return false }
        return states.provider.map(final.contains) ?? true
    }

    private func mine(_ blocks: Int) throws(Failure) {
        try net.hub.mine(blocks)
        mined += blocks
        lastBlock = Date()
    }

    private func readStates() -> States {
        let (client, clientUp) = state(of: self.client, role: "client")
        let (provider, providerUp) = state(of: self.provider, role: "provider")
        return States(client: client, provider: provider, clientUp: clientUp, providerUp: providerUp)
    }

    /// The state of `node`'s one swap of `role`, and whether the node answered.
    private func state(of node: Node, role: String) -> (String?, Bool) {
        guard node.isRunning, let result = try? node.cli(["swaps"], timeout: 10), result.ok, let json = result.json else {
            return (nil, false)
        }
        let swaps = JSON.array(json["swaps"]).compactMap(JSON.object).filter { JSON.string($0["role"]) == role }
        return (swaps.first.flatMap { JSON.string($0["state"]) }, true)
    }

    /// Whether the nodes that read the mempool's transactions at 0 confirmations have.
    private func observed(_ states: States) -> Bool {
        // The lock: the provider records it unconfirmed (`lock_seen`) before a block holds it.
        if states.providerUp, ["lock_intent", "lock_broadcast"].contains(states.client ?? ""),
           states.provider == nil || states.provider == "accepted" {
            return false
        }
        // The claim: the client records it unconfirmed (`paid`), whether its witness gives
        // the preimage or the client co-signed it (`coop_signed`, the preimage known).
        if states.clientUp, states.provider == "claim_broadcast",
           ["lock_broadcast", "lock_confirmed", "coop_signed"].contains(states.client ?? "") {
            return false
        }
        return true
    }

    /// Whether a swap waits on the other side or on a follower rather than on a height.
    private func live(_ states: States) -> Bool {
        // A node coming back up, or a pay not started yet.
        guard states.clientUp, states.providerUp, let client = states.client else { return true }
        if ["quoted", "accepted", "lock_intent", "lock_broadcast"].contains(client) { return true }
        if ["lock_seen", "lock_confirmed", "payment_intent", "payment_in_flight", "paid"].contains(states.provider ?? "") {
            return true
        }
        // A confirmed lock the provider has not taken up yet.
        return client == "lock_confirmed" && (states.provider == nil || states.provider == "accepted")
    }
}
