import Foundation

/// The hub's JSON-RPC endpoint (Bitcoin Core's methods and the `hub_*` controls), as
/// printed by `peernode-regtest` on start-up.
struct HubRPC {
    let port: Int
    let user: String
    let password: String

    /// Calls `method`; a JSON-RPC error comes back as a failure naming the method and
    /// the hub's message.
    func call(_ method: String, _ params: [Any] = [], timeout: TimeInterval = 30) throws(Failure) -> Any {
        let request: [String: Any] = ["jsonrpc": "1.0", "id": "testnet", "method": method, "params": params]
        let response = try post(request, what: method, timeout: timeout)
        guard let reply = JSON.parse(response.body) as? [String: Any] else {
            throw Failure("\(method): HTTP \(response.status) with an unreadable body: \(response.body.prefix(200))")
        }
        let result = try Self.result(of: reply, method: method)
        guard response.status == 200 else { throw Failure("\(method): HTTP \(response.status): \(response.body.prefix(200))") }
        return result
    }

    /// Calls every method of `calls` in one JSON-RPC batch (one HTTP round trip): the
    /// results in order; any error fails the whole batch, naming the method.
    func batch(_ calls: [(method: String, params: [Any])], timeout: TimeInterval = 30) throws(Failure) -> [Any] {
        guard !calls.isEmpty else { return [] }
        let what = "a batch of \(calls.count) calls"
        let requests: [[String: Any]] = calls.enumerated().map { index, call in
            ["jsonrpc": "1.0", "id": index, "method": call.method, "params": call.params]
        }
        let response = try post(requests, what: what, timeout: timeout)
        guard response.status == 200, let replies = JSON.parse(response.body) as? [[String: Any]], replies.count == calls.count else {
            throw Failure("\(what): HTTP \(response.status): \(response.body.prefix(200))")
        }
        var results = [Any](repeating: NSNull(), count: calls.count)
        for reply in replies {
            guard let index = JSON.int(reply["id"]).map(Int.init), results.indices.contains(index) else {
                throw Failure("\(what): a reply without its id")
            }
            results[index] = try Self.result(of: reply, method: calls[index].method)
        }
        return results
    }

    /// `payload` (one request or a batch) posted with the node's credentials.
    private func post(_ payload: Any, what: String, timeout: TimeInterval) throws(Failure) -> LoopbackHTTP.Response {
        let body: Data
        do {
            body = try JSONSerialization.data(withJSONObject: payload)
        } catch {
            throw Failure("\(what): cannot encode the parameters: \(error)")
        }
        let auth = Data("\(user):\(password)".utf8).base64EncodedString()
        return try LoopbackHTTP.post(port: port, path: "/", headers: [
            "Authorization": "Basic \(auth)", "Content-Type": "application/json"], body: body, timeout: timeout)
    }

    /// One reply's result, or its error as a failure naming the method and the hub's message.
    private static func result(of reply: [String: Any], method: String) throws(Failure) -> Any {
        if let error = reply["error"] as? [String: Any] {
            throw Failure("\(method): hub error \(JSON.int(error["code"]).map(String.init) ?? "?"): \(JSON.string(error["message"]) ?? "")")
        }
        return reply["result"] ?? NSNull()
    }

    /// Every balance on the chain and on Lightning, read once.
    func balances() throws(Failure) -> HubBalances {
        guard let result = try call("hub_balances") as? [String: Any] else { throw Failure("hub_balances: not an object") }
        return HubBalances(raw: result)
    }
}

/// A `hub_balances` snapshot: the chain's unspent outputs by address and in total, the
/// hub's own coins, the mempool, and the Lightning simulator's books.
struct HubBalances {
    let raw: [String: Any]

    var height: Int64 { JSON.int(raw["height"]) ?? 0 }
    var chainTotalSat: Int64 { JSON.sats(btc: JSON.object(raw["chain"])?["total"]) ?? 0 }
    var mempoolSize: Int64 { JSON.int(JSON.object(raw["mempool"])?["size"]) ?? 0 }
    var lightning: [String: Any] { JSON.object(raw["lightning"]) ?? [:] }
    var lightningConserved: Bool { JSON.bool(lightning["conserved"]) ?? false }
    var inFlightMsat: Int64 { JSON.int(lightning["in_flight_msat"]) ?? 0 }
    var feesCollectedMsat: Int64 { JSON.int(lightning["fees_collected_msat"]) ?? 0 }

    func lightningMsat(_ node: String) -> Int64? { JSON.int(JSON.object(lightning["nodes"])?[node]) }

    func chainSat(address: String) -> Int64 {
        JSON.sats(btc: JSON.object(JSON.object(raw["chain"])?["addresses"])?[address]) ?? 0
    }

    /// All block subsidies up to the tip (regtest: 50 BTC halving every 150 blocks; the
    /// genesis output is unspendable and not counted). The chain's unspent total minus
    /// this is what was created or destroyed outside mining, which must stay constant:
    /// fees move from a spender to the miner, they do not vanish.
    var subsidiesSat: Int64 {
        var total: Int64 = 0
        for blockHeight in stride(from: Int64(1), through: height, by: 1) {
            let halvings = blockHeight / 150
            if halvings < 64 { total += (50 * 100_000_000) >> halvings }
        }
        return total
    }

    var chainOffsetSat: Int64 { chainTotalSat - subsidiesSat }
}
