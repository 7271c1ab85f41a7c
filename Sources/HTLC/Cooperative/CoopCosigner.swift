import Bitcoin

/// The co-signer's side of a cooperative key-path spend, as pure steps (the engine does
/// the I/O): a reverse provider co-signing its client's claim, a submarine client
/// co-signing its provider's claim, a submarine provider co-signing its client's refund.
/// 1. `check`: the spend takes exactly the lock (`CoopSpendCheck`), and a claim comes with
///    the preimage of the payment hash; the engine then records what it learned;
/// 2. `sign`: BIP327 DeterministicSign over the spend's sighash against the initiator's
///    nonce, giving the answer and the record the engine writes before sending it.
///
/// DeterministicSign keeps no secret nonce between messages: its nonce is derived from
/// the co-signer's key, the initiator's nonce, the aggregate key and the message, so a
/// crash or a replay cannot make it sign two messages with one nonce (any other input
/// derives another nonce). A replay is still answered from the record, not signed again.
public struct CoopCosigner: Sendable {
    public let check: CoopSpendCheck
    public let kind: CoopSpendKind
    private let key: PrivateKey

    /// `key` must be the responder's key for `kind` exactly (KeyAgg uses the full key): the
    /// refund key co-signs a claim, the claim key a refund.
    public init(context: CoopSpendContext, kind: CoopSpendKind, key: PrivateKey) throws(CoopSpendError) {
        guard key.publicKey == kind.responderKey(of: context.contract.terms) else {
            throw .keyMismatch(role: kind.responderRole)
        }
        check = CoopSpendCheck(context: context)
        self.kind = kind
        self.key = key
    }

    public var context: CoopSpendContext { check.context }

    /// Step 1 of a claim: refuses anything but a claim of this lock with the right preimage.
    public func check(claim transaction: Transaction, preimage: [UInt8]) throws(CoopSpendError) -> CheckedCoopSpend {
        guard kind == .claim else { throw .wrongKind(expected: kind) }
        return try check.check(claim: transaction, preimage: preimage)
    }

    /// Step 1 of a refund: refuses anything but a spend of this lock alone.
    public func check(refund transaction: Transaction) throws(CoopSpendError) -> CheckedCoopSpend {
        guard kind == .refund else { throw .wrongKind(expected: kind) }
        return try check.check(refund: transaction)
    }

    /// Step 2: the partial signature for `spend` against `initiatorNonce`. With `record`
    /// (the swap's last co-signature) answering the same nonce and sighash, its answer is
    /// returned as it is and `fromRecord` is true: nothing is signed.
    public func sign(_ spend: CheckedCoopSpend, initiatorNonce: MuSig2PublicNonce,
                     record: CoopSignedRecord?) throws(CoopSpendError) -> CoopCosignature {
        if let record, record.answers(initiatorNonce: initiatorNonce, sighash: spend.sighash) {
            return CoopCosignature(record: record, fromRecord: true)
        }
        let keyAggregation = context.keyAggregation
        let (publicNonce, partialSignature) = try CoopSpendError.wrapping {
            try MuSig2Session.deterministicSign(secretKey: key, aggregateOtherNonce: initiatorNonce.bytes,
                                                keyAggregation: keyAggregation, message: spend.sighash)
        }
        return CoopCosignature(record: CoopSignedRecord(initiatorNonce: initiatorNonce, responderNonce: publicNonce,
                                                        sighash: spend.sighash, partialSignature: partialSignature),
                               fromRecord: false)
    }
}

/// The co-signer's answer: what goes into `CoopClaimSigned`, and the record to write first.
public struct CoopCosignature: Sendable, Hashable {
    public let record: CoopSignedRecord
    /// True when a replayed request was answered from the record (nothing signed).
    public let fromRecord: Bool

    public var publicNonce: MuSig2PublicNonce { record.responderNonce }
    public var partialSignature: MuSig2PartialSignature { record.partialSignature }
}
