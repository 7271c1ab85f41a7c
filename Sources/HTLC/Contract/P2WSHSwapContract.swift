import Bitcoin

/// The `p2wsh` contract: one witness script with a claim branch and a refund branch, for
/// wallets without Taproot (the layout of pubky-swap's `build_htlc_script`).
///
///     OP_IF
///         OP_SHA256 <payment_hash> OP_EQUALVERIFY
///         <client_claim_pub33> OP_CHECKSIG
///     OP_ELSE
///         <timeout> OP_CHECKLOCKTIMEVERIFY OP_DROP
///         <provider_refund_pub33> OP_CHECKSIG
///     OP_ENDIF
///
/// Claim witness:  [ecdsa_sig, preimage, 0x01, witness_script]
/// Refund witness: [ecdsa_sig, <empty>, witness_script], nLockTime >= timeout
///
/// The branch selectors are exactly `0x01` and empty because segwit v0 policy (MINIMALIF)
/// relays nothing else. Unlike the Taproot claim leaf this script does not check the
/// preimage's size: a 33-byte value whose SHA-256 equalled the payment hash would pass
/// (finding one means breaking SHA-256, and the client makes the hash from its own
/// 32-byte preimage; the claim builder refuses any other length).
public struct P2WSHSwapContract: Sendable, Hashable {
    public let terms: SwapTerms
    public let witnessScript: Script

    public init(terms: SwapTerms) {
        self.terms = terms
        witnessScript = Script([
            .if,
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
