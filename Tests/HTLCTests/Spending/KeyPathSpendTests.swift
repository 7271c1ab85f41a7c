import Bitcoin
@testable import HTLC
import TestSupport
import XCTest

/// A cooperative claim of the Taproot swap contract through its key path: provider and
/// client run a full BIP327 session for KeyAgg(provider, client) tweaked by the contract's
/// script tree, and Bitcoin Core's interpreter (libbitcoinkernel) judges the one 64-byte
/// signature. Signatures made wrong in each way a peer could make them are refused both by
/// PartialSigVerify and, once aggregated, by the kernel.
final class KeyPathSpendTests: XCTestCase {
    private var kernel: KernelVerifier!
    private let contract = Fixture.contract(.taprootBoltz)
    private var taproot: TaprootSwapContract!
    private var keyAggregation: MuSig2KeyAggregation!
    /// The provider holds the refund key, the client the claim key (the contract's order).
    private let provider = Fixture.refundKey
    private let client = Fixture.claimKey

    override func setUpWithError() throws {
        kernel = try makeKernelVerifier()
        guard case .taprootBoltz(let taproot) = contract else { return XCTFail("not a Taproot contract") }
        self.taproot = taproot
        let untweaked = try MuSig2KeyAggregation(publicKeys: [provider.publicKey, client.publicKey])
        let tweak = try TaprootTweak.tweak(internalKey: untweaked.xOnlyPublicKey, merkleRoot: taproot.tree.merkleRoot)
        keyAggregation = try untweaked.tweaked(by: tweak, xOnly: true)
    }

    private var spent: TransactionOutput { contract.lockOutput(value: Fixture.lockValue) }

    /// An unsigned claim of the lock: one input, one output to `destination`.
    private func unsignedClaim(to destination: DestinationType = .p2tr, fee: Int64 = 300) -> Transaction {
        Transaction(inputs: [TransactionInput(previousOutput: Fixture.lockOutPoint, sequence: TransactionInput.replaceableSequence)],
                    outputs: [TransactionOutput(value: Fixture.lockValue - fee, scriptPubKey: Fixture.destination(destination).script)])
    }

    private func sighash(_ transaction: Transaction) throws -> [UInt8] {
        try TaprootSighash(transaction: transaction, spentOutputs: [spent]).hash(inputIndex: 0)
    }

    private func withKeyPathWitness(_ transaction: Transaction, _ signature: SchnorrSignature) -> Transaction {
        var signed = transaction
        signed.inputs[0].witness = Witness([signature.bytes])
        return signed
    }

    /// Both parties' nonces, as a session between two nodes has them after the nonce round.
    private struct Round: ~Copyable {
        let providerNonce: MuSig2SecretNonce
        let clientNonce: MuSig2SecretNonce
        let session: MuSig2Session
    }

    private func round(for message: [UInt8]) throws -> Round {
        let aggregateKey = keyAggregation.xOnlyPublicKey
        let providerNonce = try MuSig2SecretNonce(publicKey: provider.publicKey, secretKey: provider,
                                                  aggregateKey: aggregateKey, message: message)
        let clientNonce = try MuSig2SecretNonce(publicKey: client.publicKey, secretKey: client,
                                                aggregateKey: aggregateKey, message: message)
        let aggregateNonce = MuSig2AggregateNonce(aggregating: [providerNonce.publicNonce, clientNonce.publicNonce])
        return Round(providerNonce: providerNonce, clientNonce: clientNonce,
                     session: MuSig2Session(keyAggregation: keyAggregation, aggregateNonce: aggregateNonce, message: message))
    }

    func testTheTweakedAggregateIsTheContractsOutputKey() {
        XCTAssertEqual(keyAggregation.xOnlyPublicKey, taproot.outputKey)
        XCTAssertEqual(keyAggregation.aggregateKey.hasOddY, taproot.outputKeyIsOdd)
    }

    func testCooperativeKeyPathClaimIsAcceptedByTheKernel() throws {
        let claim = unsignedClaim()
        let message = try sighash(claim)
        let round = try round(for: message)
        let session = round.session
        let providerPublic = round.providerNonce.publicNonce
        let clientPublic = round.clientNonce.publicNonce
        let providerSignature = try session.sign(round.providerNonce, with: provider)
        let clientSignature = try session.sign(round.clientNonce, with: client)
        // Each side checks the other's partial signature before aggregating.
        XCTAssertTrue(session.verify(providerSignature, publicNonce: providerPublic, publicKey: provider.publicKey))
        XCTAssertTrue(session.verify(clientSignature, publicNonce: clientPublic, publicKey: client.publicKey))
        let signature = try session.aggregate([providerSignature, clientSignature])
        XCTAssertTrue(signature.verify(message: message, publicKey: taproot.outputKey))

        let signed = withKeyPathWitness(claim, signature)
        XCTAssertTrue(try kernel.accepts(signed, spending: spent))
        XCTAssertEqual(signed.inputs[0].witness.stack.map(\.count), [64], "the witness is one 64-byte signature")
        // Without the signature, or with it for another output key, the kernel refuses.
        XCTAssertFalse(try kernel.accepts(claim, spending: spent))
        let stranger = Fixture.contract(.taprootBoltz, timeout: Fixture.timeout + 1).lockOutput(value: Fixture.lockValue)
        XCTAssertFalse(try kernel.verify(transaction: signed, inputIndex: 0, spentOutputs: [stranger]))
    }

    /// The provider answers the client's nonce with DeterministicSign, keeping no secret
    /// nonce between messages; the result is the same kind of key-path spend.
    func testDeterministicResponderClaimIsAcceptedByTheKernel() throws {
        let claim = unsignedClaim(to: .p2wpkh)
        let message = try sighash(claim)
        let clientNonce = try MuSig2SecretNonce(publicKey: client.publicKey, secretKey: client,
                                                aggregateKey: keyAggregation.xOnlyPublicKey, message: message)
        let clientPublic = clientNonce.publicNonce
        let answer = try MuSig2Session.deterministicSign(secretKey: provider, aggregateOtherNonce: clientPublic.bytes,
                                                         keyAggregation: keyAggregation, message: message)
        // Asked again with the same inputs, the provider gives the same answer: a replay
        // cannot make it reuse a nonce for a different message.
        let again = try MuSig2Session.deterministicSign(secretKey: provider, aggregateOtherNonce: clientPublic.bytes,
                                                        keyAggregation: keyAggregation, message: message)
        XCTAssertEqual(again.publicNonce, answer.publicNonce)
        XCTAssertEqual(again.partialSignature, answer.partialSignature)
        let other = try MuSig2Session.deterministicSign(secretKey: provider, aggregateOtherNonce: clientPublic.bytes,
                                                        keyAggregation: keyAggregation, message: try sighash(unsignedClaim(fee: 301)))
        XCTAssertNotEqual(other.publicNonce, answer.publicNonce, "another message derives another nonce")

        let session = MuSig2Session(keyAggregation: keyAggregation,
                                    aggregateNonce: MuSig2AggregateNonce(aggregating: [answer.publicNonce, clientPublic]),
                                    message: message)
        XCTAssertTrue(session.verify(answer.partialSignature, publicNonce: answer.publicNonce, publicKey: provider.publicKey))
        let clientSignature = try session.sign(clientNonce, with: client)
        let signature = try session.aggregate([answer.partialSignature, clientSignature])
        XCTAssertTrue(try kernel.accepts(withKeyPathWitness(claim, signature), spending: spent))
    }

    /// A partial signature made for another message (another claim transaction) is refused
    /// by PartialSigVerify, and the aggregate it produces is refused by the kernel.
    func testPartialSignatureForAnotherMessageIsRefused() throws {
        let claim = unsignedClaim()
        let otherClaim = unsignedClaim(fee: 5_000)
        let round = try round(for: try sighash(claim))
        let session = round.session
        let clientPublic = round.clientNonce.publicNonce
        let providerSignature = try session.sign(round.providerNonce, with: provider)
        // The client's nonce is spent on the wrong message: what it signs is not this session's.
        let wrongSession = MuSig2Session(keyAggregation: keyAggregation, aggregateNonce: session.aggregateNonce,
                                         message: try sighash(otherClaim))
        let clientSignature = try wrongSession.sign(round.clientNonce, with: client)
        XCTAssertFalse(session.verify(clientSignature, publicNonce: clientPublic, publicKey: client.publicKey))
        let signature = try session.aggregate([providerSignature, clientSignature])
        XCTAssertFalse(try kernel.accepts(withKeyPathWitness(claim, signature), spending: spent))
        // Nor is it a signature for the other transaction.
        XCTAssertFalse(try kernel.accepts(withKeyPathWitness(otherClaim, signature), spending: spent))
    }

    /// One flipped bit in a partial signature: refused by PartialSigVerify and the kernel.
    func testTamperedPartialSignatureIsRefused() throws {
        let claim = unsignedClaim()
        let round = try round(for: try sighash(claim))
        let session = round.session
        let providerPublic = round.providerNonce.publicNonce
        var providerBytes = try session.sign(round.providerNonce, with: provider).bytes
        providerBytes[31] ^= 0x01
        let tampered = try MuSig2PartialSignature(providerBytes)
        XCTAssertFalse(session.verify(tampered, publicNonce: providerPublic, publicKey: provider.publicKey))
        let clientSignature = try session.sign(round.clientNonce, with: client)
        let signature = try session.aggregate([tampered, clientSignature])
        XCTAssertFalse(try kernel.accepts(withKeyPathWitness(claim, signature), spending: spent))
    }

    /// A partial signature by a key that is not one of the two, or by the right key under a
    /// nonce other than the one it announced, is refused; so is their aggregate.
    func testPartialSignatureByAnotherKeyOrNonceIsRefused() throws {
        let claim = unsignedClaim()
        let message = try sighash(claim)
        let round = try round(for: message)
        let session = round.session
        let providerPublic = round.providerNonce.publicNonce
        let clientPublic = round.clientNonce.publicNonce
        let clientSignature = try session.sign(round.clientNonce, with: client)

        // The stranger is not in the session: Sign refuses outright.
        XCTAssertThrowsError(try session.sign(try MuSig2SecretNonce(publicKey: Fixture.strangerKey.publicKey),
                                              with: Fixture.strangerKey)) {
            XCTAssertEqual($0 as? BitcoinError, .musig2(.signerNotInKeyList))
        }
        // A secret nonce made for the client's key cannot be used with the provider's.
        XCTAssertThrowsError(try session.sign(try MuSig2SecretNonce(publicKey: client.publicKey), with: provider)) {
            XCTAssertEqual($0 as? BitcoinError, .musig2(.secretNonceForAnotherKey))
        }

        // A stranger signs in its own session (itself in the provider's place, the same
        // nonces and message) and passes the result off as the provider's.
        let strangerAggregation = try MuSig2KeyAggregation(publicKeys: [Fixture.strangerKey.publicKey, client.publicKey])
        let strangerSession = MuSig2Session(keyAggregation: strangerAggregation, aggregateNonce: session.aggregateNonce,
                                            message: message)
        let strangerNonce = try MuSig2SecretNonce(publicKey: Fixture.strangerKey.publicKey)
        let strangerPublic = strangerNonce.publicNonce
        let strangerSignature = try strangerSession.sign(strangerNonce, with: Fixture.strangerKey)
        XCTAssertFalse(session.verify(strangerSignature, publicNonce: providerPublic, publicKey: provider.publicKey))
        XCTAssertFalse(session.verify(strangerSignature, publicNonce: strangerPublic, publicKey: Fixture.strangerKey.publicKey))
        XCTAssertFalse(try kernel.accepts(withKeyPathWitness(claim, try session.aggregate([strangerSignature, clientSignature])),
                                          spending: spent))

        // The provider signs with a fresh nonce it never announced.
        let unannounced = try MuSig2SecretNonce(publicKey: provider.publicKey, secretKey: provider, message: message)
        let unannouncedSignature = try session.sign(unannounced, with: provider)
        XCTAssertFalse(session.verify(unannouncedSignature, publicNonce: providerPublic, publicKey: provider.publicKey))
        XCTAssertFalse(try kernel.accepts(withKeyPathWitness(claim, try session.aggregate([unannouncedSignature, clientSignature])),
                                          spending: spent))
        // The client's own valid partial signature passed off as the provider's.
        XCTAssertFalse(session.verify(clientSignature, publicNonce: providerPublic, publicKey: provider.publicKey))
        XCTAssertFalse(session.verify(clientSignature, publicNonce: clientPublic, publicKey: provider.publicKey))

        // The honest signature still completes the spend (the failures above were the inputs').
        let providerSignature = try session.sign(round.providerNonce, with: provider)
        XCTAssertTrue(try kernel.accepts(withKeyPathWitness(claim, try session.aggregate([providerSignature, clientSignature])),
                                         spending: spent))
    }

    /// Claim size through the key path against the script path, per destination type: the
    /// figures in docs/HTLC.md.
    func testKeyPathClaimIsSmallerThanTheScriptPathForEveryDestination() throws {
        var rows = [String]()
        for destination in DestinationType.allCases {
            let claim = unsignedClaim(to: destination)
            let message = try sighash(claim)
            let round = try round(for: message)
            let session = round.session
            let signatures = [try session.sign(round.providerNonce, with: provider), try session.sign(round.clientNonce, with: client)]
            let signed = withKeyPathWitness(claim, try session.aggregate(signatures))
            XCTAssertTrue(try kernel.accepts(signed, spending: spent), "\(destination)")
            let scriptPath = SpendSize.claim(contract: contract, destination: destination)
            XCTAssertLessThan(signed.virtualSize, scriptPath, "\(destination)")
            rows.append("\(destination): key path \(signed.virtualSize) vB, script path \(scriptPath) vB")
        }
        XCTAssertEqual(withKeyPathWitness(unsignedClaim(to: .p2tr), try SchnorrSignature([UInt8](repeating: 1, count: 64))).virtualSize,
                       111, "one input, one P2TR output, one 64-byte signature")
        print("key-path claim sizes: " + rows.joined(separator: "; "))
    }
}
