import Bitcoin

/// The provider's side of a cooperative claim, as pure steps (the engine does the I/O):
/// 1. `check`: the claim spends exactly the lock and the preimage is right
///    (`CoopClaimCheck`); the engine then records the preimage and settles its invoice;
/// 2. `sign`: BIP327 DeterministicSign over the claim's sighash against the client's nonce,
///    giving the answer and the `coop_signed` record the engine writes before sending.
///
/// DeterministicSign keeps no secret nonce between messages: its nonce is derived from
/// the provider's key, the client's nonce, the aggregate key and the message, so a crash
/// or a replay cannot make it sign two messages with one nonce (any other input derives
/// another nonce). A replay is still answered from the record, not signed again.
public struct CoopClaimProvider: Sendable {
    public let check: CoopClaimCheck
    private let providerKey: PrivateKey

    /// `providerKey` must be the contract's provider key exactly (KeyAgg uses the full key).
    public init(context: CoopClaimContext, providerKey: PrivateKey) throws(CoopClaimError) {
        guard providerKey.publicKey == context.contract.terms.providerPublicKey else { throw .keyMismatch(role: "provider") }
        check = CoopClaimCheck(context: context)
        self.providerKey = providerKey
    }

    public var context: CoopClaimContext { check.context }

    /// Step 1: refuses anything but a claim of this lock with the right preimage.
    public func check(claim transaction: Transaction, preimage: [UInt8]) throws(CoopClaimError) -> CheckedCoopClaim {
        try check.check(claim: transaction, preimage: preimage)
    }

    /// Step 2: the partial signature for `claim` against `clientNonce`. With `record` (the
    /// swap's last `coop_signed`) answering the same nonce and sighash, its answer is
    /// returned as it is and `fromRecord` is true: nothing is signed.
    public func sign(_ claim: CheckedCoopClaim, clientNonce: MuSig2PublicNonce,
                     record: CoopSignedRecord?) throws(CoopClaimError) -> CoopClaimAnswer {
        if let record, record.answers(clientNonce: clientNonce, sighash: claim.sighash) {
            return CoopClaimAnswer(record: record, fromRecord: true)
        }
        let keyAggregation = context.keyAggregation
        let (publicNonce, partialSignature) = try CoopClaimError.wrapping {
            try MuSig2Session.deterministicSign(secretKey: providerKey, aggregateOtherNonce: clientNonce.bytes,
                                                keyAggregation: keyAggregation, message: claim.sighash)
        }
        return CoopClaimAnswer(record: CoopSignedRecord(clientNonce: clientNonce, providerNonce: publicNonce,
                                                        sighash: claim.sighash, partialSignature: partialSignature),
                               fromRecord: false)
    }
}

/// The provider's answer: what goes into `CoopClaimSigned`, and the record to write first.
public struct CoopClaimAnswer: Sendable, Hashable {
    public let record: CoopSignedRecord
    /// True when a replayed request was answered from the record (nothing signed).
    public let fromRecord: Bool

    public var publicNonce: MuSig2PublicNonce { record.providerNonce }
    public var partialSignature: MuSig2PartialSignature { record.partialSignature }
}
