import Bitcoin
import TestSupport
import XCTest

/// The kernel's chainstate manager judging blocks we build: a valid block 1 on the regtest
/// genesis is connected; broken ones come back rejected with Core's own reason.
final class BlockKernelValidationTests: XCTestCase {
    private static let anyoneCanSpend = Script([.number(1)])

    /// Block 1 on the regtest genesis paying 50 BTC to OP_TRUE, with `mutate` applied before mining.
    private func blockOne(on chain: KernelChainstate, mutate: (inout Block) -> Void = { _ in }) throws -> Block {
        let genesis = try chain.tipHash
        let coinbase = Transaction(
            version: 2,
            inputs: [TransactionInput(previousOutput: .null, scriptSig: Script([.pushNumber(1), .zero]))],
            outputs: [TransactionOutput(value: 50 * 100_000_000, scriptPubKey: Self.anyoneCanSpend)])
        var block = Block(header: BlockHeader(version: 0x2000_0000, previousBlockHash: genesis,
                                              merkleRoot: coinbase.txid.bytes, time: 1_296_688_603,
                                              bits: 0x207f_ffff, nonce: 0),
                          transactions: [coinbase])
        mutate(&block)
        while !block.header.hasValidProofOfWork(powLimit: .regtestPowLimit) { block.header.nonce += 1 }
        return block
    }

    private func makeChainstate() throws -> KernelChainstate {
        _ = try makeKernelVerifier()
        return try KernelChainstate()
    }

    func testValidBlockIsConnected() throws {
        let chain = try makeChainstate()
        defer { chain.close() }
        XCTAssertEqual(try chain.height, 0)
        XCTAssertEqual(try chain.tipHash.hex, "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206")
        let block = try blockOne(on: chain)
        XCTAssertEqual(try chain.process(block), .connected)
        XCTAssertEqual(try chain.height, 1)
        XCTAssertEqual(try chain.tipHash, block.hash)
        XCTAssertEqual(try chain.blockHash(atHeight: 1), block.hash)
        XCTAssertNil(try chain.blockHash(atHeight: 2))
        XCTAssertEqual(try chain.process(block), .notConnected, "a duplicate gets no second verdict")
    }

    func testBadMerkleRootIsRejectedWithCoresReason() throws {
        let chain = try makeChainstate()
        defer { chain.close() }
        let block = try blockOne(on: chain) { $0.header.merkleRoot[0] ^= 1 }
        guard case .rejected(let hash, let result, let reason) = try chain.process(block) else {
            return XCTFail("a block with a wrong merkle root was not rejected")
        }
        XCTAssertEqual(hash, block.hash)
        XCTAssertEqual(result, .mutated)
        XCTAssertTrue(reason.hasPrefix("bad-txnmrklroot"), reason)
        XCTAssertEqual(try chain.height, 0, "the tip does not move")
    }

    func testMissingBIP34HeightIsRejected() throws {
        let chain = try makeChainstate()
        defer { chain.close() }
        let block = try blockOne(on: chain) { block in
            block.transactions[0].inputs[0].scriptSig = Script([.pushNumber(5), .zero])
            block.header.merkleRoot = block.transactions[0].txid.bytes
        }
        guard case .rejected(_, _, let reason) = try chain.process(block) else {
            return XCTFail("a coinbase without its height was not rejected")
        }
        XCTAssertTrue(reason.hasPrefix("bad-cb-height"), reason)
    }

    func testOverpayingCoinbaseIsRejectedWhenConnecting() throws {
        let chain = try makeChainstate()
        defer { chain.close() }
        let block = try blockOne(on: chain) { block in
            block.transactions[0].outputs[0].value += 1
            block.header.merkleRoot = block.transactions[0].txid.bytes
        }
        guard case .rejected(_, let result, let reason) = try chain.process(block) else {
            return XCTFail("a coinbase paying more than the subsidy was not rejected")
        }
        XCTAssertEqual(result, .consensus)
        XCTAssertTrue(reason.hasPrefix("bad-cb-amount"), reason)
        XCTAssertEqual(try chain.height, 0)
    }

    func testCloseRemovesTheDataDirectory() throws {
        let chain = try makeChainstate()
        let directory = chain.directory
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory + "/blocks"))
        chain.close()
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory))
    }
}
