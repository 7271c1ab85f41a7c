import HTLC
import Transport

/// Makes the provider's Offer from its terms and what holds right now: spendable
/// liquidity and the fee rate. Pure; the caller reads the wallet and the estimator.
public struct OfferBuilder: Sendable {
    public let terms: ProviderTerms
    public let provider: Pubky

    public init(terms: ProviderTerms, provider: Pubky) {
        self.terms = terms
        self.provider = provider
    }

    /// The largest amount the wallet can lock now: its spendable balance minus the
    /// on-chain fee the swap charges (the lock fee is paid from the same balance, and the
    /// refund reserve must stay affordable).
    public func lockableAmount(liquiditySat: Int64, rate: FeeRate) -> Int64 {
        max(0, liquiditySat - terms.onchainFee.onchainFee(at: rate))
    }

    /// The offer, or `insufficientLiquidity` when the provider can run no direction now:
    /// its wallet cannot lock even the `ln_to_onchain` minimum
    /// (`ProviderTerms.effectiveMinAmountSat`: never below a lock its refund fits in) and,
    /// when it runs `onchain_to_ln`, its Lightning balance (`lightningOutboundSat`) cannot
    /// pay that direction's minimum either. Each direction's maximum is what the provider
    /// can put up now: a lock from the wallet, or a payment from the channels with the
    /// routing reserve on top.
    public func offer(requestID: String, offerID: String, liquiditySat: Int64, rate: FeeRate,
                      nowUnix: UInt64, waitingSat: Int64 = 0, lightningOutboundSat: Int64? = nil) throws(OffersError) -> Offer {
        let lockable = lockableAmount(liquiditySat: liquiditySat, rate: rate)
        let maximum = min(terms.maxAmountSat, lockable)
        let minimum = terms.effectiveMinAmountSat
        let reverse = maximum >= minimum
            ? DirectionTerms(direction: .lightningToOnchain, minAmountSat: minimum, maxAmountSat: maximum,
                             baseFeeSat: terms.feeModel.baseFeeSat, feePPM: terms.feeModel.feePPM,
                             onchainFeeSat: terms.onchainFee.onchainFee(at: rate),
                             requiredConfirmations: terms.requiredConfirmations, htlcTimeoutBlocks: terms.htlcTimeoutBlocks)
            : nil
        let submarine = submarineTerms(rate: rate, lightningOutboundSat: lightningOutboundSat)
        guard let top = reverse ?? submarine else {
            throw .insufficientLiquidity(available: lockable, needed: minimum, waiting: waitingSat)
        }
        let listed = [reverse, submarine].compactMap { $0 }
        // Older providers sent no `direction_terms`; one running only `ln_to_onchain` still
        // sends none, so its offers stay byte for byte what they were.
        return Offer(requestID: requestID, offerID: offerID, providerPubky: provider, network: terms.network.rawValue,
                     directions: listed.map(\.direction.rawValue), minAmountSat: top.minAmountSat,
                     maxAmountSat: top.maxAmountSat, baseFeeSat: top.baseFeeSat, feePPM: top.feePPM,
                     onchainFeeSat: top.onchainFeeSat,
                     feeRateSatPerVByte: OnchainFeeEstimate.wholeSatPerVByte(rate), feeRateSatPerKvB: rate.satPerKvB,
                     requiredConfirmations: top.requiredConfirmations, htlcTimeoutBlocks: top.htlcTimeoutBlocks,
                     validUntilUnix: nowUnix + terms.offerLifetimeSeconds, features: terms.features,
                     directionTerms: submarine == nil ? [] : listed)
    }

    /// The `onchain_to_ln` entry, or nil when the provider does not run it, did not read
    /// its Lightning balance, or cannot pay the minimum from it now.
    func submarineTerms(rate: FeeRate, lightningOutboundSat: Int64?) -> DirectionTerms? {
        guard let submarine = terms.submarine, let lightningOutboundSat else { return nil }
        let maximum = min(submarine.maxAmountSat, submarine.payableAmount(outboundSat: lightningOutboundSat))
        guard maximum >= submarine.minAmountSat else { return nil }
        return DirectionTerms(direction: .onchainToLightning, minAmountSat: submarine.minAmountSat, maxAmountSat: maximum,
                              baseFeeSat: submarine.feeModel.baseFeeSat, feePPM: submarine.feeModel.feePPM,
                              onchainFeeSat: terms.submarineFee.onchainFee(at: rate),
                              requiredConfirmations: submarine.requiredConfirmations,
                              htlcTimeoutBlocks: submarine.htlcTimeoutBlocks)
    }

    /// What the provider can put up now for a quote in `direction`: a lock from the wallet,
    /// or an invoice payment from its channels (0 when it did not read them).
    public func available(_ direction: SwapDirection, state: ProviderState) -> Int64 {
        switch direction {
        case .lightningToOnchain:
            return lockableAmount(liquiditySat: state.liquiditySat, rate: state.feeRate)
        case .onchainToLightning:
            guard let submarine = terms.submarine, let outbound = state.lightningOutboundSat else { return 0 }
            return submarine.payableAmount(outboundSat: outbound)
        }
    }
}
