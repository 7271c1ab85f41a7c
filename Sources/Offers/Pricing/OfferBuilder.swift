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

    /// The offer, or `insufficientLiquidity` when the wallet cannot lock even the minimum
    /// (`ProviderTerms.effectiveMinAmountSat`: never below a lock its refund fits in).
    public func offer(requestID: String, offerID: String, liquiditySat: Int64, rate: FeeRate,
                      nowUnix: UInt64, waitingSat: Int64 = 0) throws(OffersError) -> Offer {
        let lockable = lockableAmount(liquiditySat: liquiditySat, rate: rate)
        let maximum = min(terms.maxAmountSat, lockable)
        let minimum = terms.effectiveMinAmountSat
        guard maximum >= minimum else {
            throw .insufficientLiquidity(available: lockable, needed: minimum, waiting: waitingSat)
        }
        return Offer(requestID: requestID, offerID: offerID, providerPubky: provider, network: terms.network.rawValue,
                     directions: [SwapDirection.lightningToOnchain.rawValue], minAmountSat: minimum,
                     maxAmountSat: maximum, baseFeeSat: terms.feeModel.baseFeeSat, feePPM: terms.feeModel.feePPM,
                     onchainFeeSat: terms.onchainFee.onchainFee(at: rate),
                     feeRateSatPerVByte: OnchainFeeEstimate.wholeSatPerVByte(rate), feeRateSatPerKvB: rate.satPerKvB,
                     requiredConfirmations: terms.requiredConfirmations, htlcTimeoutBlocks: terms.htlcTimeoutBlocks,
                     validUntilUnix: nowUnix + terms.offerLifetimeSeconds, features: terms.features)
    }
}
