/// What adding an invoice returns, as LND's `AddInvoiceResponse` and
/// `AddHoldInvoiceResp`.
public struct AddedInvoice: Sendable, Hashable {
    public var paymentRequest: String
    public var paymentHash: [UInt8]
    public var addIndex: UInt64
    public var paymentAddress: [UInt8]
}
