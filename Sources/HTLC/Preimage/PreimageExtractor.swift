import Bitcoin

/// Reads the preimage a claim revealed on chain, so the provider can settle its hold invoice
/// (or a recovering client can see that its claim went through).
///
/// Every preimage returned hashes to the payment hash: a value that does not is never
/// handed to the Lightning side.
public enum PreimageExtractor {
    /// The preimage from the input of `transaction` that spends `lock`.
    public static func preimage(from transaction: Transaction, spending lock: OutPoint,
                                contract: SwapContract) throws -> [UInt8] {
        guard let input = transaction.inputs.first(where: { $0.previousOutput == lock }) else {
            throw HTLCError.lockNotSpent
        }
        return try preimage(from: input.witness, contract: contract)
    }

    /// The preimage from a claim witness of `contract`, after checking the witness has the
    /// claim's shape: `[sig, preimage, claim_leaf, control_block]` (Taproot) or
    /// `[sig, preimage, 0x01, witness_script]` (P2WSH). A refund witness is refused with
    /// `witnessIsRefund`.
    public static func preimage(from witness: Witness, contract: SwapContract) throws -> [UInt8] {
        let stack = witness.stack
        let candidate: [UInt8]
        switch contract {
        case .taprootBoltz(let taproot):
            if stack.count == 3, stack[1] == taproot.refundLeaf.script.bytes { throw HTLCError.witnessIsRefund }
            guard stack.count == 4, stack[2] == taproot.claimLeaf.script.bytes else { throw HTLCError.noPreimageInWitness }
            candidate = stack[1]
        case .p2wsh(let p2wsh):
            let script = p2wsh.witnessScript.bytes
            if stack.count == 3, stack[1].isEmpty, stack[2] == script { throw HTLCError.witnessIsRefund }
            guard stack.count == 4, stack[2] == [0x01], stack[3] == script else { throw HTLCError.noPreimageInWitness }
            candidate = stack[1]
        }
        guard candidate.count == 32 else { throw HTLCError.invalidPreimageLength(candidate.count) }
        guard SHA256.hash(candidate) == contract.terms.paymentHash else { throw HTLCError.preimageMismatch }
        return candidate
    }

    /// Shape-free search: the first witness item that hashes to `paymentHash`. Reads claims
    /// of contracts this module did not build (other Boltz script versions, P2SH-wrapped
    /// spends), as Boltz's own preimage detector does.
    public static func preimage(in witness: Witness, paymentHash: [UInt8]) throws -> [UInt8] {
        guard paymentHash.count == 32 else { throw HTLCError.invalidPaymentHash(byteCount: paymentHash.count) }
        guard let item = witness.stack.first(where: { $0.count == 32 && SHA256.hash($0) == paymentHash }) else {
            throw HTLCError.noPreimageInWitness
        }
        return item
    }
}
