import Bitcoin

/// What the provider's `onchain_to_ln` checks read from the BOLT11 invoice a client asks it
/// to pay, as plain values: the Lightning module decodes (and verifies the signature of)
/// the invoice; this module does not parse invoices.
public struct SubmarineInvoice: Sendable, Hashable {
    /// The network of the invoice's currency prefix (`lnbcrt` is regtest).
    public let network: Network
    public let paymentHash: [UInt8]
    /// Nil for an invoice without an amount, which a swap never pays.
    public let amountMsat: UInt64?
    /// The payee's node key (stated, or recovered from the signature).
    public let payeeNodeID: PublicKey
    /// `timestamp + expiry` (BOLT11's default expiry is 3600 s).
    public let expiresAtUnix: UInt64
    /// The final hop's CLTV delta (`min_final_cltv_expiry`, BOLT11's default 18).
    public let minFinalCLTVExpiry: Int

    public init(network: Network, paymentHash: [UInt8], amountMsat: UInt64?, payeeNodeID: PublicKey,
                expiresAtUnix: UInt64, minFinalCLTVExpiry: Int) {
        self.network = network
        self.paymentHash = paymentHash
        self.amountMsat = amountMsat
        self.payeeNodeID = payeeNodeID
        self.expiresAtUnix = expiresAtUnix
        self.minFinalCLTVExpiry = minFinalCLTVExpiry
    }
}
