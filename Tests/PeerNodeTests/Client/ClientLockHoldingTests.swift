import Bitcoin
import HTLC
@testable import PeerNode
import XCTest

/// `ClientEngine.lockHolding`: which locks the client's own node holds well enough to
/// claim (audit H-3). Against a chain backend that knows exactly what each test gives it.
final class ClientLockHoldingTests: XCTestCase {
    /// Transactions by txid with their confirmations (0: mempool), and nothing else.
    private struct KnownChain: ChainBackend {
        var known: [TransactionID: (Transaction, Int)] = [:]

        func tip() async throws(ChainBackendError) -> ChainTip { throw .rpc(code: -1, message: "no tip in this test") }
        func blockHash(atHeight height: Int) async throws(ChainBackendError) -> BlockHash {
            throw .rpc(code: -1, message: "no blocks in this test")
        }
        func block(_ hash: BlockHash) async throws(ChainBackendError) -> Block { throw .rpc(code: -1, message: "no blocks") }
        func transaction(_ txid: TransactionID) async throws(ChainBackendError) -> ChainTransaction? {
            known[txid].map { ChainTransaction(transaction: $0.0, blockHash: nil, confirmations: $0.1) }
        }
        func broadcast(_ transaction: Transaction) async throws(ChainBackendError) -> TransactionID { transaction.txid }
        func testAccept(_ transaction: Transaction) async throws(ChainBackendError) -> MempoolAcceptance {
            MempoolAcceptance(txid: transaction.txid, allowed: true, rejectReason: nil, virtualSize: nil, feeSat: nil)
        }
        func mempoolTransactionIDs() async throws(ChainBackendError) -> [TransactionID] {
            known.filter { $0.value.1 == 0 }.map(\.key)
        }
        func unspentOutput(_ outpoint: OutPoint, includeMempool: Bool) async throws(ChainBackendError) -> UnspentOutputInfo? {
            guard let (tx, confirmations) = known[outpoint.txid], includeMempool || confirmations > 0,
                  Int(outpoint.index) < tx.outputs.count else { return nil }
            return UnspentOutputInfo(output: tx.outputs[Int(outpoint.index)], confirmations: confirmations, isCoinbase: false)
        }
        func estimateFee(targetBlocks: Int) async throws(ChainBackendError) -> FeeRate? { nil }
        func mempoolDescendantCount(_ txid: TransactionID) async throws(ChainBackendError) -> Int? {
            known[txid].flatMap { $0.1 == 0 ? 1 : nil }
        }
    }

    private static func transaction(spending parent: OutPoint, value: Int64 = 50_000) -> Transaction {
        Transaction(version: 2, inputs: [TransactionInput(previousOutput: parent, sequence: TransactionInput.replaceableSequence)],
                    outputs: [TransactionOutput(value: value, scriptPubKey: Address.p2wpkh(pubkeyHash: [UInt8](repeating: 9, count: 20)).script)],
                    lockTime: 0)
    }

    private let parent = transaction(spending: OutPoint(txid: try! TransactionID(bytes: [UInt8](repeating: 7, count: 32)), index: 0),
                                     value: 60_000)
    private var lockTx: Transaction { Self.transaction(spending: OutPoint(txid: parent.txid, index: 0)) }
    private var lock: LockOutput { LockOutput(outPoint: OutPoint(txid: lockTx.txid, index: 0), value: 50_000) }

    private func holding(_ chain: KnownChain, required: Int) async -> ClientLockHolding {
        await ClientEngine.lockHolding(lock, transaction: lockTx, requiredConfirmations: required, chain: chain)
    }

    func testAPushedLockTheNodeDoesNotKnowIsNotHeld() async {
        guard case .notHeld(let why) = await holding(KnownChain(known: [parent.txid: (parent, 3)]), required: 0) else {
            return XCTFail("a lock only the provider's push knows must not be claimed")
        }
        XCTAssertTrue(why.contains("does not know"), why)
    }

    func testAZeroConfLockOnAnUnconfirmedParentIsNotHeld() async {
        let chain = KnownChain(known: [parent.txid: (parent, 0), lockTx.txid: (lockTx, 0)])
        guard case .notHeld(let why) = await holding(chain, required: 0) else {
            return XCTFail("a lock chained on an unconfirmed parent can vanish with it")
        }
        XCTAssertTrue(why.contains("unconfirmed output"), why)
    }

    func testAZeroConfLockOnConfirmedParentsIsHeld() async {
        let chain = KnownChain(known: [parent.txid: (parent, 1), lockTx.txid: (lockTx, 0)])
        let held = await holding(chain, required: 0)
        XCTAssertEqual(held, .held)
    }

    func testAConfirmedLockIsHeldOnlyAtTheRequiredDepth() async {
        let chain = KnownChain(known: [lockTx.txid: (lockTx, 1)])
        let shallow = await holding(chain, required: 2)
        XCTAssertEqual(shallow, .shallow(confirmations: 1))
        let deep = await holding(chain, required: 1)
        XCTAssertEqual(deep, .held, "a confirmed lock needs no look at its parents")
    }
}
