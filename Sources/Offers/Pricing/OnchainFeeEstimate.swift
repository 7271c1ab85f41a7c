import HTLC

/// The provider's `onchain_fee_sat`: what locking costs it, plus a reserve for the refund
/// it must be able to make if the client never claims.
///
///     onchain_fee_sat = ceil(rate_sat_per_kvB × (lock_vsize + refund_vsize) × safety_percent / 100_000)
///
/// - `lock_vsize` = 154 (`lockVirtualSize`): a wallet spend of one P2TR key-path input to
///   the HTLC output plus a P2TR change output.
/// - `refund_vsize`: `SpendSize.refund` of the largest contract type offered, to a P2TR
///   wallet address.
/// - `safety_percent` (default 125): the rate may rise between the quote and the lock
///   (up to the quote's 300 s plus the Lightning payment), and a refund happens a day or
///   more later at whatever rate then holds.
/// One rounding, up, at the end, so the provider never prices below its cost.
public struct OnchainFeeEstimate: Sendable, Hashable {
    /// Weight of the lock transaction: 4 version + 1 input count + 41 input (36 outpoint,
    /// 1 empty scriptSig length, 4 sequence) + 1 output count + 2 × 43 outputs (8 value,
    /// 1 length, 34 P2TR/P2WSH script) + 4 locktime = 137 bytes × 4 = 548 WU; witness:
    /// 2 marker/flag + 1 item count + 1 length + 64 Schnorr signature = 68 WU. 616 WU,
    /// so 154 vbytes.
    public static let lockVirtualSize = 154
    public static let defaultSafetyPercent: Int64 = 125

    public let contractTypes: [ContractType]
    public let safetyPercent: Int64

    public init(contractTypes: [ContractType] = ContractType.allCases, safetyPercent: Int64 = defaultSafetyPercent) {
        precondition(!contractTypes.isEmpty && safetyPercent >= 100, "a provider offers a contract and prices at cost or above")
        self.contractTypes = contractTypes
        self.safetyPercent = safetyPercent
    }

    /// The refund vsize reserved: the largest of the offered contract types.
    public var refundVirtualSize: Int {
        contractTypes.map { ContractSizes.refundVirtualSize($0, destination: .p2tr) }.max()!
    }

    public func onchainFee(at rate: FeeRate) -> Int64 {
        let weighted = rate.satPerKvB * Int64(Self.lockVirtualSize + refundVirtualSize) * safetyPercent
        return (weighted + 99_999) / 100_000
    }

    /// What locking alone costs at `rate` (what leaves the wallet besides the amount).
    public func lockFee(at rate: FeeRate) -> Int64 {
        rate.fee(forVirtualSize: Self.lockVirtualSize)
    }

    /// The Offer's `fee_rate_sat_vb`: whole sat/vB, rounded up.
    public static func wholeSatPerVByte(_ rate: FeeRate) -> Int64 {
        (rate.satPerKvB + 999) / 1000
    }
}
