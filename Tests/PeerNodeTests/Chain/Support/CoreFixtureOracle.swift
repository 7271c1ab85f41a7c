import Bitcoin
import Foundation
import HTLC
import PeerNode

/// What the client must make of a fixture, worked out from the fixture's own JSON (read
/// with Foundation, independently of the client's parser) and the documented rules:
/// 401/403 -> unauthorized; a JSON-RPC error -> `.rpc`, except `sendrawtransaction`'s
/// refusals (-25/-26/-27) -> `.rejected` and `getrawtransaction`'s -5 -> no transaction;
/// an answer in a shape the call does not use -> `.malformedResponse`.
enum CoreFixtureOracle {
    enum Expectation {
        case value(Decoded)
        case error(ChainBackendError)
        /// Any `.malformedResponse`; the wording is the client's.
        case malformed
    }

    static func expectation(for fixture: CoreFixture, url: String, fallback: Transaction) -> Expectation {
        if fixture.httpStatus == 401 || fixture.httpStatus == 403 { return .error(.unauthorized(url: url)) }
        let method = fixture.clientMethod
        if let (code, message) = fixture.rpcError {
            if method == "sendrawtransaction" && [-25, -26, -27].contains(code) {
                return .error(.rejected(code: code, reason: message))
            }
            if method == "getrawtransaction" && code == -5 {
                return .value(fixture.asksVerbose ? .transaction(nil) : .rawTransaction(nil))
            }
            return .error(.rpc(code: code, message: message))
        }
        guard fixture.httpStatus == 200, let body = fixture.responseBody, body.keys.contains("result"),
              let result = fixture.result else { return .malformed }
        return successExpectation(method: method, result: result, fixture: fixture, fallback: fallback) ?? .malformed
    }

    private static func successExpectation(method: String, result: Any, fixture: CoreFixture,
                                           fallback: Transaction) -> Expectation? {
        switch method {
        case "getblockchaininfo":
            guard let r = result as? [String: Any], let hash = (r["bestblockhash"] as? String).flatMap({ try? BlockHash(hex: $0) }),
                  let chain = r["chain"] as? String, let blocks = r["blocks"] as? Int, let headers = r["headers"] as? Int
            else { return nil }
            return .value(.info(BlockchainInfo(chain: chain, blocks: blocks, headers: headers, bestBlockHash: hash,
                                               initialBlockDownload: r["initialblockdownload"] as? Bool ?? false,
                                               pruned: r["pruned"] as? Bool ?? false)))
        case "getblockcount":
            return (result as? Int).map { .value(.count($0)) }
        case "getbestblockhash", "getblockhash":
            return (result as? String).flatMap { try? BlockHash(hex: $0) }.map { .value(.hash($0)) }
        case "getblock":
            return (result as? String).flatMap { try? Block(hex: $0) }.map { .value(.block($0)) }
        case "getblockheader":
            // The client asks verbose: the hex form (verbose=false) is a shape it does not use.
            guard let r = result as? [String: Any], let height = r["height"] as? Int, height >= 0,
                  let hash = r["hash"] as? String, hash == fixture.paramsArray.first as? String else { return nil }
            return .value(.height(height))
        case "getrawtransaction" where !fixture.asksVerbose:
            guard let tx = (result as? String).flatMap({ try? Transaction(hex: $0) }),
                  tx.txid.hex == fixture.paramsArray.first as? String else { return nil }
            return .value(.rawTransaction(tx))
        case "getrawtransaction":
            guard let r = result as? [String: Any], let tx = (r["hex"] as? String).flatMap({ try? Transaction(hex: $0) })
            else { return nil }
            let blockHash = (r["blockhash"] as? String).flatMap { try? BlockHash(hex: $0) }
            return .value(.transaction(PeerNode.ChainTransaction(transaction: tx, blockHash: blockHash,
                                                                 confirmations: r["confirmations"] as? Int ?? 0)))
        case "sendrawtransaction":
            return (result as? String).flatMap { try? TransactionID(hex: $0) }.map { .value(.txid($0)) }
        case "testmempoolaccept":
            let sent = fixture.requestTransaction() ?? fallback
            guard let entries = result as? [[String: Any]],
                  let entry = entries.first(where: { $0["txid"] as? String == sent.txid.hex }) else { return nil }
            let allowed = entry["allowed"] as? Bool ?? false
            let reason = entry["reject-reason"] as? String ?? entry["package-error"] as? String
            return .value(.acceptance(MempoolAcceptance(
                txid: sent.txid, allowed: allowed, rejectReason: allowed ? nil : reason,
                virtualSize: entry["vsize"] as? Int, feeSat: satoshis((entry["fees"] as? [String: Any])?["base"]))))
        case "getrawmempool":
            guard let list = result as? [String] else { return nil }
            return .value(.txids(list.compactMap { try? TransactionID(hex: $0) }))
        case "gettxout":
            if result is NSNull { return .value(.unspent(nil)) }
            guard let r = result as? [String: Any], let value = satoshis(r["value"]),
                  let script = ((r["scriptPubKey"] as? [String: Any])?["hex"] as? String).flatMap({ [UInt8](hex: $0) }),
                  let confirmations = r["confirmations"] as? Int else { return nil }
            return .value(.unspent(UnspentOutputInfo(
                output: TransactionOutput(value: value, scriptPubKey: Script(bytes: script)),
                confirmations: confirmations, isCoinbase: r["coinbase"] as? Bool ?? false)))
        case "estimatesmartfee":
            guard let r = result as? [String: Any], let blocks = r["blocks"] as? Int else { return nil }
            let rate = satoshis(r["feerate"]).flatMap { try? FeeRate(satPerKvB: $0) }
            return .value(.fee(CoreFeeEstimate(feeRate: rate, blocks: blocks)))
        default:
            return nil
        }
    }
}
