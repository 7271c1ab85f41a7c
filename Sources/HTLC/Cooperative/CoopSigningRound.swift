import Bitcoin

/// The initiator's side of one cooperative key-path spend (a claim or a refund, either
/// direction), as pure steps: the unsigned spend, its sighash and a fresh secret nonce
/// (`init`); the record to write before the request leaves (`record`, no secret in it);
/// then `finish` with the co-signer's answer: verify its partial signature, sign with the
/// nonce (consumed), aggregate, check the BIP340 signature against the output key.
///
/// `~Copyable` because it owns the secret nonce: there is one, used by `finish` or dropped
/// (and erased) with the value. Any refusal leaves the script path, which stays valid
/// whatever happens here (docs/HTLC.md, "Nonce safety").
public struct CoopSigningRound: ~Copyable {
    public let context: CoopSpendContext
    public let kind: CoopSpendKind
    public let unsignedTransaction: Transaction
    /// The key-path sighash of `unsignedTransaction`: the message.
    public let sighash: [UInt8]
    private let ownKey: PrivateKey
    private let secretNonce: MuSig2SecretNonce

    /// `ownKey` must be the initiator's key for `kind` exactly (KeyAgg uses the full
    /// compressed key). The nonce is NonceGen with that key, the tweaked aggregate key, the
    /// sighash and the lock's outpoint, and 32 fresh random bytes.
    public init(context: CoopSpendContext, kind: CoopSpendKind, unsignedTransaction: Transaction,
                ownKey: PrivateKey) throws(CoopSpendError) {
        guard ownKey.publicKey == kind.initiatorKey(of: context.contract.terms) else {
            throw .keyMismatch(role: kind.initiatorRole)
        }
        let sighash = try context.sighash(of: unsignedTransaction)
        let aggregateKey = context.keyAggregation.xOnlyPublicKey
        let outPoint = context.lock.outPoint
        secretNonce = try CoopSpendError.wrapping {
            try MuSig2SecretNonce(publicKey: ownKey.publicKey, secretKey: ownKey, aggregateKey: aggregateKey,
                                  message: sighash, extraInput: outPoint.txid.bytes + Self.littleEndian(outPoint.index))
        }
        self.context = context
        self.kind = kind
        self.unsignedTransaction = unsignedTransaction
        self.sighash = sighash
        self.ownKey = ownKey
    }

    /// The public nonce to send.
    public var publicNonce: MuSig2PublicNonce { secretNonce.publicNonce }

    /// What the engine records before it sends the request.
    public var record: CoopRequestedRecord {
        CoopRequestedRecord(publicNonce: publicNonce, sighash: sighash, unsignedTransaction: unsignedTransaction)
    }

    /// Verifies the co-signer's answer, signs (using up the secret nonce whatever happens),
    /// aggregates, and returns the spend with its one 64-byte witness element. A partial
    /// signature that does not verify is refused before anything is signed.
    public consuming func finish(responderNonce: MuSig2PublicNonce,
                                 partialSignature: MuSig2PartialSignature) throws(CoopSpendError) -> Transaction {
        let session = context.session(nonces: [responderNonce, secretNonce.publicNonce], sighash: sighash)
        let responderKey = kind.responderKey(of: context.contract.terms)
        guard session.verify(partialSignature, publicNonce: responderNonce, publicKey: responderKey) else {
            throw .partialSignatureInvalid
        }
        let ownSignature: MuSig2PartialSignature
        do {
            ownSignature = try session.sign(secretNonce, with: ownKey)
        } catch let error as BitcoinError {
            throw .bitcoin(error)
        } catch {
            throw .bitcoin(.invalidTransaction("\(error)"))
        }
        let signature = try CoopSpendError.wrapping { try session.aggregate([partialSignature, ownSignature]) }
        // Checked here rather than trusted: a bad aggregate is a script-path spend, not a
        // broadcast the network refuses.
        guard signature.verify(message: sighash, publicKey: context.contract.outputKey) else {
            throw .aggregateSignatureInvalid
        }
        return CoopSpendContext.withKeyPathWitness(unsignedTransaction, signature)
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
