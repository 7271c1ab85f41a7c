import Bitcoin

/// The claimer's side of a cooperative claim of a lock: a reverse client claiming to its
/// destination, or a submarine provider claiming to its own wallet. Pure steps (the engine
/// does the I/O; a reverse client decides beforehand with `CoopRevealRule` that the
/// preimage may be revealed):
/// 1. `init`: builds the unsigned key-path claim (one input: the lock; one output: the
///    destination) and its signing round (`CoopSigningRound`: a fresh secret nonce bound to
///    this session); `record` is what the engine writes as `coop_requested` before it
///    sends the request;
/// 2. `finish`: verifies the co-signer's partial signature, signs, aggregates, and returns
///    the claim with its one 64-byte witness element.
///
/// Any refusal means the script-path claim, which stays valid whatever happens here.
public struct CoopClaimInitiator: ~Copyable {
    private let round: CoopSigningRound
    /// The claim's amounts: `outputValue` and `fee` of the key-path claim, `virtualSize`
    /// its size once signed.
    public let plan: ClaimPlan
    /// The script-path claim the lock was priced for, at the same fee rate (the fallback).
    public let scriptPathPlan: ClaimPlan

    /// Builds the claim for `request` (the same request the script-path `ClaimBuilder`
    /// takes, so the fallback is the claim of today); `claimKey` is the contract's claim
    /// key. Fees: the lock carries X plus the script-path fee; a contact payment sends
    /// exactly the script-path output (X) and the saved bytes raise the fee rate; a claim
    /// to the claimer's own address (a swap-out, a provider's claim) pays the key-path fee
    /// at the requested rate and keeps the rest (the saving is the claimer's).
    public init(request: ClaimRequest, claimKey: PrivateKey, policy: ClaimPolicy = .default) throws(CoopSpendError) {
        let context = try CoopSpendContext(contract: request.contract, lock: request.lock)
        guard claimKey.publicKey == context.contract.terms.claimPublicKey else { throw .keyMismatch(role: "claim") }
        let scriptPathPlan = try CoopSpendError.wrapping { try ClaimBuilder(policy: policy).plan(request) }
        let input = TransactionInput(previousOutput: request.lock.outPoint, sequence: TransactionInput.replaceableSequence)
        func claim(paying value: Int64) -> Transaction {
            Transaction(version: 2, inputs: [input],
                        outputs: [TransactionOutput(value: value, scriptPubKey: request.destination.script)], lockTime: 0)
        }
        let virtualSize = CoopSpendContext.keyPathVirtualSize(of: claim(paying: 0))
        let outputValue: Int64
        switch request.purpose {
        case .payContact: outputValue = scriptPathPlan.outputValue
        case .swapOut:
            let keyPathFee = request.feeRate.fee(forVirtualSize: virtualSize)
            outputValue = max(scriptPathPlan.outputValue, request.lock.value - keyPathFee)
        }
        round = try CoopSigningRound(context: context, kind: .claim, unsignedTransaction: claim(paying: outputValue),
                                     ownKey: claimKey)
        self.plan = ClaimPlan(outputValue: outputValue, fee: request.lock.value - outputValue,
                              amountDrop: scriptPathPlan.amountDrop, virtualSize: virtualSize)
        self.scriptPathPlan = scriptPathPlan
    }

    public var context: CoopSpendContext { round.context }
    public var unsignedClaim: Transaction { round.unsignedTransaction }
    /// The key-path sighash of `unsignedClaim`.
    public var sighash: [UInt8] { round.sighash }
    /// The public nonce to send.
    public var publicNonce: MuSig2PublicNonce { round.publicNonce }
    /// What the engine records as `coop_requested` before sending the request.
    public var record: CoopRequestedRecord { round.record }

    /// Verifies the co-signer's answer, signs (using up the secret nonce whatever happens),
    /// aggregates, and returns the signed key-path claim.
    public consuming func finish(responderNonce: MuSig2PublicNonce,
                                 partialSignature: MuSig2PartialSignature) throws(CoopSpendError) -> Transaction {
        try round.finish(responderNonce: responderNonce, partialSignature: partialSignature)
    }
}
