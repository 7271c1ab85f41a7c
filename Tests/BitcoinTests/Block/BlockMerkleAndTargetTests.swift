import Bitcoin
import TestSupport
import XCTest

final class BlockMerkleAndTargetTests: XCTestCase {
    private func leaf(_ byte: UInt8) -> [UInt8] { [UInt8](repeating: byte, count: 32) }

    func testMerkleRootPairsAndDuplicatesTheOddHash() {
        let (a, b, c) = (leaf(1), leaf(2), leaf(3))
        XCTAssertEqual(MerkleTree.root(of: [a]).root, a, "a single leaf is its own root")
        let ab = SHA256.doubleHash(a + b)
        XCTAssertEqual(MerkleTree.root(of: [a, b]).root, ab)
        let cc = SHA256.doubleHash(c + c)
        XCTAssertEqual(MerkleTree.root(of: [a, b, c]).root, SHA256.doubleHash(ab + cc))
        XCTAssertEqual(MerkleTree.root(of: []).root, [UInt8](repeating: 0, count: 32))
    }

    /// CVE-2012-2459: [a, b, c] and [a, b, c, c] share a root; the second is flagged.
    func testDuplicatedLastLeafIsMutated() {
        let list = [leaf(1), leaf(2), leaf(3)]
        let padded = list + [leaf(3)]
        XCTAssertEqual(MerkleTree.root(of: list).root, MerkleTree.root(of: padded).root)
        XCTAssertFalse(MerkleTree.root(of: list).mutated)
        XCTAssertTrue(MerkleTree.root(of: padded).mutated)
    }

    func testWitnessCommitmentScriptShape() {
        let commitment = WitnessCommitment.commitment(witnessRoot: leaf(7))
        XCTAssertEqual(commitment, SHA256.doubleHash(leaf(7) + [UInt8](repeating: 0, count: 32)))
        let script = WitnessCommitment.script(commitment: commitment)
        XCTAssertEqual(Array(script.bytes.prefix(6)).hex, "6a24aa21a9ed")
        XCTAssertEqual(script.count, 38)
    }

    /// Core's arith_uint256 SetCompact cases (src/test/arith_uint256_tests.cpp).
    func testCompactTargetDecoding() throws {
        func hex(_ bits: UInt32) -> String? { Target(bits: bits)?.bigEndianBytes.hex }
        let zero = String(repeating: "0", count: 64)
        XCTAssertEqual(hex(0x0100_3456), zero)
        XCTAssertEqual(hex(0x0112_3456), String(repeating: "0", count: 62) + "12")
        XCTAssertEqual(hex(0x0200_8000), String(repeating: "0", count: 62) + "80")
        XCTAssertEqual(hex(0x0500_9234), String(repeating: "0", count: 56) + "92340000")
        XCTAssertEqual(hex(0x2012_3456), "123456" + String(repeating: "0", count: 58))
        XCTAssertEqual(hex(0x1d00_ffff), "00000000ffff" + String(repeating: "0", count: 52))
        XCTAssertEqual(Target(bits: 0x207f_ffff), .regtestPowLimit)
        XCTAssertNil(Target(bits: 0x0492_3456), "negative")
        XCTAssertNil(Target(bits: 0xff12_3456), "overflow")
        XCTAssertNotNil(Target(bits: 0x0080_0000), "a zero mantissa is neither negative nor overflowing")
    }

    func testProofOfWorkComparesTheHashAsANumber() throws {
        var header = BlockEncodingTests.regtestGenesis().header
        XCTAssertTrue(header.hasValidProofOfWork(powLimit: .regtestPowLimit))
        // A target easier than the limit is refused even if the hash meets it.
        header.bits = 0x2100_ffff
        XCTAssertFalse(header.hasValidProofOfWork(powLimit: .regtestPowLimit))
        // The hardest possible target: almost no hash meets it.
        header.bits = 0x0301_0000
        XCTAssertFalse(header.hasValidProofOfWork(powLimit: .regtestPowLimit))
    }
}
