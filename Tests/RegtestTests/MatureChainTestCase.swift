import Regtest
import TestSupport
import XCTest

/// A chain whose first `matureBlocks` blocks pay `wallet`, so their coinbases (from height
/// 1) can be spent: the set-up the mempool, mining and package tests share.
class MatureChainTestCase: XCTestCase {
    var chain: RegtestChain!
    let wallet = TestWallet()

    /// Blocks mined at set-up (100 more than the coinbases a test spends).
    var matureBlocks: Int { 110 }

    override func setUpWithError() throws {
        chain = try makeRegtestChain()
        try chain.mine(matureBlocks, to: wallet.script)
    }

    override func tearDown() {
        chain?.close()
    }
}
