import Bitcoin
import Foundation
import PeerNode
import Regtest
import TestSupport
import Transport
import XCTest

/// Issue 18's figure: a BIP86 wallet whose 1,000 receive addresses were each paid (ten
/// transactions of 100 outputs, one block), restored from its seed and synced from its birthday over
/// Bitcoin Core's RPC (the hub) and over a real ElectrumX on the same hub, in the same run.
/// Both must find every coin (default gap limit 20: on Electrum the wallet discovers the
/// addresses 20 at a time from the server's histories); the times are printed.
final class ElectrumWalletSyncFigureTests: XCTestCase {
    func testAWalletOfAThousandUsedAddressesSyncsOnElectrumXAsOnCore() async throws {
        let harness = try await RegtestHubHarness(housekeepingMilliseconds: 600_000)
        var server: ElectrumXServer?
        var electrum: ElectrumBackend?
        let rpc = BitcoinCoreRPC(endpoint: BitcoinCoreEndpoint(host: "127.0.0.1", port: harness.hub.rpc.port),
                                 credentials: .user(RegtestHubHarness.credentials.user, password: RegtestHubHarness.credentials.password),
                                 loop: harness.loop, timeoutMilliseconds: 30_000)
        do {
            let miner = TestWallet(seed: 0x81)
            let minerAddress = Address.p2wpkh(pubkeyHash: miner.pubkeyHash).encoded(for: .regtest)
            _ = try await harness.rpc.call("generatetoaddress", "[110,\"\(minerAddress)\"]")
            let core = BitcoinCoreBackend(rpc: rpc, network: .regtest)
            let seed = [UInt8](repeating: 0x5a, count: 32)
            let configuration = WalletConfiguration(network: .regtest, birthdayHeight: 110)
            let issuer = try Wallet(seed: seed, configuration: configuration, backend: core)
            var scripts: [Script] = []
            for _ in 0..<1_000 { scripts.append(await issuer.newAddress().address.script) }
            XCTAssertEqual(Set(scripts).count, 1_000)
            // Ten transactions of 100 outputs: a filtered block shows a transaction only
            // once one of its scripts is named, so the wallet must discover the addresses
            // before it reads the block, not while it applies it.
            let paid: Int64 = 1_000 * 10_000
            for batch in 0..<10 {
                let coin = try coinbase(of: harness.hub.chain, atHeight: batch + 1)
                let outputs = scripts[(batch * 100)..<(batch * 100 + 100)].map { TransactionOutput(value: 10_000, scriptPubKey: $0) }
                let payment = try miner.spend([coin], to: outputs
                    + [TransactionOutput(value: coin.value - 1_000_000 - 20_000, scriptPubKey: miner.script)])
                _ = try await harness.rpc.call("sendrawtransaction", "[\"\(payment.serialized.hex)\"]")
            }
            try await harness.generate(1)

            // Over Core: blocks from the birthday, every output matched in order.
            let onCore = try Wallet(seed: seed, configuration: configuration, backend: core)
            let coreStart = Date()
            try await onCore.sync()
            let coreSeconds = Date().timeIntervalSince(coreStart)
            let coreBalance = await onCore.balance()
            XCTAssertEqual(coreBalance.confirmed, paid)

            // Over ElectrumX: the addresses discovered from the server's histories.
            let credentials = RegtestHubHarness.credentials
            let electrumx = try ElectrumXServer(rpcPort: harness.hub.rpc.port, user: credentials.user, password: credentials.password)
            server = electrumx
            _ = try await electrumx.whenListening { () async throws -> Bool? in
                do throws(ElectrumError) {
                    let client = try await ElectrumClient.connect(host: "127.0.0.1", port: electrumx.port, network: nil, loop: harness.loop)
                    defer { Task { await client.connection.close() } }
                    return try await client.subscribeHeaders().height >= 111 ? true : nil
                } catch {
                    guard case .unreachable = error else { throw error }
                    return nil
                }
            }
            let backend = ElectrumBackend(server: ElectrumServer(host: "127.0.0.1", port: electrumx.port), network: .regtest,
                                          loop: harness.loop)
            electrum = backend
            let onElectrum = try Wallet(seed: seed, configuration: configuration, backend: backend)
            let electrumStart = Date()
            try await onElectrum.sync()
            let electrumSeconds = Date().timeIntervalSince(electrumStart)
            let electrumBalance = await onElectrum.balance()
            XCTAssertEqual(electrumBalance.confirmed, paid, "every one of the 1,000 coins found on Electrum")
            let coins = await onElectrum.coins()
            XCTAssertEqual(coins.count, 1_000)
            print(String(format: "FIGURE wallet sync, 1,000 used addresses (10 transactions in one block, gap limit 20): Core RPC %.2f s, ElectrumX %.2f s",
                         coreSeconds, electrumSeconds))
        } catch {
            if let server { XCTFail("ElectrumX's log ends with:\n\(server.logTail)") }
            await electrum?.shutDown()
            server?.stop()
            await rpc.shutDown()
            await harness.shutDown()
            throw error
        }
        await electrum?.shutDown()
        server?.stop()
        await rpc.shutDown()
        await harness.shutDown()
    }
}
