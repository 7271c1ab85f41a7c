import Bitcoin
import HTLC

/// Claims an honest client never builds: consensus-valid, so a miner can confirm them, but
/// of a shape the daemon's own `ClaimBuilder` never makes and Core's mempool refuses
/// (audit C-2). Each starts from the library's claim and changes only what the attack needs,
/// so anything else wrong with it would be the library's, not the kit's.
enum ClaimForger {
    /// The annex the Taproot claim carries: 0x50 marks the last witness item as an annex
    /// (BIP341); what follows is free-form and unused by consensus today.
    static let annex: [UInt8] = [0x50, 0x6b, 0x69, 0x74]

    /// The library's claim of `swap`'s lock to the kit's address, signed as usual.
    static func honestClaim(_ swap: OpenSwap, lock: LockOutput, tipHeight: Int) throws(KitError) -> Transaction {
        let request = ClaimRequest(contract: swap.contract, lock: lock, destination: swap.destination, amount: swap.amountSat,
                                   purpose: .payContact, feeRate: swap.claimFeeRate,
                                   blocksLeft: Int(swap.accept.timeoutHeight) - tipHeight)
        do {
            return try ClaimBuilder().build(request, claimKey: swap.claimKey, preimage: swap.preimage).transaction
        } catch {
            throw KitError("the claim cannot be built: \(error)")
        }
    }

    /// The Taproot claim with an annex appended: the signature is made again, because
    /// BIP341's sighash commits to the annex (a claim whose signature did not would be
    /// consensus-invalid and prove nothing).
    static func annexed(_ swap: OpenSwap, lock: LockOutput, tipHeight: Int) throws(KitError) -> Transaction {
        guard case .taprootBoltz(let taproot) = swap.contract else { throw KitError("an annex needs a taproot_boltz lock") }
        var claim = try honestClaim(swap, lock: lock, tipHeight: tipHeight)
        do {
            let sighash = try TaprootSighash(transaction: claim, spentOutputs: [swap.contract.lockOutput(value: lock.value)])
                .hash(inputIndex: 0, hashType: .default, annex: annex, scriptPath: TaprootSighash.ScriptPath(leaf: taproot.claimLeaf))
            let signature = try SchnorrSignature.sign(message: sighash, with: swap.claimKey).bytes
            claim.inputs[0].witness = Witness([signature, swap.preimage, taproot.claimLeaf.script.bytes,
                                               taproot.claimControlBlock.bytes, annex])
        } catch {
            throw KitError("the annexed claim cannot be signed: \(error)")
        }
        return claim
    }

    /// The P2WSH claim with OP_IF selected by 0x02 rather than 0x01: true for the script,
    /// refused by MINIMALIF, which is policy only in segwit v0. BIP143's sighash covers no
    /// witness item, so the library's signature stands.
    static func nonMinimal(_ swap: OpenSwap, lock: LockOutput, tipHeight: Int) throws(KitError) -> Transaction {
        guard case .p2wsh = swap.contract else { throw KitError("a selector needs a p2wsh_v2 lock") }
        var claim = try honestClaim(swap, lock: lock, tipHeight: tipHeight)
        var stack = claim.inputs[0].witness.stack
        // [signature, preimage, selector, witness script], as SpendSigner lays it out.
        guard stack.count == 4, stack[2] == [0x01] else { throw KitError("the library's P2WSH claim has another layout now") }
        stack[2] = [0x02]
        claim.inputs[0].witness = Witness(stack)
        return claim
    }
}
