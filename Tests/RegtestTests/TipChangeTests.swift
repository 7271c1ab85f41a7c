import Bitcoin
import Regtest
import Synchronization
import TestSupport
import XCTest

/// `RegtestChain.onTipChange`: mining, a reorg by invalidation, a longer branch and a
/// reconsidered block each tell the handlers of the new tip, once and in order, after the
/// chain's lock is released (a handler can read the chain).
final class TipChangeTests: XCTestCase {
    private struct Tip: Equatable, CustomStringConvertible {
        var height: Int
        var hash: BlockHash
        var description: String { "\(height) \(hash.hex)" }
    }

    func testMiningAndReorgsNotifyInOrder() throws {
        let chain = try makeRegtestChain()
        defer { chain.close() }
        let heard = Mutex<[Tip]>([])
        chain.onTipChange { [unowned chain] height, hash in
            // The chain is readable from the handler and already shows the new tip.
            XCTAssertEqual(chain.tipHash, hash)
            XCTAssertEqual(chain.height, height)
            heard.withLock { $0.append(Tip(height: height, hash: hash)) }
        }
        var expected: [Tip] = []
        func check(_ what: String, line: UInt = #line) {
            XCTAssertEqual(heard.withLock { $0 }, expected, what, line: line)
        }

        let first = try chain.mine(1, to: TestWallet().script)
        expected.append(Tip(height: 1, hash: first[0]))
        check("one block mined")

        let oldBranch = try chain.mine(2, to: TestWallet().script)
        expected.append(Tip(height: 3, hash: oldBranch[1]))
        check("two blocks in one call are one change, to the newest tip")

        try chain.invalidateBlock(oldBranch[0])
        expected.append(Tip(height: 1, hash: first[0]))
        check("invalidateblock: a lower tip")

        let newBranch = try chain.mine(3, to: TestWallet(seed: 5).script)
        expected.append(Tip(height: 4, hash: newBranch[2]))
        check("a longer branch")

        try chain.reconsiderBlock(oldBranch[0])
        check("reconsidering the shorter branch leaves the tip, so nothing is heard")

        try chain.invalidateBlock(newBranch[0])
        expected.append(Tip(height: 3, hash: oldBranch[1]))
        check("invalidateblock: a reorg to the reconsidered branch")

        try chain.reconsiderBlock(newBranch[0])
        expected.append(Tip(height: 4, hash: newBranch[2]))
        check("reconsiderblock: back to the longer branch")

        let last = try chain.mine(1, to: TestWallet().script)
        expected.append(Tip(height: 5, hash: last[0]))
        check("mining on after the reorgs")
    }
}
