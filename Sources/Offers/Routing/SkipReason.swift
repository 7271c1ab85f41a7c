import HTLC

/// Why a contact is not a route, for the router's debug list. Reasons never quote what
/// the peer sent (a Reject's own reason text is left out; its code is ours to name).
public enum SkipReason: Error, Sendable, Equatable, CustomStringConvertible {
    /// Connecting or the handshake failed.
    case unreachable(String)
    /// No answer within the per-contact time (`milliseconds`).
    case timedOut(milliseconds: UInt64)
    /// Gave no answer in time `secondsAgo`, so it is not asked again until `holdSeconds`
    /// have passed (a refresh asks it).
    case timedOutLately(secondsAgo: UInt64, holdSeconds: UInt64)
    /// The overall probing deadline passed before this contact answered (or was asked).
    case overallDeadline
    /// Runs no provider: answered with something other than an offer.
    case notAProvider(String)
    /// Answered with a Reject.
    case rejected(RejectCode)
    /// The offer is malformed, or not properly signed by the contact.
    case invalidOffer(String)
    case otherNetwork(String)
    case incompatibleVersion(Int64)
    case offerExpired
    /// The amount to pay is outside what the offer allows. All three are amounts the payer
    /// types (X): the offer's lock range less the claim fee the lock also carries, so the
    /// message never names a lock amount the user never saw.
    case amountOutOfRange(amountSat: Int64, minimumSat: Int64, maximumSat: Int64)
    /// The payer's own claim would pay more fee than its claim policy allows (by default
    /// 20 % of the lock): the lock could never be claimed, so the swap is not started.
    case claimFeeAboveCap(feeSat: Int64, capSat: Int64)
    /// The payer asked for a contract type the offer does not list.
    case contractTypeNotOffered(wanted: ContractType, offered: [ContractType])
    /// The offer lists only retired contract types (an old provider's `p2wsh`).
    case onlyRetiredContracts
    /// The offer does not run this direction (a reverse-only provider asked for a
    /// submarine swap, or the other way round).
    case directionNotOffered(SwapDirection)
    /// `onchain_to_ln`: X is outside the invoice amounts the offer pays (its terms are
    /// invoice amounts, so these are the amounts the payer types).
    case invoiceAmountOutOfRange(amountSat: Int64, minimumSat: Int64, maximumSat: Int64)
    /// The swap would take more from `source` than it holds.
    case balanceTooSmall(source: RailSource, neededSat: Int64, balanceSat: Int64)
    /// The provider's fee is above what this node's `QuotePolicy` accepts: its quote would
    /// be refused, so the route is not chosen.
    /// `maxFeePPM` of `ofSat` (the amount the policy bounds the fee on) is the maximum.
    case feeAboveMaximum(feeSat: Int64, maximumSat: Int64, maxFeePPM: Int64, ofSat: Int64)
    /// Every fee of the route together is above the payer's `--max-fee`.
    case aboveMaxFee(feeSat: Int64, capSat: Int64)
    /// `private_discovery=1`: the contact publishes no capability descriptor (why), so it
    /// is not probed.
    case noDescriptor(String)
    /// Ranked from its descriptor, its signed offer costs more than the descriptor said:
    /// the quote would not honour what ranked it.
    case descriptorNotHonoured(advertisedSat: Int64, offeredSat: Int64)

    /// The contact said it runs no provider, as an answer (not a failure to answer): it is
    /// not asked again for a while (`Router.Settings.noProviderHoldSeconds`).
    public var saysNoProvider: Bool {
        switch self {
        case .notAProvider, .rejected(.notFound): return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .unreachable(let why): return "unreachable: \(why)"
        case .timedOut(let milliseconds): return "no answer within \(milliseconds) ms"
        case .timedOutLately(let secondsAgo, let hold):
            return "gave no answer in time \(secondsAgo) s ago; not asked again for \(hold) s after that"
        case .overallDeadline: return "not done before the overall probing deadline"
        case .notAProvider(let why): return "runs no provider: \(why)"
        // A node without a provider answers OfferRequest with not_found.
        case .rejected(.notFound): return "runs no provider (it answered not_found)"
        case .rejected(let code): return "refused with \(code)"
        case .invalidOffer(let why): return "invalid offer: \(why)"
        case .otherNetwork(let network): return "offers swaps on another network (\(network))"
        case .incompatibleVersion(let version): return "speaks protocol version \(version), not \(ProtocolVersion.supported)"
        case .offerExpired: return "its offer has expired"
        case .amountOutOfRange(let amount, let minimum, let maximum):
            if maximum < minimum { return "its offer allows no payment now (it can lock no more than the claim needs)" }
            if amount < minimum {
                return "the smallest payment its offer allows is \(OffersError.sats(minimum)) (not \(OffersError.sats(amount)))"
            }
            return "the largest payment its offer allows is \(OffersError.sats(maximum)) (not \(OffersError.sats(amount)))"
        case .claimFeeAboveCap(let fee, let cap):
            return "the claim fee of \(fee) sat is above the cap of \(cap) sat for this amount at the current fee rate"
        case .contractTypeNotOffered(let wanted, let offered):
            let list = offered.isEmpty ? "only retired types" : offered.map(\.rawValue).joined(separator: ", ")
            return "offers no \(wanted.rawValue) contract (it offers \(list))"
        case .onlyRetiredContracts:
            return "offers only retired contract types (p2wsh, which does not check the preimage's size); it needs an upgrade"
        case .directionNotOffered(let direction):
            return direction == .onchainToLightning ? "offers no on-chain-to-Lightning swaps" : "offers no Lightning-to-on-chain swaps"
        case .invoiceAmountOutOfRange(let amount, let minimum, let maximum):
            if maximum < minimum { return "its offer pays no Lightning invoice now (its maximum is below its minimum)" }
            if amount < minimum {
                return "the smallest invoice its offer pays is \(OffersError.sats(minimum)) (not \(OffersError.sats(amount)))"
            }
            return "the largest invoice its offer pays is \(OffersError.sats(maximum)) (not \(OffersError.sats(amount)))"
        case .balanceTooSmall(let source, let needed, let balance):
            return "needs \(OffersError.sats(needed)) of \(source.balanceName), which \(source == .savings ? "hold" : "holds") \(OffersError.sats(balance))"
        case .feeAboveMaximum(let fee, let maximum, let ppm, let base):
            let tenths = ppm / 1_000
            let percent = tenths % 10 == 0 ? "\(tenths / 10)%" : "\(tenths / 10).\(tenths % 10)%"
            return "charges \(OffersError.sats(fee)) in fees, above this node's maximum of \(OffersError.sats(maximum)) "
                + "(\(percent) of \(OffersError.sats(base)))"
        case .aboveMaxFee(let fee, let cap):
            return "its fees come to \(OffersError.sats(fee)), above --max-fee \(OffersError.sats(cap))"
        case .noDescriptor(let why): return "\(why), and private_discovery=1 forbids probing it"
        case .descriptorNotHonoured(let advertised, let offered):
            return "its offer does not honour its published descriptor (fees \(OffersError.sats(offered)), "
                + "\(OffersError.sats(advertised)) advertised)"
        }
    }
}
