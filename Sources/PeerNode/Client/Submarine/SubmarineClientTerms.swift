import Bitcoin
import Offers
import Transport

/// What an `onchain_to_ln` swap is before the provider answers, fixed when the client
/// commits: the provider it asked, the signed quote's body, the SwapRequest it sent (the
/// invoice and its own refund key), the invoice's payment hash and the network. The
/// machine checks the provider's accept against exactly these, so nothing the provider
/// sends later can change what the client locks or into which contract.
public struct SubmarineClientTerms: Sendable, Equatable {
    public let provider: Pubky
    public let quote: Quote
    public let request: SubmarineSwapRequest
    /// The decoded invoice's payment hash (32 bytes): the contract's hash lock.
    public let invoicePaymentHash: [UInt8]
    public let network: Network

    public init(provider: Pubky, quote: Quote, request: SubmarineSwapRequest, invoicePaymentHash: [UInt8], network: Network) {
        self.provider = provider
        self.quote = quote
        self.request = request
        self.invoicePaymentHash = invoicePaymentHash
        self.network = network
    }

    /// What the client locks, exactly: the quote's `total_sat`.
    public var lockAmountSat: Int64 { quote.totalSat }
}
