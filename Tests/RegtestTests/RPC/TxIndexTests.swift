import Bitcoin
import Regtest
import TestSupport
import Transport
import XCTest

/// `getindexinfo` as Core v31 answers it, with and without `-txindex`, and what a hub
/// without the index cannot find (a confirmed transaction asked for without its block).
final class TxIndexTests: XCTestCase {
    private let credentials = HTTPBasicCredentials(user: "hub", password: "secret")
    private let wallet = TestWallet()

    private func withHub(txIndex: Bool, _ body: (RegtestChain, RPCTestClient) async throws -> Void) async throws {
        _ = try makeKernelVerifier()
        let loop = try EventLoop()
        let chain = try RegtestChain()
        let hub = HubChain(chain: chain, policy: MempoolPolicy(), sleeper: loop.sleeper, txIndex: txIndex)
        let server = BitcoinRPCServer(credentials: credentials, methods: BitcoinRPCMethods.all(hub), sleeper: loop.sleeper)
        let service = try await BitcoinRPCService.start(server, port: 0, loop: loop)
        let rpc = RPCTestClient(port: service.port, credentials: credentials, loop: loop)
        do {
            try await body(chain, rpc)
        } catch {
            await rpc.shutDown(); await service.stop(); await hub.shutDown(); await loop.shutdown(); chain.close()
            throw error
        }
        await rpc.shutDown(); await service.stop(); await hub.shutDown(); await loop.shutdown(); chain.close()
    }

    private var address: String { Address.p2wpkh(pubkeyHash: wallet.pubkeyHash).encoded(for: .regtest) }

    func testGetIndexInfoWithTxIndex() async throws {
        try await withHub(txIndex: true) { _, rpc in
            _ = try await rpc.call("generatetoaddress", "[3, \"\(address)\"]")
            let (_, all) = try await rpc.raw("getindexinfo")
            XCTAssertEqual(all, #"{"result":{"txindex":{"synced":true,"best_block_height":3},"#
                           + #""txospenderindex":{"synced":true,"best_block_height":3}},"error":null,"id":"x"}"# + "\n")
            let (_, named) = try await rpc.raw("getindexinfo", #"["txindex"]"#)
            XCTAssertEqual(named, #"{"result":{"txindex":{"synced":true,"best_block_height":3}},"error":null,"id":"x"}"# + "\n")
            let (_, other) = try await rpc.raw("getindexinfo", #"["coinstatsindex"]"#)
            XCTAssertEqual(other, #"{"result":{},"error":null,"id":"x"}"# + "\n")
        }
    }

    func testWithoutTxIndexConfirmedTransactionsNeedTheirBlock() async throws {
        try await withHub(txIndex: false) { chain, rpc in
            let (_, info) = try await rpc.raw("getindexinfo")
            XCTAssertEqual(info, #"{"result":{},"error":null,"id":"x"}"# + "\n")
            _ = try await rpc.call("generatetoaddress", "[1, \"\(address)\"]")
            let block = try XCTUnwrap(chain.blockHash(atHeight: 1)).hex
            let coinbase = try coinbase(of: chain, atHeight: 1).outpoint.txid.hex
            let (status, body) = try await rpc.raw("getrawtransaction", "[\"\(coinbase)\"]")
            XCTAssertEqual(status, 500)
            XCTAssertTrue(body.contains(#""code":-5,"message":"No such mempool transaction. Use -txindex or provide a block hash to enable blockchain transaction queries. Use gettransaction for wallet transactions.""#), body)
            let (found, _) = try await rpc.raw("getrawtransaction", "[\"\(coinbase)\", 0, \"\(block)\"]")
            XCTAssertEqual(found, 200)
        }
    }
}
