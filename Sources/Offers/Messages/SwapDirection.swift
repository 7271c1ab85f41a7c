import HTLC

/// Which way a swap moves funds.
///
/// - `ln_to_onchain` (reverse): the client pays Lightning, the provider locks on chain and
///   the client claims. The only direction of older peers, so an absent `direction` means it.
/// - `onchain_to_ln` (submarine): the client locks on chain, the provider pays the client's
///   invoice once the lock has its confirmations, learns the preimage from that payment
///   and claims the lock with it; the client refunds after the timeout.
public enum SwapDirection: String, Sendable, Hashable, CaseIterable {
    case lightningToOnchain = "ln_to_onchain"
    case onchainToLightning = "onchain_to_ln"

    /// Who holds which key of the contract in this direction.
    public var contractRoles: ContractRoles {
        switch self {
        case .lightningToOnchain: return .reverse
        case .onchainToLightning: return .submarine
        }
    }

    /// Reads an optional `direction` field: absent (an older peer) is `ln_to_onchain`; a
    /// name this build does not know is `unsupportedDirection`.
    static func read(_ fields: FieldReader, key: String = "direction") throws(OffersError) -> SwapDirection {
        guard fields.has(key) else { return .lightningToOnchain }
        guard let direction = SwapDirection(rawValue: try fields.nonEmptyString(key, maxBytes: 64)) else {
            throw .unsupportedDirection
        }
        return direction
    }
}
