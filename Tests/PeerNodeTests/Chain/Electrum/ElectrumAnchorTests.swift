import Bitcoin
@testable import PeerNode
import Synchronization
import Transport
import XCTest

/// E-3 (docs/HTLC.md): a server the operator does not run proves a lock that no miner
/// confirmed with a block it made up (its merkle root the lock's txid, an empty branch).
/// The backend counts a tip or a confirmation only from headers linked to LND's best
/// block; these run the backend against a scripted server over loopback TCP.
final class ElectrumAnchorTests: XCTestCase {
    private let honest = ScriptedChain.headers(on: .zero, count: 8, salt: 1)
    private let lock = Transaction(inputs: [TransactionInput(previousOutput: OutPoint(
                                       txid: try! TransactionID(bytes: [UInt8](repeating: 0x11, count: 32)), index: 0))],
                                   outputs: [TransactionOutput(value: 100_000,
                                                               scriptPubKey: Script(bytes: [0x51, 0x20] + [UInt8](repeating: 0x22, count: 32)))])

    /// LND's best block as the test moves it.
    private final class LND: Sendable {
        let best: Mutex<(height: Int, hash: BlockHash?)?>
        init(_ height: Int, _ hash: BlockHash) { best = Mutex((height, hash)) }
        func move(to height: Int, _ hash: BlockHash) { best.withLock { $0 = (height, hash) } }
        /// LND stops answering `getinfo`.
        func goQuiet() { best.withLock { $0 = nil } }
    }

    private func withServer(_ world: ScriptedElectrumServer.World,
                            _ body: (ScriptedElectrumServer, EventLoop) async throws -> Void) async throws {
        let loop = try EventLoop()
        let server = try await ScriptedElectrumServer(world: world, loop: loop)
        do { try await body(server, loop) } catch { await server.close(); await loop.shutdown(); throw error }
        await server.close()
        await loop.shutdown()
    }

    private func backend(_ server: ScriptedElectrumServer, _ loop: EventLoop, following lnd: LND?) async -> ElectrumBackend {
        let backend = ElectrumBackend(server: ElectrumServer(host: "127.0.0.1", port: server.port), network: .regtest,
                                      loop: loop, timeoutMilliseconds: 5_000)
        if let lnd { await backend.followReference { lnd.best.withLock { $0 } } }
        return backend
    }

    /// The server's chain: honest to 3, then a block holding only the lock (made up) and
    /// two more on it, so it shows the lock 3 deep while LND is at 5 on the real chain.
    private var forgedWorld: ScriptedElectrumServer.World {
        let forged = ScriptedChain.headers(on: honest[3].hash, count: 3, salt: 9, roots: [0: lock.txid.bytes])
        return ScriptedElectrumServer.World(headers: Array(honest[0...3]) + forged,
                                            transactions: [lock.txid: lock], heights: [lock.txid: 4])
    }

    func testAMadeUpBlockConfirmsNothingOnceHeadersAreCheckedAgainstLND() async throws {
        try await withServer(forgedWorld) { server, loop in
            // Unchecked (as before E-3, and for a server the operator marks as its own):
            // the proof holds against the made-up header, so the lock counts 3 deep.
            let unchecked = await backend(server, loop, following: nil)
            let shown = try await unchecked.transaction(lock.txid)
            XCTAssertEqual(shown?.confirmations, 3, "the attack, as a backend that checks nothing sees it")
            await unchecked.shutDown()

            let checked = await backend(server, loop, following: LND(5, honest[5].hash))
            await assertRefused("a confirmation from a made-up block", ["not in the chain LND follows",
                                                                        "where LND has \(honest[5].hash)"]) {
                try await checked.transaction(lock.txid)?.confirmations
            }
            await assertRefused("a made-up tip", ["not in the chain LND follows"]) { try await checked.tip() }
            await checked.shutDown()
        }
    }

    func testAMadeUpHeaderBelowLNDsBlockIsRefusedWhenTheTipIsReal() async throws {
        // The server's tip is the real one, but asked for height 4 it answers a header
        // whose merkle root is the lock's txid.
        var world = ScriptedElectrumServer.World(headers: Array(honest[0...5]), transactions: [lock.txid: lock],
                                                 heights: [lock.txid: 4])
        world.lies[4] = ScriptedChain.headers(on: honest[3].hash, count: 1, salt: 9, roots: [0: lock.txid.bytes])[0]
        try await withServer(world) { server, loop in
            let checked = await backend(server, loop, following: LND(5, honest[5].hash))
            let tip = try await checked.tip()
            XCTAssertEqual(tip.height, 5, "the real tip is believed")
            await assertRefused("a confirmation from a made-up header", ["not in the chain LND follows"]) {
                try await checked.transaction(lock.txid)?.confirmations
            }
            await checked.shutDown()
        }
    }

    func testAnHonestServerAheadOfLNDCountsFromLNDsBestBlock() async throws {
        let chain = Array(honest[0...3]) + ScriptedChain.headers(on: honest[3].hash, count: 3, salt: 1, roots: [0: lock.txid.bytes])
        let world = ScriptedElectrumServer.World(headers: chain, transactions: [lock.txid: lock], heights: [lock.txid: 4])
        try await withServer(world) { server, loop in
            let lnd = LND(5, chain[5].hash)
            let checked = await backend(server, loop, following: lnd)
            let tip = try await checked.tip()
            XCTAssertEqual(tip.height, 5, "the server's block 6 is not counted before LND has it")
            let found = try await checked.transaction(lock.txid)
            XCTAssertEqual(found?.confirmations, 2)
            XCTAssertEqual(found?.blockHash, chain[4].hash)
            lnd.move(to: 6, chain[6].hash)
            let confirmed = try await checked.transaction(lock.txid)
            XCTAssertEqual(confirmed?.confirmations, 3, "LND's next block is read at once when the server is ahead")
            let older = try await checked.blockHash(atHeight: 2)
            XCTAssertEqual(older, chain[2].hash)
            // LND goes quiet while the server shows a block past the last one LND named:
            // no tip at all, rather than one that stopped at LND's last word.
            lnd.goQuiet()
            server.update { $0.headers.append(ScriptedChain.headers(on: chain[6].hash, count: 1, salt: 1)[0]) }
            await server.announceTip()
            try await Task.sleep(for: .milliseconds(100))
            await assertRefused("a tip while LND was quiet", ["LND gave no best block"]) { try await checked.tip() }
            await checked.shutDown()
        }
    }

    func testAServerBehindLNDIsCountedFromItsLastCheckedBlock() async throws {
        let world = ScriptedElectrumServer.World(headers: Array(honest[0...4]))
        try await withServer(world) { server, loop in
            let lnd = LND(5, honest[5].hash)
            let checked = await backend(server, loop, following: lnd)
            await assertRefused("a tip never linked to LND's", ["waits for the server to reach it"]) { try await checked.tip() }
            server.update { $0.headers = Array(self.honest[0...5]) }
            await server.announceTip()
            try await waitForTip(checked, height: 5)
            // LND moves on first; the server's block 6 is not in yet: the checked 5 stands.
            lnd.move(to: 7, honest[7].hash)
            server.update { $0.headers = Array(self.honest[0...6]) }
            await server.announceTip()
            try await Task.sleep(for: .milliseconds(100))
            let tip = try await checked.tip()
            XCTAssertEqual(tip.height, 5)
            server.update { $0.headers = Array(self.honest[0...7]) }
            await server.announceTip()
            try await waitForTip(checked, height: 7)
            await checked.shutDown()
        }
    }

    /// `call` must fail, its error naming each of `words`.
    private func assertRefused<T>(_ what: String, _ words: [String], file: StaticString = #filePath, line: UInt = #line,
                                  _ call: () async throws -> T) async {
        do {
            let value = try await call()
            XCTFail("\(what) was given: \(value)", file: file, line: line)
        } catch {
            for word in words { XCTAssertTrue("\(error)".contains(word), "\(error)", file: file, line: line) }
        }
    }

    private func waitForTip(_ backend: ElectrumBackend, height: Int) async throws {
        for _ in 0..<100 {
            if let tip = try? await backend.tip(), tip.height == height { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        let last = try? await backend.tip()
        XCTFail("the tip never reached \(height): \(String(describing: last))")
    }
}
