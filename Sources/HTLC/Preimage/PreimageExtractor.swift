import Bitcoin

/// Reads what a spend of a swap's lock means for the provider: its own refund, or a claim
/// and the preimage it revealed (so it can settle its hold invoice; a recovering client
/// sees that its claim went through).
///
/// A claim is recognised by what it reveals, not by its shape (audit C-2). Consensus lets
/// a spender add an annex to a Taproot witness or pick any true value as a P2WSH branch
/// selector; a miner that takes non-standard transactions mines such a claim, and a
/// provider that only knew our builder's exact shape would never settle. So: a spend
/// through the refund path (only the refund key signs it) is ours; any other spend is a
/// claim, and every witness item is searched for the 32-byte preimage of the payment hash.
/// A claim that reveals none (impossible for the offered scripts, which check the size)
/// is `unreadableClaim`: the engine raises an alarm rather than ignoring it.
///
/// Every preimage returned hashes to the payment hash: a value that does not is never
/// handed to the Lightning side.
public enum PreimageExtractor {
    /// What one input's spend of the lock is.
    public enum Spend: Sendable, Hashable {
        /// Through the refund path: the provider's own refund.
        case refund
        /// Through any other path, revealing this preimage of the payment hash.
        case claim(preimage: [UInt8])
        /// Not a refund, and no witness item is a preimage of the payment hash.
        case unreadableClaim
    }

    /// The preimage from the input of `transaction` that spends `lock`.
    public static func preimage(from transaction: Transaction, spending lock: OutPoint,
                                contract: SwapContract) throws -> [UInt8] {
        guard let input = transaction.inputs.first(where: { $0.previousOutput == lock }) else {
            throw HTLCError.lockNotSpent
        }
        return try preimage(from: input.witness, contract: contract)
    }

    /// The preimage from a spend of `contract`: `witnessIsRefund` for the refund path,
    /// `noPreimageInWitness` for a claim that reveals none.
    public static func preimage(from witness: Witness, contract: SwapContract) throws -> [UInt8] {
        switch spend(witness, contract: contract) {
        case .refund: throw HTLCError.witnessIsRefund
        case .claim(let preimage): return preimage
        case .unreadableClaim: throw HTLCError.noPreimageInWitness
        }
    }

    /// Tells a refund from a claim by the path the witness takes, then searches a claim for
    /// its preimage.
    public static func spend(_ witness: Witness, contract: SwapContract) -> Spend {
        let stack = items(of: witness, contract: contract)
        if isRefundPath(stack, contract: contract) { return .refund }
        guard let found = stack.first(where: { $0.count == 32 && SHA256.hash($0) == contract.terms.paymentHash }) else {
            return .unreadableClaim
        }
        return .claim(preimage: found)
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

    /// The witness items the script sees: for Taproot, without the annex (BIP341: with two
    /// or more items, a last one starting 0x50 is the annex, never script input).
    static func items(of witness: Witness, contract: SwapContract) -> [[UInt8]] {
        var stack = witness.stack
        if case .taprootBoltz = contract, stack.count >= 2, stack.last?.first == 0x50 { stack.removeLast() }
        return stack
    }

    private static func isRefundPath(_ stack: [[UInt8]], contract: SwapContract) -> Bool {
        switch contract {
        case .taprootBoltz(let taproot):
            // Script path: [inputs..., leaf script, control block].
            return stack.count >= 2 && stack[stack.count - 2] == taproot.refundLeaf.script.bytes
        case .p2wsh(let p2wsh):
            // [inputs..., selector, witness script]: a false selector takes OP_ELSE.
            guard stack.count >= 2, stack[stack.count - 1] == p2wsh.witnessScript.bytes else { return false }
            return !ScriptBool.isTrue(stack[stack.count - 2])
        }
    }
}
