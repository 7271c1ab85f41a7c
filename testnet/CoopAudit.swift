import Foundation

/// The nonce rule of cooperative key-path spends (issue 17), checked from what the two
/// nodes stored (their `swap show` events), in either direction and for claims and refunds
/// alike: no public nonce, the initiator's or the co-signer's, stands for two different
/// messages; every co-signature answers a round the other node recorded; a claim is
/// co-signed at most once per swap; and at most one key-path spend of each lock ever
/// reached the chain.
///
/// Where the records are: a round's initiator keeps `coop_request` (a claim: a reverse
/// client, a submarine provider) or `coop_refund_request` (a submarine client's refund),
/// each with its `pubnonce` and `sighash`; a co-signer keeps `coop` (a claim: a reverse
/// provider, a submarine client) or `coop_refund` (a submarine provider), with both
/// nonces named by the party that made them.
enum CoopAudit {
    private struct Round {
        let node: String
        let nonce: String
        let sighash: String
    }

    private struct Cosignature {
        let node: String
        let swap: String
        let claim: Bool
        let nonces: [String]
        let sighash: String
    }

    /// `since`: the height from which the locks' spends are read (each reverse lock's own
    /// height when nil, which a submarine lock's record does not carry).
    static func checks(_ net: Testnet, client: Node, provider: Node, since: Int64? = nil) throws(Failure) -> [Check] {
        var rounds: [Round] = []
        var cosignatures: [Cosignature] = []
        var spends: [String] = []
        for node in [client, provider] {
            for swap in try node.swapList() {
                let events = try node.swapEvents(swap.id)
                for data in events {
                    for key in ["coop_request", "coop_refund_request"] {
                        guard let round = JSON.object(data[key]), let nonce = JSON.string(round["pubnonce"]),
                              let sighash = JSON.string(round["sighash"]) else { continue }
                        rounds.append(Round(node: node.name, nonce: nonce, sighash: sighash))
                    }
                    for key in ["coop", "coop_refund"] {
                        guard let signed = JSON.object(data[key]), let clientNonce = JSON.string(signed["client_pubnonce"]),
                              let providerNonce = JSON.string(signed["provider_pubnonce"]),
                              let sighash = JSON.string(signed["sighash"]) else { continue }
                        cosignatures.append(Cosignature(node: node.name, swap: swap.id, claim: key == "coop",
                                                        nonces: [clientNonce, providerNonce], sighash: sighash))
                    }
                }
                // Each lock once: the provider holds every one (it locks reverse swaps, it
                // records the client's submarine lock).
                if node === provider, swap.role == "provider", let lock = events.compactMap({ JSON.object($0["lock"]) }).last {
                    spends.append(try keyPathSpends(net, lock: lock, swap: swap.id, since: since))
                }
            }
        }
        var messages: [String: Set<String>] = [:]
        for round in rounds { messages[round.nonce, default: []].insert(round.sighash) }
        var foreign = Set<String>()
        var claims: [String: Set<String>] = [:]
        for signed in cosignatures {
            for nonce in signed.nonces { messages[nonce, default: []].insert(signed.sighash) }
            let answered = rounds.contains { $0.node != signed.node && signed.nonces.contains($0.nonce) && $0.sighash == signed.sighash }
            if !answered { foreign.insert(signed.swap) }
            if signed.claim { claims[signed.node + "/" + signed.swap, default: []].insert(signed.sighash) }
        }
        let reused = messages.filter { $0.value.count > 1 }
        let twice = claims.filter { $0.value.count > 1 }
        let distinctRounds = Set(rounds.map(\.nonce)).count
        let distinctSignatures = Set(cosignatures.map { $0.nonces.joined() }).count
        return [
            Check("no nonce signed two messages (from the stored nonces and co-signatures)",
                  reused.isEmpty && twice.isEmpty && foreign.isEmpty,
                  "\(distinctRounds) round(s), \(distinctSignatures) co-signature(s); nonces with two messages: \(reused.count); "
                  + "claims co-signed twice: \(twice.count); signed under a nonce the other side never recorded: \(foreign.count)"),
            Check("at most one aggregate signature per lock reached the chain", !spends.contains { $0.hasPrefix("FAIL") },
                  spends.joined(separator: "; ")),
        ]
    }

    /// What a client swap's claim sent beyond X because it took the key path: a swap-out's
    /// saving (0 on the script path, and for a contact payment), read from its last event
    /// (`swapID`, or the newest client swap). The swap-out's exact-amount checks add it.
    static func keyPathExtra(_ client: Node, swapID: String? = nil) throws(Failure) -> Int64 {
        var id = swapID
        if id == nil { id = try client.swapList().first { $0.role == "client" }?.id }
        guard let id, let last = try client.swapEvents(id).last, JSON.string(last["claim_path"]) == "key_path" else { return 0 }
        return JSON.int(JSON.object(last["coop_request"])?["key_path_extra_sat"]) ?? 0
    }

    /// The provider swap's event kinds, in order.
    static func kinds(_ provider: Node) throws(Failure) -> [String] {
        guard let swap = try provider.swapList().first(where: { $0.role == "provider" }) else { return [] }
        return JSON.array(try provider.must(["swap", "show", swap.id])["events"]).compactMap { JSON.string(JSON.object($0)?["kind"]) }
    }

    /// The spends of the lock in blocks from its height (and the mempool): "FAIL …" when
    /// more than one is a key-path spend (one witness item). The lock is found by its bytes
    /// (the hub's RPC has no decoderawtransaction).
    private static func keyPathSpends(_ net: Testnet, lock: [String: Any], swap: String, since: Int64?) throws(Failure) -> String {
        guard let hex = JSON.string(lock["tx"]), let vout = JSON.int(lock["vout"]) else { return "\(swap): no lock" }
        let rpc = net.hub.rpc
        let from = Int(max(0, since ?? JSON.int(lock["height"]) ?? 0))
        let tip = JSON.int(try rpc.call("getblockcount")).map(Int.init) ?? from
        // Two batches, not two calls a block.
        let hashes = try rpc.batch((from...max(from, tip)).map { ("getblockhash", [$0]) }).compactMap(JSON.string)
        var transactions = try rpc.batch(hashes.map { ("getblock", [$0, 2]) })
            .flatMap { JSON.array(JSON.object($0)?["tx"]).compactMap(JSON.object) }
        let mempool = JSON.array(try rpc.call("getrawmempool")).compactMap(JSON.string)
        transactions += try rpc.batch(mempool.map { ("getrawtransaction", [$0, true]) }).compactMap(JSON.object)
        guard let txid = transactions.first(where: { JSON.string($0["hex"]) == hex }).flatMap({ JSON.string($0["txid"]) }) else {
            return "\(swap): its lock never reached the chain"
        }
        let spending = transactions.filter { tx in
            JSON.array(tx["vin"]).compactMap(JSON.object).contains { JSON.string($0["txid"]) == txid && JSON.int($0["vout"]) == vout }
        }
        let keyPath = spending.filter { tx in
            JSON.array(JSON.object(JSON.array(tx["vin"]).first)?["txinwitness"]).count == 1
        }
        let line = "\(swap): \(spending.count) spend(s) of the lock, \(keyPath.count) through the key path"
        return keyPath.count > 1 ? "FAIL " + line : line
    }
}
