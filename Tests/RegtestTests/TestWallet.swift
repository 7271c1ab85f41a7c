import Bitcoin
import Regtest
import TestSupport
import XCTest

/// A P2WPKH key the tests mine to and spend from, signing with peernode's own sighash and
/// ECDSA code; the chain's kernel judges every signature.
struct TestWallet {
    let key: PrivateKey

    init(seed: UInt8 = 0x42) { key = try! PrivateKey([UInt8](repeating: seed, count: 32)) }

    var pubkeyHash: [UInt8] { Hash160.hash(key.publicKey.compressed) }
    var script: Script { Address.p2wpkh(pubkeyHash: pubkeyHash).script }

    /// A version-2 transaction spending `coins` (all ours) to `outputs`, every input signed.
    func spend(_ coins: [(outpoint: OutPoint, value: Int64)], to outputs: [TransactionOutput],
               lockTime: UInt32 = 0, sequence: UInt32 = TransactionInput.replaceableSequence) throws -> Transaction {
        var transaction = Transaction(version: 2,
                                      inputs: coins.map { TransactionInput(previousOutput: $0.outpoint, sequence: sequence) },
                                      outputs: outputs, lockTime: lockTime)
        let scriptCode = Script([.dup, .hash160, .pushData(pubkeyHash), .equalVerify, .checkSig])
        let sighash = SegwitV0Sighash(transaction: transaction)
        for (index, coin) in coins.enumerated() {
            let digest = try sighash.hash(inputIndex: index, scriptCode: scriptCode, amount: coin.value, hashType: .all)
            let signature = try ECDSASignature.sign(digest: digest, with: key)
            transaction.inputs[index].witness = Witness([signature.der + [SighashType.all.byte], key.publicKey.compressed])
        }
        return transaction
    }

    /// Spends one coin to one P2WPKH output of ours, paying `fee`.
    func spend(_ outpoint: OutPoint, value: Int64, fee: Int64, lockTime: UInt32 = 0,
               sequence: UInt32 = TransactionInput.replaceableSequence) throws -> Transaction {
        try spend([(outpoint, value)], to: [TransactionOutput(value: value - fee, scriptPubKey: script)],
                  lockTime: lockTime, sequence: sequence)
    }
}

/// The coinbase output of the active block at `height`.
func coinbase(of chain: RegtestChain, atHeight height: Int) throws -> (outpoint: OutPoint, value: Int64) {
    let block = try XCTUnwrap(chain.block(atHeight: height)).block
    return (OutPoint(txid: block.transactions[0].txid, index: 0), block.transactions[0].outputs[0].value)
}

/// Blocks 1...101 mined to `wallet`, then block 1's coinbase (mature now) spent back to
/// `wallet` with a 10,000 sat fee and submitted to the mempool.
func submitCoinbaseSpend(on chain: RegtestChain, wallet: TestWallet) throws
    -> (coin: (outpoint: OutPoint, value: Int64), spend: Transaction) {
    try chain.mine(101, to: wallet.script)
    let coin = try coinbase(of: chain, atHeight: 1)
    let spend = try wallet.spend(coin.outpoint, value: coin.value, fee: 10_000)
    try chain.submit(spend)
    return (coin, spend)
}

/// Asserts the kernel's active tip is the hub's.
func assertKernelAgrees(_ chain: RegtestChain, file: StaticString = #filePath, line: UInt = #line) throws {
    let kernel = try chain.kernelTip()
    XCTAssertEqual(kernel.height, chain.height, "kernel height", file: file, line: line)
    XCTAssertEqual(kernel.hash, chain.tipHash, "kernel tip", file: file, line: line)
}

/// The rejection `body` throws, failing the test when it succeeds or throws something else.
func rejection(file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) -> MempoolRejection? {
    do {
        try body()
        XCTFail("the transaction was accepted", file: file, line: line)
    } catch let rejection as MempoolRejection {
        return rejection
    } catch {
        XCTFail("unexpected error \(error)", file: file, line: line)
    }
    return nil
}
