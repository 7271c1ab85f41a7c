import Bitcoin
import HTLC
import Transport

/// Reads Core's `result` values into the node's types. Each reader checks the members it
/// needs and fails with `.malformedResponse` naming the call and the member, never
/// echoing the value (it may be huge).
enum BitcoinCoreDecoding {
    typealias Failure = ChainBackendError

    static func blockchainInfo(_ result: JSONValue) throws(Failure) -> BlockchainInfo {
        let call = "getblockchaininfo"
        return BlockchainInfo(
            chain: try string(result["chain"], call, "chain"),
            blocks: try int(result["blocks"], call, "blocks"),
            headers: try int(result["headers"], call, "headers"),
            bestBlockHash: try blockHash(result["bestblockhash"], call, "bestblockhash"),
            initialBlockDownload: result["initialblockdownload"]?.boolValue ?? false,
            pruned: result["pruned"]?.boolValue ?? false)
    }

    /// `getblockheader <hash> true`: `height`, from a header that is the one asked for.
    static func blockHeight(_ result: JSONValue, expected hash: BlockHash) throws(Failure) -> Int {
        let call = "getblockheader"
        guard try blockHash(result["hash"], call, "hash") == hash else { throw malformed(call, "hash") }
        let height = try int(result["height"], call, "height")
        guard height >= 0 else { throw malformed(call, "height") }
        return height
    }

    static func block(_ result: JSONValue, expected hash: BlockHash) throws(Failure) -> Block {
        let hex = try string(result, "getblock", "result")
        guard let block = try? Block(hex: hex) else { throw malformed("getblock", "block hex") }
        // A block that does not hash to what was asked for is not the block asked for.
        guard block.hash == hash else { throw malformed("getblock", "block hash") }
        return block
    }

    /// `getrawtransaction <txid> true`: `hex`, and `blockhash`/`confirmations` once confirmed.
    static func chainTransaction(_ result: JSONValue, expected txid: TransactionID) throws(Failure) -> ChainTransaction {
        let call = "getrawtransaction"
        let hex = try string(result["hex"], call, "hex")
        guard let transaction = try? Transaction(hex: hex) else { throw malformed(call, "hex") }
        guard transaction.txid == txid else { throw malformed(call, "txid") }
        var hash: BlockHash?
        if let value = result["blockhash"] { hash = try blockHash(value, call, "blockhash") }
        // Core leaves `confirmations` out for a mempool transaction, and reports 0 for one
        // in a block off the active chain.
        var confirmations = 0
        if let value = result["confirmations"] { confirmations = max(try int(value, call, "confirmations"), 0) }
        return ChainTransaction(transaction: transaction, blockHash: hash, confirmations: confirmations)
    }

    /// `getrawtransaction <txid> false`: the transaction's hex, for the txid asked.
    static func rawTransaction(_ result: JSONValue, expected txid: TransactionID) throws(Failure) -> Transaction {
        let call = "getrawtransaction"
        guard let hex = result.stringValue, let transaction = try? Transaction(hex: hex) else { throw malformed(call, "result") }
        guard transaction.txid == txid else { throw malformed(call, "txid") }
        return transaction
    }

    static func transactionID(_ result: JSONValue, _ call: String) throws(Failure) -> TransactionID {
        guard let text = result.stringValue, let txid = try? TransactionID(hex: text) else {
            throw malformed(call, "txid")
        }
        return txid
    }

    /// One element of `testmempoolaccept`'s array. An element without `allowed` is one Core
    /// did not judge (a package error, or a batch stopped by another transaction).
    static func mempoolAcceptance(_ result: JSONValue) throws(Failure) -> MempoolAcceptance {
        let call = "testmempoolaccept"
        let txid = try transactionID(result["txid"] ?? .null, call)
        let allowed = result["allowed"]?.boolValue ?? false
        let reason = result["reject-reason"]?.stringValue ?? result["package-error"]?.stringValue
        var vsize: Int?
        if let value = result["vsize"] { vsize = try int(value, call, "vsize") }
        var fee: Int64?
        if let value = result["fees"]?["base"] { fee = try satoshis(value, call, "fees.base") }
        return MempoolAcceptance(txid: txid, allowed: allowed, rejectReason: allowed ? nil : reason,
                                 virtualSize: vsize, feeSat: fee)
    }

    static func transactionIDs(_ result: JSONValue, _ call: String) throws(Failure) -> [TransactionID] {
        guard let elements = result.arrayValue else { throw malformed(call, "result") }
        var txids: [TransactionID] = []
        txids.reserveCapacity(elements.count)
        for element in elements { txids.append(try transactionID(element, call)) }
        return txids
    }

    /// `gettxout`: null when the output is spent or unknown.
    static func unspentOutput(_ result: JSONValue) throws(Failure) -> UnspentOutputInfo? {
        let call = "gettxout"
        if result == .null { return nil }
        let value = try satoshis(result["value"], call, "value")
        let scriptHex = try string(result["scriptPubKey"]?["hex"], call, "scriptPubKey.hex")
        guard let script = [UInt8](hex: scriptHex) else { throw malformed(call, "scriptPubKey.hex") }
        return UnspentOutputInfo(output: TransactionOutput(value: value, scriptPubKey: Script(bytes: script)),
                                 confirmations: try int(result["confirmations"], call, "confirmations"),
                                 isCoinbase: result["coinbase"]?.boolValue ?? false)
    }

    /// `estimatesmartfee`: `feerate` is BTC per kvB, so its satoshi count is the rate in
    /// sat/kvB. Without data Core sends `errors` and no `feerate`.
    static func feeEstimate(_ result: JSONValue) throws(Failure) -> CoreFeeEstimate {
        let call = "estimatesmartfee"
        let blocks = try int(result["blocks"], call, "blocks")
        guard let feerate = result["feerate"] else { return CoreFeeEstimate(feeRate: nil, blocks: blocks) }
        let satPerKvB = try satoshis(feerate, call, "feerate")
        guard let rate = try? FeeRate(satPerKvB: satPerKvB) else { throw malformed(call, "feerate") }
        return CoreFeeEstimate(feeRate: rate, blocks: blocks)
    }

    // MARK: members

    static func string(_ value: JSONValue?, _ call: String, _ member: String) throws(Failure) -> String {
        guard let text = value?.stringValue else { throw malformed(call, member) }
        return text
    }

    static func int(_ value: JSONValue?, _ call: String, _ member: String) throws(Failure) -> Int {
        guard let number = value?.int64Value, let int = Int(exactly: number) else { throw malformed(call, member) }
        return int
    }

    static func blockHash(_ value: JSONValue?, _ call: String, _ member: String) throws(Failure) -> BlockHash {
        guard let text = value?.stringValue, let hash = try? BlockHash(hex: text) else { throw malformed(call, member) }
        return hash
    }

    /// A BTC amount from its exact decimal text (never through a Double).
    static func satoshis(_ value: JSONValue?, _ call: String, _ member: String) throws(Failure) -> Int64 {
        guard case .number(let text) = value, let sats = BitcoinDecimal.satoshis(fromBitcoin: text) else {
            throw malformed(call, member)
        }
        return sats
    }

    static func malformed(_ call: String, _ member: String) -> Failure {
        .malformedResponse("\(call): missing or invalid \(member)")
    }
}
