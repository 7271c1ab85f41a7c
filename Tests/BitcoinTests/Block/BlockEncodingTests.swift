import Bitcoin
import TestSupport
import XCTest

/// Blocks as Core serializes and hashes them: the regtest genesis block rebuilt from its
/// known contents, and block 201 of the captured bitcoind regtest chain read back byte for byte.
final class BlockEncodingTests: XCTestCase {
    /// Satoshi's coinbase, which every network's genesis block shares.
    static func genesisCoinbase() -> Transaction {
        let scriptSig = bytes("04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72"
            + "206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73")
        let pubkeyScript = bytes("4104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f"
            + "35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac")
        return Transaction(version: 1,
                           inputs: [TransactionInput(previousOutput: .null, scriptSig: Script(bytes: scriptSig))],
                           outputs: [TransactionOutput(value: 50 * 100_000_000, scriptPubKey: Script(bytes: pubkeyScript))],
                           lockTime: 0)
    }

    /// The regtest genesis block (chainparams.cpp: time 1296688602, nonce 2, bits 0x207fffff).
    static func regtestGenesis() -> Block {
        let coinbase = genesisCoinbase()
        let root = MerkleTree.root(of: [coinbase.txid.bytes]).root
        let header = BlockHeader(version: 1, previousBlockHash: .zero, merkleRoot: root,
                                 time: 1_296_688_602, bits: 0x207f_ffff, nonce: 2)
        return Block(header: header, transactions: [coinbase])
    }

    func testRegtestGenesisHash() throws {
        let genesis = Self.regtestGenesis()
        XCTAssertEqual(Array(genesis.header.merkleRoot.reversed()).hex,
                       "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b")
        XCTAssertEqual(genesis.hash.hex, "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206")
        XCTAssertEqual(genesis.header.serialized.count, BlockHeader.byteCount)
        XCTAssertTrue(genesis.header.hasValidProofOfWork(powLimit: .regtestPowLimit))
        XCTAssertEqual(try Block(bytes: genesis.serialized), genesis)
    }

    /// Block 201 of the fixture chain: a coinbase with a witness commitment and one P2WPKH spend.
    func testCoreBlockRoundTripsAndCommitsToItsTransactions() throws {
        let fixture = try XCTUnwrap(try Vectors.json("../fixtures/bitcoind/getblock_verbosity0.json") as? [String: Any])
        let body = try XCTUnwrap(fixture["response_body"] as? [String: Any])
        let hex = try XCTUnwrap(body["result"] as? String)
        let block = try Block(hex: hex)

        XCTAssertEqual(block.serialized.hex, hex)
        XCTAssertEqual(block.hash.hex, "42ced1324fb3f685a0ba1136c16cf48b9ec1163e6860f3e1e903d0d270879f56")
        XCTAssertEqual(block.transactions.count, 2)
        XCTAssertEqual(block.computedMerkleRoot.root, block.header.merkleRoot)
        XCTAssertFalse(block.computedMerkleRoot.mutated)
        XCTAssertTrue(block.hasValidWitnessCommitment)
        XCTAssertEqual(block.weight, 1453)
        XCTAssertTrue(block.header.hasValidProofOfWork(powLimit: .regtestPowLimit))
        XCTAssertEqual(WitnessCommitment.outputIndex(in: block.transactions[0]), block.transactions[0].outputs.count - 1)

        var tampered = block
        tampered.transactions[1].inputs[0].witness.stack[0][10] ^= 1
        XCTAssertEqual(tampered.computedMerkleRoot.root, block.header.merkleRoot, "witnesses are not in the txid tree")
        XCTAssertFalse(tampered.hasValidWitnessCommitment, "but they are in the witness commitment")
    }
}
