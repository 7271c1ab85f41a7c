import Bitcoin
import Regtest
import TestSupport
import XCTest

/// A P2WPKH key the chain tests mine to and spend from, signed with peernode's own sighash
/// and ECDSA code; the chain's kernel judges every signature.
struct SigningKey {
    let key: PrivateKey

    init(seed: UInt8) { key = try! PrivateKey([UInt8](repeating: seed, count: 32)) }

    var pubkeyHash: [UInt8] { Hash160.hash(key.publicKey.compressed) }
    var script: Script { Address.p2wpkh(pubkeyHash: pubkeyHash).script }

    /// Spends one coin of ours to `outputs`, signed, RBF-signalling.
    func spend(_ outpoint: OutPoint, value: Int64, to outputs: [TransactionOutput]) throws -> Transaction {
        var transaction = Transaction(version: 2,
                                      inputs: [TransactionInput(previousOutput: outpoint,
                                                                sequence: TransactionInput.replaceableSequence)],
                                      outputs: outputs)
        let scriptCode = Script([.dup, .hash160, .pushData(pubkeyHash), .equalVerify, .checkSig])
        let digest = try SegwitV0Sighash(transaction: transaction)
            .hash(inputIndex: 0, scriptCode: scriptCode, amount: value, hashType: .all)
        let signature = try ECDSASignature.sign(digest: digest, with: key)
        transaction.inputs[0].witness = Witness([signature.der + [SighashType.all.byte], key.publicKey.compressed])
        return transaction
    }
}

/// The coinbase output of the active block at `height`.
func coinbase(of chain: RegtestChain, atHeight height: Int) throws -> (outpoint: OutPoint, value: Int64) {
    let block = try XCTUnwrap(chain.block(atHeight: height)).block
    return (OutPoint(txid: block.transactions[0].txid, index: 0), block.transactions[0].outputs[0].value)
}
