/// Which way a swap moves funds. peernode providers run reverse swaps only: the client pays
/// Lightning, the provider locks on-chain.
public enum SwapDirection: String, Sendable, Hashable, CaseIterable {
    case lightningToOnchain = "ln_to_onchain"
}
