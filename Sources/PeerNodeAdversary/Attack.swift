import HTLC

/// The scripted misbehaviours, by their command-line name. Each names the contract it asks
/// the provider for, because the attack only makes sense against that contract's script.
enum Attack: String, CaseIterable {
    /// A SwapRequest for the retired `p2wsh` layout (audit C-1): must be refused.
    case retiredP2WSH = "retired-p2wsh"
    /// A Taproot claim with an annex, mined out of band (audit C-2).
    case annexClaim = "annex-claim"
    /// A `p2wsh_v2` claim selecting OP_IF with 0x02 instead of 0x01, mined out of band (C-2).
    case nonminimalClaim = "nonminimal-claim"
    /// No claim; the real preimage pushed once the provider's refund is out (audit H-2).
    case pushAfterRefund = "push-after-refund"

    var contractType: ContractType {
        switch self {
        case .retiredP2WSH: return .p2wshUnsized
        case .annexClaim, .pushAfterRefund: return .taprootBoltz
        case .nonminimalClaim: return .p2wsh
        }
    }

    /// Whether the script goes as far as paying the hold invoice.
    var pays: Bool { self != .retiredP2WSH }

    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
