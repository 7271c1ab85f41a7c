import Bitcoin

/// The P2WSH contract: one witness script with a claim branch and a refund branch, for
/// wallets without Taproot. Today's layout (`p2wsh_v2`) checks the preimage's size first:
///
///     OP_IF
///         OP_SIZE 32 OP_EQUALVERIFY
///         OP_SHA256 <payment_hash> OP_EQUALVERIFY
///         <claim_pub33> OP_CHECKSIG
///     OP_ELSE
///         <timeout> OP_CHECKLOCKTIMEVERIFY OP_DROP
///         <refund_pub33> OP_CHECKSIG
///     OP_ENDIF
///
/// Reverse swaps put the client's key in the claim branch and the provider's in the refund
/// branch; submarine swaps (`ContractRoles.submarine`) the other way round. The script is
/// the same, and so is the reason for the size check: the claimer reveals the preimage
/// that settles a Lightning payment.
///
/// Claim witness:  [ecdsa_sig, preimage, 0x01, witness_script]
/// Refund witness: [ecdsa_sig, <empty>, witness_script], nLockTime >= timeout
///
/// Why the size check: the provider settles its hold invoice with the preimage the claim
/// reveals, and Lightning only knows 32-byte preimages. Without it (the retired `p2wsh`
/// layout, pubky-swap's script, kept as `.unsized` to refund and recover old locks) the
/// client is the one who picks the payment hash, so it could hash a 33-byte value, claim
/// with that, and keep both the lock and its payment (audit C-1).
///
/// The branch selectors are exactly `0x01` and empty because segwit v0 policy (MINIMALIF)
/// relays nothing else; consensus takes any true or false value, which is why the
/// provider reads claims by what they reveal, not by their shape (`PreimageExtractor`).
public struct P2WSHSwapContract: Sendable, Hashable {
    public enum Layout: Sendable, Hashable {
        /// `p2wsh_v2`: the claim branch starts with `OP_SIZE 32 OP_EQUALVERIFY`.
        case sized
        /// The retired `p2wsh`: no size check. Only for locks that already exist.
        case unsized
    }

    public let terms: SwapTerms
    public let layout: Layout
    public let witnessScript: Script

    public init(terms: SwapTerms, layout: Layout = .sized) {
        self.terms = terms
        self.layout = layout
        let sizeCheck: [Opcode] = layout == .sized ? [.size, .pushNumber(32), .equalVerify] : []
        witnessScript = Script([.if] + sizeCheck + [
                .sha256, .pushData(terms.paymentHash), .equalVerify,
                .pushData(terms.claimPublicKey.compressed), .checkSig,
            .else,
                terms.timeoutPush, .checkLockTimeVerify, .drop,
                .pushData(terms.refundPublicKey.compressed), .checkSig,
            .endIf,
        ])
    }

    /// `OP_0 <SHA256(witness_script)>`.
    public var address: Address { .p2wsh(scriptHash: SHA256.hash(witnessScript.bytes)) }
    public var scriptPubKey: Script { address.script }
}
