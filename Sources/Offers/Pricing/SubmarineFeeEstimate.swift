import HTLC

/// The provider's `onchain_fee_sat` in the `onchain_to_ln` direction: its claim of the
/// client's lock, the only on-chain transaction it pays for (the client funds the lock
/// and, if it comes to that, its own refund).
///
///     onchain_fee_sat = ceil(rate_sat_per_kvB × claim_vsize × safety_percent / 100_000)
///
/// - `claim_vsize`: `SpendSize.claim` of the largest contract type offered, to a P2TR
///   wallet address: 152 for both `taproot_boltz` and `p2wsh_v2` (the submarine contracts
///   are the reverse ones with the keys swapped, `docs/HTLC.md`).
/// - `safety_percent` (default 125, as the reverse direction's): the rate may rise between
///   the quote and the claim, which waits for the lock's confirmations and the payment.
/// One rounding, up, so the provider never prices below its cost.
public struct SubmarineFeeEstimate: Sendable, Hashable {
    public let contractTypes: [ContractType]
    public let safetyPercent: Int64

    public init(contractTypes: [ContractType] = ContractType.allCases,
                safetyPercent: Int64 = OnchainFeeEstimate.defaultSafetyPercent) {
        precondition(!contractTypes.isEmpty && safetyPercent >= 100, "a provider offers a contract and prices at cost or above")
        self.contractTypes = contractTypes
        self.safetyPercent = safetyPercent
    }

    /// The claim vsize priced: the largest of the offered contract types, to P2TR.
    public var claimVirtualSize: Int {
        contractTypes.map { ContractSizes.claimVirtualSize($0, destination: .p2tr) }.max()!
    }

    public func onchainFee(at rate: FeeRate) -> Int64 {
        let weighted = rate.satPerKvB * Int64(claimVirtualSize) * safetyPercent
        return (weighted + 99_999) / 100_000
    }
}
