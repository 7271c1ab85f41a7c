import Bitcoin

/// Which spend of a `taproot_boltz` lock two parties sign together through its key path,
/// and so who starts the round and who answers it. The party that spends starts it (a
/// fresh random nonce, held in memory until it signs last); the other one answers with
/// BIP327 DeterministicSign and keeps no nonce at all:
///
/// | kind | reverse (`ln_to_onchain`) | submarine (`onchain_to_ln`) |
/// |---|---|---|
/// | `claim` | the client asks, the provider answers | the provider asks, the client answers |
/// | `refund` | (not offered) | the client asks, the provider answers |
///
/// In key terms: a claim is started by the contract's claim key and answered by its
/// refund key; a refund the other way round.
public enum CoopSpendKind: String, Sendable, Hashable, CaseIterable {
    case claim
    case refund

    /// The key of the party that starts the round (and spends).
    public func initiatorKey(of terms: SwapTerms) -> PublicKey {
        self == .claim ? terms.claimPublicKey : terms.refundPublicKey
    }

    /// The key of the party that co-signs deterministically.
    public func responderKey(of terms: SwapTerms) -> PublicKey {
        self == .claim ? terms.refundPublicKey : terms.claimPublicKey
    }

    /// How the initiator's key is named in the contract ("claim" or "refund"), for errors.
    var initiatorRole: String { self == .claim ? "claim" : "refund" }
    var responderRole: String { self == .claim ? "refund" : "claim" }
}
