import HTLC
import Offers

/// What the provider's submarine machine knows about a swap besides its state: fixed when
/// the swap is accepted (the signed `SwapAccept` and the checked invoice).
public struct SubmarineProviderContext: Sendable, Hashable {
    /// The accepted contract (roles `.submarine`: the provider claims, the client refunds).
    public let contract: SwapContract
    /// The accept's `total_sat`: what the lock must pay the contract, exactly.
    public let lockTotalSat: Int64
    /// The offer's confirmations for this direction, never below 1: Bitcoin Core v31 relays
    /// full RBF, so an unconfirmed lock can be double-spent after the provider paid.
    public let requiredConfirmations: Int
    /// The invoice the provider pays (checked by `SubmarineRules` at SwapRequest).
    public let invoice: SubmarineInvoice
    /// When to bump the claim (the reverse client's claim policy, now the provider's).
    public let claimPolicy: ClaimPolicy
    /// Whether the claim and a refund may take the key path together with the client: the
    /// provider offers `musig2`, the client's SwapRequest listed it, the contract is
    /// `taproot_boltz`. Off, the provider never asks the client nor offers it anything.
    public let cooperative: Bool
    /// The last height at which a swap with no lock seen yet still waits for one: the
    /// accept's height plus `SubmarineRules.lockWaitBlocks`; nil: none (only the CLTV bound).
    public let lockDeadlineHeight: UInt32?

    public init(contract: SwapContract, lockTotalSat: Int64, requiredConfirmations: Int, invoice: SubmarineInvoice,
                claimPolicy: ClaimPolicy = .default, cooperative: Bool = false, lockDeadlineHeight: UInt32? = nil) {
        self.contract = contract
        self.lockTotalSat = lockTotalSat
        self.requiredConfirmations = max(1, requiredConfirmations)
        self.invoice = invoice
        self.claimPolicy = claimPolicy
        self.cooperative = cooperative && contract.type == .taprootBoltz
        self.lockDeadlineHeight = lockDeadlineHeight
    }

    public var paymentHash: [UInt8] { contract.terms.paymentHash }
    public var timeoutHeight: UInt32 { contract.terms.timeoutHeight }
}
