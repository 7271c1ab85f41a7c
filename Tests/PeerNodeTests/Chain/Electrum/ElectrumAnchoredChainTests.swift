import Bitcoin
@testable import PeerNode
import XCTest

/// The rule that keeps a made-up block out of the node's counts: headers are adopted only
/// as a run that links, parent by parent, to a block LND named as its best.
final class ElectrumAnchoredChainTests: XCTestCase {
    private let honest = ScriptedChain.headers(on: .zero, count: 20, salt: 1)

    private func reference(_ height: Int) -> (height: Int, hash: BlockHash) { (height, honest[height].hash) }

    func testARunEndingAtLNDsBestBlockIsAdopted() throws {
        var chain = ElectrumAnchoredChain()
        try chain.adopt(Array(honest[0...5]), from: 0, reaching: reference(5))
        XCTAssertEqual(chain.top, 5)
        XCTAssertEqual(chain.header(atHeight: 3), honest[3])
        XCTAssertNil(chain.header(atHeight: 6))
    }

    func testAMadeUpBlockIsRefusedThoughItsHeadersLink() {
        // Honest to 3, then a block whose merkle root is a lock's txid, and one more on it.
        let txid = [UInt8](repeating: 0xAA, count: 32)
        let forged = ScriptedChain.headers(on: honest[3].hash, count: 2, salt: 9, roots: [0: txid])
        var chain = ElectrumAnchoredChain()
        XCTAssertThrowsError(try chain.adopt(Array(honest[0...3]) + forged, from: 0, reaching: reference(5))) { error in
            XCTAssertEqual(error as? ElectrumAnchoredChain.Refusal,
                           .notLNDsBlock(height: 5, server: forged[1].hash, lnd: honest[5].hash))
        }
        XCTAssertNil(chain.top, "nothing adopted")
    }

    func testABreakInTheRunIsRefused() {
        var headers = Array(honest[0...5])
        headers[2] = ScriptedChain.headers(on: .zero, count: 1, salt: 7)[0]
        var chain = ElectrumAnchoredChain()
        XCTAssertThrowsError(try chain.adopt(headers, from: 0, reaching: reference(5))) { error in
            XCTAssertEqual(error as? ElectrumAnchoredChain.Refusal, .notLinked(height: 2))
        }
    }

    func testFewerHeadersThanReachLNDsBlockAreRefused() {
        var chain = ElectrumAnchoredChain()
        XCTAssertThrowsError(try chain.adopt(Array(honest[3...4]), from: 3, reaching: reference(5))) { error in
            XCTAssertEqual(error as? ElectrumAnchoredChain.Refusal, .short(expected: 3, got: 2))
        }
    }

    func testOlderHeadersJoinBelowAndNewerAbove() throws {
        var chain = ElectrumAnchoredChain()
        try chain.adopt(Array(honest[10...15]), from: 10, reaching: reference(15))
        // Below: the run's lowest header names its parent, which anchors what ends there.
        try chain.adopt(Array(honest[5...9]), from: 5, reaching: (9, honest[10].previousBlockHash))
        XCTAssertEqual(chain.base, 5)
        XCTAssertEqual(chain.top, 15)
        try chain.adopt(Array(honest[16...17]), from: 16, reaching: reference(17))
        XCTAssertEqual(chain.base, 5)
        XCTAssertEqual(chain.top, 17)
        XCTAssertEqual(chain.header(atHeight: 12), honest[12])
    }

    func testAReorganisationReplacesWhatNoLongerLinks() throws {
        var chain = ElectrumAnchoredChain()
        try chain.adopt(Array(honest[0...5]), from: 0, reaching: reference(5))
        let branch = ScriptedChain.headers(on: honest[3].hash, count: 3, salt: 5)
        try chain.adopt(branch, from: 4, reaching: (6, branch[2].hash))
        XCTAssertEqual(chain.base, 0, "the common part stays")
        XCTAssertEqual(chain.header(atHeight: 3), honest[3])
        XCTAssertEqual(chain.header(atHeight: 4), branch[0], "the old block at 4 is gone")
        XCTAssertEqual(chain.top, 6)
        // A run that links to nothing kept replaces it all.
        let other = ScriptedChain.headers(on: .zero, count: 2, salt: 6)
        try chain.adopt(other, from: 11, reaching: (12, other[1].hash))
        XCTAssertEqual(chain.base, 11)
        XCTAssertNil(chain.header(atHeight: 3))
    }

    func testTheLowestGoPastTheLimit() throws {
        var chain = ElectrumAnchoredChain(limit: 4)
        try chain.adopt(Array(honest[0...5]), from: 0, reaching: reference(5))
        XCTAssertEqual(chain.base, 2)
        XCTAssertEqual(chain.top, 5)
    }
}
