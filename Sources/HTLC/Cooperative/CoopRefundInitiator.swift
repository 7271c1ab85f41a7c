import Bitcoin

/// The refunder's side of a cooperative refund of a submarine lock (the client takes its
/// lock back before the timeout, once the provider, which could not pay, agrees): pure
/// steps like `CoopClaimInitiator`'s. The refund is version 2, one input (the lock,
/// nSequence 0xfffffffd: RBF), one output to `request.destination` (the refunder's own
/// wallet address: the engine passes nothing else), nLockTime 0, at `request.feeRate` on
/// the key-path size. The script-path refund at the same rate (`RefundBuilder`, valid
/// after the timeout) is its fallback; the key path saves its 27 extra bytes.
public struct CoopRefundInitiator: ~Copyable {
    private let round: CoopSigningRound
    /// Lock value − fee.
    public let outputValue: Int64
    public let fee: Int64
    /// The key-path refund's size once signed.
    public let virtualSize: Int
    /// The script-path refund's size to the same destination (what the key path saves).
    public let scriptPathVirtualSize: Int

    /// `refundKey` is the contract's refund key. Refused when the output would be below
    /// the destination's dust limit.
    public init(request: RefundRequest, refundKey: PrivateKey) throws(CoopSpendError) {
        let context = try CoopSpendContext(contract: request.contract, lock: request.lock)
        guard refundKey.publicKey == context.contract.terms.refundPublicKey else { throw .keyMismatch(role: "refund") }
        let destination = try CoopSpendError.wrapping { try DestinationType(address: request.destination) }
        let input = TransactionInput(previousOutput: request.lock.outPoint, sequence: TransactionInput.replaceableSequence)
        func refund(paying value: Int64) -> Transaction {
            Transaction(version: 2, inputs: [input],
                        outputs: [TransactionOutput(value: value, scriptPubKey: request.destination.script)], lockTime: 0)
        }
        let virtualSize = CoopSpendContext.keyPathVirtualSize(of: refund(paying: 0))
        let fee = request.feeRate.fee(forVirtualSize: virtualSize)
        let output = request.lock.value - fee
        let dust = DustLimit.threshold(for: destination)
        guard output >= dust else { throw .claim(.amountBelowDust(amount: output, dustLimit: dust)) }
        round = try CoopSigningRound(context: context, kind: .refund, unsignedTransaction: refund(paying: output),
                                     ownKey: refundKey)
        outputValue = output
        self.fee = fee
        self.virtualSize = virtualSize
        scriptPathVirtualSize = SpendSize.refund(contract: request.contract, destination: destination)
    }

    public var context: CoopSpendContext { round.context }
    public var unsignedRefund: Transaction { round.unsignedTransaction }
    public var sighash: [UInt8] { round.sighash }
    public var publicNonce: MuSig2PublicNonce { round.publicNonce }
    /// What the engine records as `coop_refund_requested` before sending the request.
    public var record: CoopRequestedRecord { round.record }

    /// Verifies the co-signer's answer, signs, aggregates, and returns the signed key-path
    /// refund (valid at once: no time lock on the key path).
    public consuming func finish(responderNonce: MuSig2PublicNonce,
                                 partialSignature: MuSig2PartialSignature) throws(CoopSpendError) -> Transaction {
        try round.finish(responderNonce: responderNonce, partialSignature: partialSignature)
    }
}
