import XCTest
@testable import Bitcoin

/// Spends that our code builds and signs, judged by Bitcoin Core's own interpreter
/// (libbitcoinkernel): P2WPKH with ECDSA, P2TR key path and P2TR script path, in one
/// transaction so every input's sighash commits to the other inputs' prevouts and amounts.
/// The same spends with one signature byte or one amount changed must be refused.
final class SignedSpendTests: XCTestCase {
    private struct Fixture {
        var transaction: Transaction
        var spentOutputs: [TransactionOutput]
    }

    private let walletKey = try! PrivateKey([UInt8](repeating: 0x11, count: 32))
    private let taprootKey = try! PrivateKey([UInt8](repeating: 0x22, count: 32))
    private let leafKey = try! PrivateKey([UInt8](repeating: 0x33, count: 32))
    private let otherLeafKey = try! PrivateKey([UInt8](repeating: 0x44, count: 32))

    private var leaf: TapLeaf { TapLeaf(script: Script([.pushData(leafKey.xOnlyPublicKey.bytes), .checkSig])) }
    private var otherLeaf: TapLeaf {
        TapLeaf(script: Script([.pushData(otherLeafKey.xOnlyPublicKey.bytes), .checkSigVerify, .pushNumber(500_000), .checkLockTimeVerify]))
    }
    private var tree: TapTree { .branch(.leaf(leaf), .leaf(otherLeaf)) }

    /// Builds and signs a three-input transaction: 0 = P2WPKH, 1 = P2TR key path, 2 = P2TR script path.
    private func signedFixture() throws -> Fixture {
        let walletHash = Hash160.hash(walletKey.publicKey.compressed)
        let keyPathOutput = try taprootKey.xOnlyPublicKey.tapTweaked(merkleRoot: nil).key
        let scriptInternal = taprootKey.xOnlyPublicKey
        let scriptOutput = try scriptInternal.tapTweaked(merkleRoot: tree.merkleRoot)

        let spent = [
            TransactionOutput(value: 150_000, scriptPubKey: Address.p2wpkh(pubkeyHash: walletHash).script),
            TransactionOutput(value: 250_000, scriptPubKey: Address.p2tr(outputKey: keyPathOutput.bytes).script),
            TransactionOutput(value: 350_000, scriptPubKey: Address.p2tr(outputKey: scriptOutput.key.bytes).script),
        ]
        let funding = try TransactionID(hex: String(repeating: "ab", count: 32))
        var tx = Transaction(
            version: 2,
            inputs: (0..<3).map {
                TransactionInput(previousOutput: OutPoint(txid: funding, index: UInt32($0)),
                                 sequence: TransactionInput.replaceableSequence)
            },
            outputs: [
                TransactionOutput(value: 700_000, scriptPubKey: Address.p2wpkh(pubkeyHash: walletHash).script),
                TransactionOutput(value: 49_000, scriptPubKey: Address.p2tr(outputKey: keyPathOutput.bytes).script),
            ],
            lockTime: 0)

        // Input 0: BIP143 over the P2PKH-shaped script code, ECDSA, SIGHASH_ALL.
        let scriptCode = Script([.dup, .hash160, .pushData(walletHash), .equalVerify, .checkSig])
        let v0Digest = try SegwitV0Sighash(transaction: tx).hash(inputIndex: 0, scriptCode: scriptCode,
                                                                  amount: spent[0].value, hashType: .all)
        let ecdsa = try ECDSASignature.sign(digest: v0Digest, with: walletKey)
        tx.inputs[0].witness = Witness([ecdsa.der + [UInt8(SighashType.all.rawValue)], walletKey.publicKey.compressed])

        // Input 1: BIP341 key path with the tweaked key, SIGHASH_DEFAULT (64-byte signature).
        let taproot = try TaprootSighash(transaction: tx, spentOutputs: spent)
        let keyPathDigest = try taproot.hash(inputIndex: 1)
        let keyPathSignature = try SchnorrSignature.sign(message: keyPathDigest, with: try taprootKey.tapTweaked(merkleRoot: nil))
        tx.inputs[1].witness = Witness([keyPathSignature.bytes])

        // Input 2: BIP342 script path through `leaf`, with its control block; SIGHASH_ALL appended.
        let scriptPathDigest = try taproot.hash(inputIndex: 2, hashType: .all, scriptPath: TaprootSighash.ScriptPath(leaf: leaf))
        let scriptPathSignature = try SchnorrSignature.sign(message: scriptPathDigest, with: leafKey)
        let controlBlock = try ControlBlock(tree: tree, leaf: leaf, internalKey: scriptInternal.bytes,
                                            outputKeyIsOdd: scriptOutput.parityOdd)
        tx.inputs[2].witness = Witness([scriptPathSignature.bytes + [UInt8(SighashType.all.rawValue)],
                                        leaf.script.bytes, controlBlock.bytes])
        return Fixture(transaction: tx, spentOutputs: spent)
    }

    private func verdicts(_ fixture: Fixture) throws -> [Bool] {
        let kernel = try KernelVerifier()
        return try (0..<fixture.transaction.inputs.count).map {
            try kernel.verify(transaction: fixture.transaction, inputIndex: $0, spentOutputs: fixture.spentOutputs)
        }
    }

    func testKernelAcceptsEveryInputWeSigned() throws {
        let fixture = try signedFixture()
        XCTAssertEqual(try verdicts(fixture), [true, true, true])
        // The kernel parsed our bytes, so our serialization round-trips through Core too.
        XCTAssertEqual(try Transaction(bytes: fixture.transaction.serialized), fixture.transaction)
    }

    func testOneChangedSignatureByteIsRefused() throws {
        let fixture = try signedFixture()
        for input in 0..<3 {
            var tampered = fixture
            tampered.transaction.inputs[input].witness.stack[0][10] ^= 0x01
            let result = try verdicts(tampered)
            XCTAssertFalse(result[input], "input \(input) accepted with a changed signature byte")
            // Other inputs' sighashes do not cover witnesses, so they stay valid.
            XCTAssertEqual(result.enumerated().filter { $0.offset != input }.map(\.element), [true, true])
        }
    }

    func testOneChangedAmountIsRefused() throws {
        let fixture = try signedFixture()
        for input in 0..<3 {
            var tampered = fixture
            tampered.spentOutputs[input].value += 1
            let result = try verdicts(tampered)
            XCTAssertFalse(result[input], "input \(input) accepted with a changed amount")
            // BIP341 commits to every input's amount: the taproot inputs fail whichever amount moved.
            XCTAssertFalse(result[1])
            XCTAssertFalse(result[2])
            if input != 0 { XCTAssertTrue(result[0], "BIP143 commits only to the input's own amount") }
        }
    }

    func testSpendingTheOtherLeafWithoutItsLockTimeIsRefused() throws {
        // The second leaf requires nLockTime >= 500000; signing it correctly is not enough.
        var fixture = try signedFixture()
        let scriptInternal = taprootKey.xOnlyPublicKey
        let parity = try scriptInternal.tapTweaked(merkleRoot: tree.merkleRoot).parityOdd
        let taproot = try TaprootSighash(transaction: fixture.transaction, spentOutputs: fixture.spentOutputs)
        let digest = try taproot.hash(inputIndex: 2, scriptPath: TaprootSighash.ScriptPath(leaf: otherLeaf))
        let signature = try SchnorrSignature.sign(message: digest, with: otherLeafKey)
        let controlBlock = try ControlBlock(tree: tree, leaf: otherLeaf, internalKey: scriptInternal.bytes, outputKeyIsOdd: parity)
        fixture.transaction.inputs[2].witness = Witness([signature.bytes, otherLeaf.script.bytes, controlBlock.bytes])
        XCTAssertFalse(try verdicts(fixture)[2])
    }
}
