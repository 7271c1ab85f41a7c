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
    /// Idle TCP connections from one host, re-opened as the provider closes them (issue 22).
    case slotChurn = "slot-churn"
    /// Authenticated connections sending an OfferRequest every 20 s, re-dialled when closed.
    case slotHolders = "slot-holders"
    /// `--count` QuoteRequests from one identity, `--in-flight` at once.
    case quoteFlood = "quote-flood"
    /// PreimagePushes for unknown swaps whose ids carry a newline and a fake log line.
    case pushFlood = "push-flood"
    /// EndpointsRequests from ever-new identities: fresh addresses for the wallet to keep.
    case addressFlood = "address-flood"
    /// Complete handshakes closed at once: the provider's CPU per handshake.
    case handshakeFlood = "handshake-flood"
    /// Not an attack: an honest contact's connect-and-quote latency, measured repeatedly.
    case probe

    var contractType: ContractType {
        switch self {
        case .retiredP2WSH: return .p2wshUnsized
        case .annexClaim, .pushAfterRefund: return .taprootBoltz
        case .nonminimalClaim: return .p2wsh
        case .slotChurn, .slotHolders, .quoteFlood, .pushFlood, .addressFlood, .handshakeFlood, .probe: return .taprootBoltz
        }
    }

    /// The floods (`Flood`): bounded in time, no chain, no Lightning, no swap.
    var isFlood: Bool {
        switch self {
        case .slotChurn, .slotHolders, .quoteFlood, .pushFlood, .addressFlood, .handshakeFlood, .probe: return true
        case .retiredP2WSH, .annexClaim, .nonminimalClaim, .pushAfterRefund: return false
        }
    }

    /// Whether the script goes as far as paying the hold invoice.
    var pays: Bool { self != .retiredP2WSH && !isFlood }

    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
