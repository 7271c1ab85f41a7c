import Bitcoin
import Foundation
import PeerNode
import Transport
import XCTest

/// A `BitcoinCoreBackend` talking over loopback TCP to a `FixtureServer`, torn down after
/// the body.
func withFixtureBackend(network: Network = .regtest,
                        credentials: BitcoinCoreCredentials = .user("u", password: "p"),
                        _ body: (BitcoinCoreBackend, FixtureServer) async throws -> Void) async throws {
    let loop = try EventLoop()
    let server = try await FixtureServer.start(loop: loop)
    let rpc = BitcoinCoreRPC(endpoint: BitcoinCoreEndpoint(host: "127.0.0.1", port: server.port),
                             credentials: credentials, loop: loop, timeoutMilliseconds: 10_000)
    do {
        try await body(BitcoinCoreBackend(rpc: rpc, network: network), server)
    } catch {
        await rpc.shutDown()
        await server.stop()
        await loop.shutdown()
        throw error
    }
    await rpc.shutDown()
    await server.stop()
    await loop.shutdown()
}

/// What a backend call returned, in one comparable shape.
enum Decoded: Equatable {
    case info(BlockchainInfo)
    case count(Int)
    case hash(BlockHash)
    case height(Int)
    case block(Block)
    case transaction(PeerNode.ChainTransaction?)
    case rawTransaction(Transaction?)
    case txid(TransactionID)
    case acceptance(MempoolAcceptance)
    case txids([TransactionID])
    case unspent(UnspentOutputInfo?)
    case fee(CoreFeeEstimate)
}

/// The methods the node's client calls.
let clientMethods: Set<String> = ["getblockchaininfo", "getblockcount", "getbestblockhash", "getblockheader", "getblockhash", "getblock",
                                  "getrawtransaction", "sendrawtransaction", "testmempoolaccept", "getrawmempool",
                                  "gettxout", "estimatesmartfee"]

extension CoreFixture {
    /// The client method this fixture's answer is served to: its own method when the
    /// client calls it, else `getblockcount` (for answers every call can get: auth
    /// failures, parse errors, unknown methods, batches).
    var clientMethod: String { method.flatMap { clientMethods.contains($0) ? $0 : nil } ?? "getblockcount" }

    /// Whether the request asks `getrawtransaction` for the verbose object (`true`, 1 or 2):
    /// `transaction(_:)`'s call; the hex form (`false`, 0, or no argument) is
    /// `mempoolTransaction(_:)`'s.
    var asksVerbose: Bool {
        let verbosity = paramsArray.count > 1 ? paramsArray[1] : nil
        if let flag = verbosity as? Bool { return flag }
        return (verbosity as? Int).map { $0 > 0 } ?? false
    }

    /// A transaction from the request params when they hold a decodable one.
    func requestTransaction() -> Transaction? {
        let first = paramsArray.first
        let hex = (first as? String) ?? ((first as? [Any])?.first as? String)
        return hex.flatMap { try? Transaction(hex: $0) }
    }
}

/// Makes the call the fixture stands for; `fallback` is sent when the fixture's own
/// transaction does not decode (Core's decode-failure cases).
func performCall(_ fixture: CoreFixture, on backend: BitcoinCoreBackend, fallback: Transaction) async -> Result<Decoded, ChainBackendError> {
    let params = fixture.paramsArray
    let named = fixture.params as? [String: Any]
    do throws(ChainBackendError) {
        switch fixture.clientMethod {
        case "getblockchaininfo": return .success(.info(try await backend.blockchainInfo()))
        case "getbestblockhash": return .success(.hash(try await backend.bestBlockHash()))
        case "getblockhash":
            let height = params.first as? Int ?? named?["height"] as? Int ?? 0
            return .success(.hash(try await backend.blockHash(atHeight: height)))
        case "getblock":
            let hash = (params.first as? String).flatMap { try? BlockHash(hex: $0) } ?? .zero
            return .success(.block(try await backend.block(hash)))
        case "getblockheader":
            let hash = (params.first as? String).flatMap { try? BlockHash(hex: $0) } ?? .zero
            return .success(.height(try await backend.blockHeight(of: hash)))
        case "getrawtransaction":
            let txid = (params.first as? String).flatMap { try? TransactionID(hex: $0) } ?? .zero
            guard fixture.asksVerbose else {
                // A backend of its own: two fixtures show the same transaction, and the
                // backend answers a txid it fetched lately from memory.
                let fresh = BitcoinCoreBackend(rpc: backend.rpc, network: backend.network)
                return .success(.rawTransaction(try await fresh.mempoolTransaction(txid)))
            }
            return .success(.transaction(try await backend.transaction(txid)))
        case "sendrawtransaction":
            return .success(.txid(try await backend.broadcast(fixture.requestTransaction() ?? fallback)))
        case "testmempoolaccept":
            return .success(.acceptance(try await backend.testAccept(fixture.requestTransaction() ?? fallback)))
        case "getrawmempool": return .success(.txids(try await backend.mempoolTransactionIDs()))
        case "gettxout":
            let txid = (params.first as? String).flatMap { try? TransactionID(hex: $0) } ?? .zero
            let index = params.count > 1 ? params[1] as? Int ?? 0 : 0
            let includeMempool = params.count > 2 ? params[2] as? Bool ?? true : true
            return .success(.unspent(try await backend.unspentOutput(OutPoint(txid: txid, index: UInt32(index)),
                                                                      includeMempool: includeMempool)))
        case "estimatesmartfee":
            let target = params.first as? Int ?? 2
            let mode = params.count > 1 ? (params[1] as? String).flatMap(CoreFeeEstimate.Mode.init) ?? .unset : .unset
            return .success(.fee(try await backend.smartFeeEstimate(targetBlocks: target, mode: mode)))
        default:
            return .success(.count(try await backend.blockCount()))
        }
    } catch {
        return .failure(error)
    }
}
