import Bitcoin
import Foundation
@testable import PeerNode
import Transport
import XCTest

/// `peernode recover` needs whole blocks; an Electrum backend serves only the watched
/// scripts' transactions, so both recovery steps refuse it with the reason and what to do
/// instead, before any call to the server (none listens here).
final class RecoveryOnElectrumTests: XCTestCase {
    func testTheScanAndTheRecreationRefuseAnElectrumBackend() async throws {
        let loop = try EventLoop()
        let electrum = ElectrumBackend(server: ElectrumServer(host: "127.0.0.1", port: 1), network: .regtest, loop: loop)
        let seed = [UInt8](repeating: 0x21, count: 32)
        do {
            _ = try RecoveryScanner(seed: seed, network: .regtest, chain: electrum)
            XCTFail("a recovery scan started on Electrum")
        } catch {
            guard case .needsWholeBlocks = error else { return XCTFail("\(error)") }
            XCTAssertTrue(error.description.contains("chain_backend=bitcoind"), error.description)
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("recover-electrum-\(UUID().uuidString).db").path
        let store = try SQLiteSwapStore.open(path: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try SwapRecreator(seed: seed, network: .regtest, chain: electrum, store: store)
            XCTFail("a swap re-creation started on Electrum")
        } catch {
            guard case .needsWholeBlocks = error else { return XCTFail("\(error)") }
        }
        let connections = await electrum.connectionCount
        XCTAssertEqual(connections, 0, "refused before any call")
        await store.close()
        await loop.shutdown()
    }
}
