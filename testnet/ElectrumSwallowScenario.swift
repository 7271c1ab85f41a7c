import Foundation

/// E-4 of the review of 2026-12-07: an Electrum server the client does not run answers
/// `blockchain.transaction.broadcast` with the txid and relays nothing, so the claim sent
/// after the preimage left (in the cooperative request or the push) never reaches a miner
/// and the provider would refund its lock at the timeout while keeping the payment. Here
/// the server is a real ElectrumX behind a link that swallows every broadcast; the client
/// must get its claim out through LND's wallet (`PublishTransaction`) and carol must
/// receive exactly what was entered.
enum ElectrumSwallowScenario {
    static let amountSat: Int64 = 25_000

    static let scenario = Scenario(
        name: "electrum-swallowed-broadcast",
        summary: "the client on an ElectrumX it does not trust, behind a link that answers every broadcast with the txid "
            + "and relays nothing: the claim reaches the chain through LND's wallet and carol gets exactly X",
        group: .other, body: run)

    /// The broadcasts the link kept from ElectrumX, by txid.
    private final class Swallowed: @unchecked Sendable {
        private let lock = NSLock()
        private var txids: [String] = []
        func add(_ txid: String) { lock.lock(); txids.append(txid); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return txids }
    }

    /// The hub's RPC, for the txid of a transaction (`testmempoolaccept` names it whether
    /// or not it would be accepted), called from the link's threads.
    private final class TxidSource: @unchecked Sendable {
        let rpc: HubRPC
        init(_ rpc: HubRPC) { self.rpc = rpc }
        func txid(_ hex: String) -> String? {
            JSON.string(JSON.object(JSON.array(try? rpc.call("testmempoolaccept", [[hex]])).first)?["txid"])
        }
    }

    static func run(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let server = try ElectrumNodeScenarios.startElectrumX(net, clock)
        let swallowed = Swallowed()
        let source = TxidSource(net.hub.rpc)
        let link = try CuttableLink(to: server.port) { line in
            // The node sends its calls in batches, a broadcast beside other calls: the
            // broadcasts are answered here, each with its txid, and the rest goes on as a
            // batch (the node matches replies by id, whichever line brings them).
            let parsed = JSON.parse(String(decoding: line, as: UTF8.self))
            let calls: [[String: Any]] = (parsed as? [Any])?.compactMap { $0 as? [String: Any] }
                ?? (parsed as? [String: Any]).map { [$0] } ?? []
            let isBroadcast = { (call: [String: Any]) in JSON.string(call["method"]) == "blockchain.transaction.broadcast" }
            guard calls.contains(where: isBroadcast) else { return nil }
            var replies: [[String: Any]] = []
            for call in calls where isBroadcast(call) {
                guard let hex = JSON.string(JSON.array(call["params"]).first), let txid = source.txid(hex) else { return nil }
                replies.append(["jsonrpc": "2.0", "id": call["id"] ?? NSNull(), "result": txid])
            }
            for reply in replies { swallowed.add(JSON.string(reply["result"]) ?? "") }
            let rest = calls.filter { !isBroadcast($0) }
            func encoded(_ value: Any) -> [UInt8]? {
                (try? JSONSerialization.data(withJSONObject: value)).map { [UInt8]($0) + [0x0A] }
            }
            return (encoded(replies), rest.isEmpty ? nil : encoded(rest))
        }
        defer { link.stop() }
        clock.note("the client's server: 127.0.0.1:\(link.port), ElectrumX behind a link that swallows broadcasts")
        let onLink = ["chain_backend=electrum", "electrum_server=127.0.0.1:\(link.port)", "electrum_tls=0", "electrum_trusted=0"]
        let (client, providers, carol) = try Scenario.setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"],
                                                             config: ["client": onLink])
        var checks = try Scenario.payAndCheck(net, clock, client: client, contact: carol, amountSat: amountSat,
                                              expectProvider: providers[0])
        let kept = swallowed.all
        var confirmed: [String] = []
        for txid in kept {
            let found = JSON.object(try? net.hub.rpc.call("getrawtransaction", [txid, 1]))
            if (JSON.int(found?["confirmations"]) ?? 0) > 0 { confirmed.append(txid) }
        }
        checks += [
            Check("the link swallowed the client's broadcasts", !kept.isEmpty,
                  "\(kept.count) broadcast(s) answered with the txid and not relayed"),
            Check("each reached the chain anyway, through LND's wallet", !kept.isEmpty && confirmed.count == kept.count,
                  "\(confirmed.count) of \(kept.count) confirmed on the hub"),
            Check("the client said it broadcasts through LND too",
                  client.logContains("every broadcast goes through LND's wallet too"), "its start-up line on the Electrum server"),
        ]
        return checks
    }
}
