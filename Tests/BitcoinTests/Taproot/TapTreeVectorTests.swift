import TestSupport
import XCTest
@testable import Bitcoin

/// BIP341's wallet vectors, `scriptPubKey`: leaf hashes, merkle roots, output scripts and
/// script-path control blocks (parity bit included) built from each `scriptTree`.
final class TapTreeVectorTests: XCTestCase {
    func testLeafHashesMerkleRootsAndControlBlocks() throws {
        let root = try XCTUnwrap(try Vectors.json("bitcoin-core/bip341_wallet_vectors.json") as? [String: Any])
        let cases = try XCTUnwrap(root["scriptPubKey"] as? [[String: Any]])
        var checkedTrees = 0
        var checkedLeafHashes = 0
        var checkedControlBlocks = 0
        for (number, testCase) in cases.enumerated() {
            let given = try XCTUnwrap(testCase["given"] as? [String: Any])
            let intermediary = try XCTUnwrap(testCase["intermediary"] as? [String: Any])
            let expected = try XCTUnwrap(testCase["expected"] as? [String: Any])
            guard let treeJSON = given["scriptTree"], !(treeJSON is NSNull) else {
                // A key-only output: no tree, no root, no script path.
                XCTAssertTrue(intermediary["merkleRoot"] is NSNull, "case \(number)")
                XCTAssertNil(expected["scriptPathControlBlocks"], "case \(number)")
                checkedTrees += 1
                continue
            }
            var leavesByID: [Int: TapLeaf] = [:]
            let tree = try Self.tree(from: treeJSON, leavesByID: &leavesByID)
            XCTAssertEqual(tree.merkleRoot.hex, intermediary["merkleRoot"] as? String, "case \(number)")
            checkedTrees += 1

            // leafHashes and control blocks are listed by leaf id.
            let leafHashes = try XCTUnwrap(intermediary["leafHashes"] as? [String])
            XCTAssertEqual(leafHashes.count, leavesByID.count, "case \(number)")
            for (id, expectedHash) in leafHashes.enumerated() {
                XCTAssertEqual(try XCTUnwrap(leavesByID[id]).hash.hex, expectedHash, "case \(number), leaf \(id)")
                checkedLeafHashes += 1
            }
            XCTAssertEqual(tree.leaves.count, leavesByID.count)

            let internalKey = try XOnlyPublicKey(bytes(try XCTUnwrap(given["internalPubkey"] as? String)))
            // The parity bit is that of the tweaked output key Q = P + TapTweak(P || root)·G.
            let output = try internalKey.tapTweaked(merkleRoot: tree.merkleRoot)
            XCTAssertEqual(([0x51, 0x20] + output.key.bytes).hex, expected["scriptPubKey"] as? String, "case \(number)")
            let controlBlocks = try XCTUnwrap(expected["scriptPathControlBlocks"] as? [String])
            XCTAssertEqual(controlBlocks.count, leavesByID.count, "case \(number)")
            for (id, expectedHex) in controlBlocks.enumerated() {
                let leaf = try XCTUnwrap(leavesByID[id])
                let block = try ControlBlock(tree: tree, leaf: leaf, internalKey: internalKey.bytes,
                                             outputKeyIsOdd: output.parityOdd)
                XCTAssertEqual(block.bytes.hex, expectedHex, "case \(number), leaf \(id)")

                let parsed = try ControlBlock(bytes: bytes(expectedHex))
                XCTAssertEqual(parsed, block)
                XCTAssertEqual(parsed.leafVersion, leaf.version)
                XCTAssertEqual(try parsed.merkleRoot(for: leaf.script), tree.merkleRoot, "case \(number), leaf \(id)")
                checkedControlBlocks += 1
            }
        }
        XCTAssertEqual(checkedTrees, 7)
        XCTAssertEqual(checkedLeafHashes, 12)
        XCTAssertEqual(checkedControlBlocks, 12)
    }

    /// BIP341's JSON tree: a leaf object `{id, script, leafVersion}` or a two-element list.
    private static func tree(from json: Any, leavesByID: inout [Int: TapLeaf]) throws -> TapTree {
        if let pair = json as? [Any] {
            XCTAssertEqual(pair.count, 2, "a branch has two children")
            return .branch(try tree(from: pair[0], leavesByID: &leavesByID), try tree(from: pair[1], leavesByID: &leavesByID))
        }
        let node = try XCTUnwrap(json as? [String: Any])
        let version = UInt8(try XCTUnwrap(node["leafVersion"] as? Int))
        let leaf = try TapLeaf(version: version, script: Script(bytes: bytes(try XCTUnwrap(node["script"] as? String))))
        leavesByID[try XCTUnwrap(node["id"] as? Int)] = leaf
        return .leaf(leaf)
    }
}
