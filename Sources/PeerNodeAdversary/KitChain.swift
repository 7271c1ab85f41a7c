import Bitcoin
import HTLC
import PeerNode
import Transport

/// The chain as the kit reads and writes it: Bitcoin Core's JSON-RPC (the regtest hub's),
/// through the project's `BitcoinCoreRPC`. The kit keeps no wallet and no chain view of its
/// own; it asks the node, as a script would.
struct KitChain {
    let rpc: BitcoinCoreRPC

    func call(_ method: String, _ params: [JSONValue] = []) async throws(KitError) -> JSONValue {
        do {
            return try await rpc.call(method, params)
        } catch {
            throw KitError("\(method): \(error)")
        }
    }

    func tipHeight() async throws(KitError) -> Int {
        guard let height = try await call("getblockcount").int64Value else { throw KitError("getblockcount: not a number") }
        return Int(height)
    }

    /// The two-block estimate, never under the relay floor (1 sat/vB), as the daemon prices a claim.
    func feeRate() async throws(KitError) -> FeeRate {
        let answer = try await call("estimatesmartfee", [.integer(2)])
        var satPerKvB: Int64 = 1_000
        if case .number(let text)? = answer["feerate"], let estimate = BitcoinDecimal.satoshis(fromBitcoin: text) {
            satPerKvB = max(satPerKvB, estimate)
        }
        do { return try FeeRate(satPerKvB: satPerKvB) } catch { throw KitError("fee rate \(satPerKvB) sat/kvB: \(error)") }
    }

    /// The output's value while it is unspent (counting mempool spends as spent); nil once
    /// anything spends it, or before it exists.
    func unspentValue(_ outPoint: OutPoint) async throws(KitError) -> Int64? {
        let answer = try await call("gettxout", [.string(outPoint.txid.hex), .integer(outPoint.index), .bool(true)])
        guard case .number(let text)? = answer["value"] else { return nil }
        return BitcoinDecimal.satoshis(fromBitcoin: text)
    }

    /// The mempool transaction spending `outPoint`, if one does.
    func mempoolSpender(of outPoint: OutPoint) async throws(KitError) -> Transaction? {
        for txid in try await call("getrawmempool").arrayValue ?? [] {
            guard let id = txid.stringValue, let transaction = try await transaction(id) else { continue }
            if transaction.inputs.contains(where: { $0.previousOutput == outPoint }) { return transaction }
        }
        return nil
    }

    /// A transaction from the mempool or a block; nil when the node knows none by that id.
    func transaction(_ txid: String) async throws(KitError) -> Transaction? {
        let answer: JSONValue
        do {
            answer = try await rpc.call("getrawtransaction", [.string(txid)])
        } catch {
            // -5: no such transaction (it may have left the mempool between two calls).
            if case .rpc(-5, _) = error { return nil }
            throw KitError("getrawtransaction \(txid): \(error)")
        }
        guard let hex = answer.stringValue else { return nil }
        do { return try Transaction(hex: hex) } catch { throw KitError("transaction \(txid) does not decode: \(error)") }
    }

    /// `sendrawtransaction`, keeping the mempool's refusal as an answer: a non-standard
    /// claim is supposed to be refused, and the reason is part of the report.
    func offer(_ transaction: Transaction) async -> (accepted: Bool, answer: String) {
        do {
            let txid = try await rpc.call("sendrawtransaction", [.string(transaction.serialized.hex)])
            return (true, txid.stringValue ?? "")
        } catch {
            switch error {
            case .rejected(let code, let reason), .rpc(let code, let reason): return (false, "\(code): \(reason)")
            default: return (false, "\(error)")
            }
        }
    }

    /// Mines `transaction` now in a block of its own, bypassing mempool policy but not
    /// consensus (the hub's `hub_mine_transaction`, a miner taking it out of band).
    func mineNow(_ transaction: Transaction) async throws(KitError) -> (blockhash: String, height: Int64) {
        let answer = try await call("hub_mine_transaction", [.string(transaction.serialized.hex)])
        guard let blockhash = answer["blockhash"]?.stringValue, let height = answer["height"]?.int64Value else {
            throw KitError("hub_mine_transaction: no blockhash/height in the answer")
        }
        return (blockhash, height)
    }
}
