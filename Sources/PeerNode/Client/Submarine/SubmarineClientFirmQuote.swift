import HTLC
import Lightning
import Offers

/// A checked `onchain_to_ln` quote for one invoice, not yet committed: the provider, its
/// offer and signed quote, the decoded invoice and the contract type to ask for.
public struct SubmarineClientFirmQuote: Sendable {
    public let contact: Offers.Contact
    public let offer: Offer
    public let signed: Signed<Quote>
    public let invoice: Invoice
    public let contractType: ContractType
    /// The invoice is this node's own (`swap-in`).
    public let ownInvoice: Bool

    public var quote: Quote { signed.body }
    public var quoteID: String { signed.body.quoteID }
    /// The invoice amount in whole sats (the quote's `amount_sat`).
    public var amountSat: Int64 { signed.body.amountSat }
}
