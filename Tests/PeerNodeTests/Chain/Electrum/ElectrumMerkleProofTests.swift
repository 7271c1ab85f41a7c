import Bitcoin
@testable import PeerNode
import Transport
import XCTest

/// The check that makes a server's "confirmed at height h" believable: a branch from the
/// txid to the merkle root of the header fetched at h. Built here from a 5-leaf tree (an
/// odd level, so Core's duplicated last leaf is exercised) computed by `MerkleTree`.
final class ElectrumMerkleProofTests: XCTestCase {
    private let txids = (1...5).map { try! TransactionID(bytes: [UInt8](repeating: UInt8($0), count: 32)) }

    private var header: BlockHeader {
        BlockHeader(version: 4, previousBlockHash: .zero, merkleRoot: MerkleTree.root(of: txids.map(\.bytes)).root,
                    time: 0, bits: 0x207fffff, nonce: 0)
    }

    /// The branch for leaf `index`, level by level, as a server computes it.
    private func branch(for index: Int) -> [[UInt8]] {
        var level = txids.map(\.bytes)
        var position = index
        var branch: [[UInt8]] = []
        while level.count > 1 {
            if level.count % 2 == 1 { level.append(level[level.count - 1]) }
            branch.append(level[position ^ 1])
            level = stride(from: 0, to: level.count, by: 2).map { SHA256.doubleHash(level[$0] + level[$0 + 1]) }
            position >>= 1
        }
        return branch
    }

    func testEveryLeafIsProvenAtItsPositionOnly() {
        for index in txids.indices {
            let proof = ElectrumMerkleProof(blockHeight: 7, branch: branch(for: index), position: index)
            XCTAssertTrue(proof.proves(txids[index], in: header), "leaf \(index)")
            XCTAssertFalse(proof.proves(txids[(index + 1) % txids.count], in: header), "another txid at \(index)")
            let moved = ElectrumMerkleProof(blockHeight: 7, branch: branch(for: index), position: index ^ 1)
            XCTAssertFalse(moved.proves(txids[index], in: header), "leaf \(index) at the wrong position")
        }
    }

    func testAProofAgainstAnotherHeaderOrBeyondTheTreeFails() {
        let proof = ElectrumMerkleProof(blockHeight: 7, branch: branch(for: 2), position: 2)
        var other = header
        other.merkleRoot = [UInt8](repeating: 9, count: 32)
        XCTAssertFalse(proof.proves(txids[2], in: other))
        let beyond = ElectrumMerkleProof(blockHeight: 7, branch: branch(for: 2), position: 2 + (1 << branch(for: 2).count))
        XCTAssertFalse(beyond.proves(txids[2], in: header), "a position the tree has not")
    }

    /// The duplicated last leaf (index 5 of 5 does not exist) must not prove leaf 4 at 5.
    func testTheDuplicatedLastLeafIsNotALeaf() {
        let phantom = ElectrumMerkleProof(blockHeight: 7, branch: branch(for: 4).enumerated().map { $0.offset == 0 ? txids[4].bytes : $0.element },
                                          position: 5)
        XCTAssertFalse(phantom.proves(txids[4], in: header))
    }

    func testTheServersShapeIsReadWithReversedHashes() throws {
        let path = branch(for: 3)
        let value = JSONValue.object(["block_height": .integer(7), "pos": .integer(3),
                                      "merkle": .array(path.map { .string(Array($0.reversed()).hex) })])
        let proof = try ElectrumMerkleProof(decoding: value, method: "blockchain.transaction.get_merkle")
        XCTAssertEqual(proof, ElectrumMerkleProof(blockHeight: 7, branch: path, position: 3))
        XCTAssertTrue(proof.proves(txids[3], in: header))
        XCTAssertThrowsError(try ElectrumMerkleProof(decoding: .object(["block_height": .integer(7), "pos": .integer(3),
                                                                        "merkle": .array([.string("zz")])]),
                                                     method: "blockchain.transaction.get_merkle"))
    }
}
