import Bitcoin
import PeerNode
import Regtest
import Transport
import TestSupport
import XCTest

/// The follower against the hub's kernel-validated chain (in process, through
/// `RegtestChainBackend`): blocks in order, a watched script receiving in the mempool and
/// then in blocks, a reorg of depth 2 rewound and re-applied, a rescan from a birthday.
final class ChainFollowerTests: XCTestCase, ChainWatchScenario {
    let miner = SigningKey(seed: 0x42)
    let receiver = SigningKey(seed: 0x17)

    func testBlocksAndAWatchedScriptReceivingInTheMempoolThenConfirming() async throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        try chain.mine(101, to: miner.script)
        let backend = RegtestChainBackend(chain: chain, verifier: try makeKernelVerifier())
        let follower = ChainFollower(backend: backend, sleeper: TaskSleeper())
        let watch = await follower.register(WatchFilter(scripts: [receiver.script]), confirmationDepth: 3)
        let log = EventLog(watch.events)

        try await follower.poll()
        let startTip = await follower.tip
        XCTAssertEqual(startTip, try tip(chain, 101), "starts at the backend's tip")
        try await log.assertNoMore()

        let payment = try payReceiver(chain, fromCoinbaseAt: 1)
        let broadcastTxid = try await backend.broadcast(payment)
        XCTAssertEqual(broadcastTxid, payment.txid)
        try await follower.poll()
        let inMempool = try await log.take(1)
        XCTAssertEqual(inMempool, [received(payment, block: nil, confirmations: 0)])

        try chain.mine(1, to: miner.script)
        try await follower.poll()
        let confirmed = try await log.take(2)
        XCTAssertEqual(confirmed, [.blockConnected(try tip(chain, 102)), received(payment, block: try tip(chain, 102), confirmations: 1)])

        try chain.mine(3, to: miner.script)
        try await follower.poll()
        let deeper = try await log.take(5)
        XCTAssertEqual(deeper, [
            .blockConnected(try tip(chain, 103)), received(payment, block: try tip(chain, 102), confirmations: 2),
            .blockConnected(try tip(chain, 104)), received(payment, block: try tip(chain, 102), confirmations: 3),
            .blockConnected(try tip(chain, 105)),
        ], "confirmations are reported up to the watch's depth of 3")
        try await log.assertNoMore()

        // The received coin is watched for its spend without being added by hand.
        let spend = try receiver.spend(OutPoint(txid: payment.txid, index: 0), value: payment.outputs[0].value,
                                       to: [TransactionOutput(value: payment.outputs[0].value - 10_000, scriptPubKey: miner.script)])
        _ = try await backend.broadcast(spend)
        try await follower.poll()
        let spent = try await log.take(1)
        XCTAssertEqual(spent, [.transaction(WatchedTransaction(
            transaction: spend, txid: spend.txid, received: [],
            spent: [SpentOutpoint(outpoint: OutPoint(txid: payment.txid, index: 0), inputIndex: 0)],
            block: nil, confirmations: 0))])
    }

    func testAReorgOfDepthTwoRewindsThenReappliesTheNewBranch() async throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        try chain.mine(101, to: miner.script)
        let backend = RegtestChainBackend(chain: chain, verifier: try makeKernelVerifier())
        let follower = ChainFollower(backend: backend, sleeper: TaskSleeper())
        let watch = await follower.register(WatchFilter(scripts: [receiver.script]), confirmationDepth: 6)
        let log = EventLog(watch.events)
        try await follower.poll()

        let payment = try payReceiver(chain, fromCoinbaseAt: 1)
        try chain.submit(payment)
        let oldBranch = try chain.mine(2, to: miner.script)
        try await follower.poll()
        let oldTip102 = ChainTip(height: 102, hash: oldBranch[0])
        let oldTip103 = ChainTip(height: 103, hash: oldBranch[1])
        let before = try await log.take(4)
        XCTAssertEqual(before, [.blockConnected(oldTip102), received(payment, block: oldTip102, confirmations: 1),
                                .blockConnected(oldTip103), received(payment, block: oldTip102, confirmations: 2)])

        // Blocks 102 and 103 are replaced by a longer branch mined elsewhere; the payment
        // returns to the mempool and the new branch confirms it again.
        try chain.invalidateBlock(oldBranch[0])
        let newBranch = try chain.mine(3, to: SigningKey(seed: 0x05).script)
        try await follower.poll()
        let new102 = ChainTip(height: 102, hash: newBranch[0])
        let after = try await log.take(9)
        XCTAssertEqual(after, [
            .blockDisconnected(oldTip103), .blockDisconnected(oldTip102),
            received(payment, block: nil, confirmations: 0),
            .blockConnected(new102), received(payment, block: new102, confirmations: 1),
            .blockConnected(ChainTip(height: 103, hash: newBranch[1])), received(payment, block: new102, confirmations: 2),
            .blockConnected(ChainTip(height: 104, hash: newBranch[2])), received(payment, block: new102, confirmations: 3),
        ])
        let followed = await follower.tip
        XCTAssertEqual(followed, try tip(chain, 104))
        try await log.assertNoMore()
    }

    func testARescanFromTheBirthdayFindsOldPayments() async throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        try chain.mine(5, to: receiver.script)
        let follower = ChainFollower(backend: RegtestChainBackend(chain: chain, verifier: try makeKernelVerifier()), sleeper: TaskSleeper(),
                                     configuration: ChainFollower.Configuration(startHeight: 4))
        let watch = await follower.register(WatchFilter(scripts: [receiver.script]), confirmationDepth: 1)
        let log = EventLog(watch.events)
        try await follower.poll()
        let blocks = try [4, 5].map { try XCTUnwrap(chain.block(atHeight: $0)).block }
        let events = try await log.take(4)
        XCTAssertEqual(events, [
            .blockConnected(try tip(chain, 4)), received(blocks[0].transactions[0], block: try tip(chain, 4), confirmations: 1),
            .blockConnected(try tip(chain, 5)), received(blocks[1].transactions[0], block: try tip(chain, 5), confirmations: 1),
        ])

        // Recovery from an earlier birthday walks those blocks again.
        await follower.rescan(fromHeight: 5)
        try await follower.poll()
        let again = try await log.take(2)
        XCTAssertEqual(again, [.blockConnected(try tip(chain, 5)),
                               received(blocks[1].transactions[0], block: try tip(chain, 5), confirmations: 1)])
        try await log.assertNoMore()
    }

    func testAReplacedPaymentLeavesTheMempool() async throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        try chain.mine(101, to: miner.script)
        let backend = RegtestChainBackend(chain: chain, verifier: try makeKernelVerifier())
        let follower = ChainFollower(backend: backend, sleeper: TaskSleeper())
        let watch = await follower.register(WatchFilter(scripts: [receiver.script]))
        let log = EventLog(watch.events)
        try await follower.poll()

        let payment = try payReceiver(chain, fromCoinbaseAt: 1)
        _ = try await backend.broadcast(payment)
        try await follower.poll()
        _ = try await log.take(1)

        // A fee bump paying the miner instead replaces it (full RBF).
        let coin = try coinbase(of: chain, atHeight: 1)
        let replacement = try miner.spend(coin.outpoint, value: coin.value,
                                          to: [TransactionOutput(value: coin.value - 50_000, scriptPubKey: miner.script)])
        _ = try await backend.broadcast(replacement)
        try await follower.poll()
        let gone = try await log.take(1)
        XCTAssertEqual(gone, [.transactionLeftMempool(payment.txid)])
    }

    func testRunPollsOnItsOwnUntilCancelled() async throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        try chain.mine(1, to: miner.script)
        let follower = ChainFollower(backend: RegtestChainBackend(chain: chain, verifier: try makeKernelVerifier()), sleeper: TaskSleeper(),
                                     configuration: ChainFollower.Configuration(pollIntervalMilliseconds: 10))
        let watch = await follower.register()
        let log = EventLog(watch.events)
        let running = Task { await follower.run() }
        // Wait for the first round to pick its starting tip, then mine on it.
        for _ in 0..<500 where await follower.tip == nil { try await Task.sleep(nanoseconds: 5_000_000) }
        try chain.mine(1, to: miner.script)
        let events = try await log.take(1)
        XCTAssertEqual(events, [.blockConnected(try tip(chain, 2))])
        running.cancel()
        await running.value
        let lastError = await follower.lastError
        XCTAssertNil(lastError)
    }

    func testUnregisteringEndsTheStream() async throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        let follower = ChainFollower(backend: RegtestChainBackend(chain: chain, verifier: try makeKernelVerifier()), sleeper: TaskSleeper())
        let watch = await follower.register(WatchFilter(scripts: [receiver.script]))
        let log = EventLog(watch.events)
        await follower.unregister(watch.id)
        await log.waitForEnd()
    }
}
