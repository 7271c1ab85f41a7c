import XCTest
@testable import Bitcoin

/// A vector row that does not have the shape its file promises: a test failure, not a skip.
struct MalformedRow: Error, CustomStringConvertible {
    let why: String
    var description: String { "malformed vector row: \(why)" }
}

/// Core's script_tests tapscript helper: a one-leaf taproot tree (leaf version 0xc0) over
/// `key0` of Core's test KeyData, whose private key is 1. Returns the output key for
/// `OP_1 <key>` and the leaf's control block, as `TaprootBuilder` makes them.
enum SingleLeafTaproot {
    static let leafVersion: UInt8 = 0xc0

    static func commit(leafScript: [UInt8]) throws -> (outputKey: [UInt8], controlBlock: [UInt8]) {
        let key0 = try PrivateKey([UInt8](repeating: 0, count: 31) + [1])
        let internalKey = key0.xOnlyPublicKey
        let leaf = try TapLeaf(version: leafVersion, script: Script(bytes: leafScript))
        let tree = TapTree.leaf(leaf)
        // One leaf: the Merkle root is the leaf hash and the control block has no path.
        let output = try internalKey.tapTweaked(merkleRoot: tree.merkleRoot)
        let controlBlock = try ControlBlock(tree: tree, leaf: leaf, internalKey: internalKey.bytes,
                                            outputKeyIsOdd: output.parityOdd)
        return (output.key.bytes, controlBlock.bytes)
    }
}
