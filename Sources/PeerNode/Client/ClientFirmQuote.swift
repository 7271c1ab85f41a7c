import Bitcoin
import HTLC
import Offers

/// A provider's signed quote the client holds before committing to it: what `peernode
/// quote` fetches and `pay --quote <id>` commits. The provider keeps it for its quote
/// lifetime (300 s by default) and takes it once; after that it answers `quote_expired`.
public struct ClientFirmQuote: Sendable {
    public let contact: Offers.Contact
    public let offer: Offer
    public let signed: Signed<Quote>
    /// The quote, checked against the request and the offer when it arrived.
    public let quote: Quote
    public let contractType: ContractType
    /// The claim size the fee was priced for; the destination paid must be of this type.
    public let destinationType: DestinationType
    /// X: what the destination receives.
    public let amountSat: Int64
    public let claimFeeSat: Int64
    public let claimFeeRate: FeeRate

    public var quoteID: String { quote.quoteID }
}
