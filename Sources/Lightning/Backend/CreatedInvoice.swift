/// A plain invoice the node just made (LND's `AddInvoiceResponse`): what a payee hands
/// its payer, and the hash it later looks the invoice up by.
public struct CreatedInvoice: Sendable, Hashable {
    /// The BOLT11 payment request, signed by the node.
    public var paymentRequest: String
    /// SHA-256 of the preimage the node chose and keeps until the invoice is paid.
    public var paymentHash: [UInt8]
    /// LND's `add_index`: 1, 2, ... per node, for `SubscribeInvoices` resumption.
    public var addIndex: UInt64
    /// The payment secret written in the request (`s`, LND's `payment_addr`).
    public var paymentAddress: [UInt8]

    public init(paymentRequest: String, paymentHash: [UInt8], addIndex: UInt64, paymentAddress: [UInt8]) {
        self.paymentRequest = paymentRequest
        self.paymentHash = paymentHash
        self.addIndex = addIndex
        self.paymentAddress = paymentAddress
    }
}
