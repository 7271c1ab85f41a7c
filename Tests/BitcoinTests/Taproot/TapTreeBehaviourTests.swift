import XCTest
@testable import Bitcoin

/// Named checks of the taproot tree rules that BIP341's vectors do not reach.
final class TapTreeBehaviourTests: XCTestCase {
    private let a = TapLeaf(script: Script([.number(1)]))
    private let b = TapLeaf(script: Script([.number(2)]))
    private let c = TapLeaf(script: Script([.number(3)]))
    private let internalKey = [UInt8](repeating: 0x11, count: 32)

    func testOddOrAnnexLeafVersionsAreRejected() {
        XCTAssertThrowsError(try TapLeaf(version: 0xc1, script: Script()))
        XCTAssertThrowsError(try TapLeaf(version: 0x50, script: Script()))
        XCTAssertNoThrow(try TapLeaf(version: 0xfa, script: Script()))
    }

    func testBranchHashIgnoresChildOrder() {
        XCTAssertEqual(TapTree.branch(.leaf(a), .leaf(b)).merkleRoot, TapTree.branch(.leaf(b), .leaf(a)).merkleRoot)
        XCTAssertNotEqual(TapTree.branch(.leaf(a), .leaf(b)).merkleRoot, TapTree.branch(.leaf(a), .leaf(c)).merkleRoot)
    }

    func testEveryLeafPathFoldsToTheRoot() throws {
        let tree = TapTree.branch(.leaf(a), .branch(.leaf(b), .leaf(c)))
        XCTAssertEqual(tree.leaves, [a, b, c])
        XCTAssertEqual(tree.depth, 2)
        XCTAssertEqual(tree.merklePath(for: a)?.count, 1)
        XCTAssertEqual(tree.merklePath(for: c), [b.hash, a.hash])
        for entry in tree.leafPaths {
            let block = try ControlBlock(tree: tree, leaf: entry.leaf, internalKey: internalKey, outputKeyIsOdd: true)
            XCTAssertEqual(try block.merkleRoot(for: entry.leaf.script), tree.merkleRoot)
            XCTAssertEqual(try ControlBlock(bytes: block.bytes), block)
            XCTAssertEqual(block.bytes.first, 0xc1)
        }
    }

    func testControlBlockForAMissingLeafIsRejected() {
        XCTAssertThrowsError(try ControlBlock(tree: .branch(.leaf(a), .leaf(b)), leaf: c, internalKey: internalKey,
                                              outputKeyIsOdd: false))
    }

    func testMalformedControlBlocksAreRejected() {
        XCTAssertThrowsError(try ControlBlock(bytes: [0xc0] + internalKey.dropLast()), "too short")
        XCTAssertThrowsError(try ControlBlock(bytes: [0xc0] + internalKey + [0]), "path not a multiple of 32")
        XCTAssertThrowsError(try ControlBlock(bytes: [0xc0] + internalKey + [UInt8](repeating: 0, count: 32 * 129)),
                             "more than 128 path hashes")
        XCTAssertNoThrow(try ControlBlock(bytes: [0xc0] + internalKey + [UInt8](repeating: 0, count: 32 * 128)))
        XCTAssertThrowsError(try ControlBlock(leafVersion: 0xc0, outputKeyIsOdd: false, internalKey: [1, 2], path: []))
    }
}
