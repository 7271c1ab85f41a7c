import Bitcoin
import HTLC
import Lightning
import Offers
import Transport

/// The parameters of an `onchain_to_ln` swap the seed alone cannot rebuild (the payee's
/// payment hash, the counterparty's key, the timeout), in the submarine engines' own stored
/// shapes, so a saved copy is pasted as it is (`recover --contract`):
///
///     client:   {"role": "client", "swap_index": i, "terms": <SubmarineClientRecord>, "accept": <signed SwapAccept>}
///     provider: {"role": "provider", "swap_index": j, "client": <pubky>,
///                "accept": <our signed SwapAccept>, "quote": <Quote>, "request": <the client's SwapRequest>}
///
/// or built from a contact's `SwapList` answer (`SwapListRecovery`). Nothing here is
/// trusted: the accept must be signed by the provider (by this node itself, for the
/// provider role), answer the quote and the request (`SubmarineAcceptPolicy` without its
/// accept window: the tip has moved on since), its contract is rebuilt and must be the
/// advertised one, and `checkOwnership` requires our own key for the index.
public struct SubmarineRecoveryContract: Sendable {
    public let role: SwapRole
    public let index: UInt32
    public let accept: Signed<SubmarineSwapAccept>
    let quote: Quote
    let request: SubmarineSwapRequest
    public let contract: SwapContract
    /// The counterparty: the provider of a client swap, the client of a provider swap.
    let peer: Pubky
    /// The client's terms as its engine stores them (client role only).
    let clientRecord: SubmarineClientRecord?
    let network: Network

    /// The id the engine gives the swap: the client's `sub-<quote id>`, the provider's quote id.
    public var swapID: String { role == .client ? "sub-" + accept.body.quoteID : accept.body.quoteID }

    /// What the engine stores as the record's contract.
    var recordContract: JSONValue {
        if let clientRecord { return clientRecord.json }
        return SubmarineProviderRecord.contractJSON(accept: accept, quote: quote, request: request)
    }

    /// Whether pasted parameters are a submarine swap's: its accept says `onchain_to_ln`.
    public static func isSubmarine(_ json: JSONValue) -> Bool {
        json["accept"]?["direction"]?.stringValue == SwapDirection.onchainToLightning.rawValue
    }

    /// Reads pasted parameters. `ownPubky` is this node's identity: a provider's accept must
    /// carry its own signature.
    public init(json: JSONValue, network: Network, ownPubky: Pubky) throws(RecoveryError) {
        guard let roleName = json["role"]?.stringValue, let role = SwapRole(rawValue: roleName) else {
            throw .invalidContract("\"role\" must be \"client\" or \"provider\"")
        }
        guard let index = json["swap_index"]?.uint64Value, index < 0x8000_0000 else {
            throw .invalidContract("\"swap_index\" must be an integer below 2^31")
        }
        guard let acceptJSON = json["accept"] else { throw .invalidContract("the signed SwapAccept (\"accept\") is missing") }
        let accept: Signed<SubmarineSwapAccept>
        do { accept = try Signed<SubmarineSwapAccept>(json: acceptJSON) } catch { throw .invalidContract("the accept: \(error)") }
        switch role {
        case .client:
            guard let termsJSON = json["terms"] else { throw .invalidContract("the client swap's \"terms\" are missing") }
            let record: SubmarineClientRecord
            do { record = try SubmarineClientRecord(json: termsJSON) } catch { throw .invalidContract("the terms: \(error)") }
            try self.init(client: record, accept: accept, index: UInt32(index), network: network)
        case .provider:
            guard let client = json["client"]?.stringValue, let clientPubky = try? Pubky(parsing: client) else {
                throw .invalidContract("the provider swap's \"client\" pubky is missing or unreadable")
            }
            guard let quoteJSON = json["quote"], let requestJSON = json["request"] else {
                throw .invalidContract("the provider swap's \"quote\" and \"request\" are missing")
            }
            let quote: Quote
            let request: SubmarineSwapRequest
            do {
                // Stored unsigned by the provider engine; a signed copy reads the same.
                quote = try Quote(json: quoteJSON)
                request = try SubmarineSwapRequest(json: requestJSON)
            } catch {
                throw .invalidContract("the quote or the request: \(error)")
            }
            try self.init(provider: accept, quote: quote, request: request, client: clientPubky, index: UInt32(index),
                          network: network, ownPubky: ownPubky)
        }
    }

    /// A client swap: our terms (the provider they name, its signed quote, the request we
    /// sent) and the provider's accept.
    init(client record: SubmarineClientRecord, accept: Signed<SubmarineSwapAccept>, index: UInt32,
         network: Network) throws(RecoveryError) {
        guard record.network == network else { throw .invalidContract("the terms are for \(record.network.rawValue)") }
        do { try record.quote.verify(by: record.provider.pubky) } catch {
            throw .invalidContract("the quote is not signed by the provider in the terms: \(error)")
        }
        role = .client
        self.index = index
        self.accept = accept
        quote = record.quote.body
        request = record.request
        peer = record.provider.pubky
        clientRecord = record
        self.network = network
        contract = try Self.verified(accept, quote: quote, request: request, signer: record.provider.pubky,
                                     invoiceHash: record.invoicePaymentHash, network: network)
    }

    /// A provider swap: our own signed accept, the quote and the client's request.
    init(provider accept: Signed<SubmarineSwapAccept>, quote: Quote, request: SubmarineSwapRequest, client: Pubky,
         index: UInt32, network: Network, ownPubky: Pubky) throws(RecoveryError) {
        let invoice: SubmarineInvoice
        do { invoice = try SubmarineInvoice(bolt11: request.invoice) } catch {
            throw .invalidContract("the request's invoice does not decode: \(error)")
        }
        guard invoice.network == network else { throw .invalidContract("the invoice is not for \(network.rawValue)") }
        guard invoice.amountMsat == UInt64(clamping: accept.body.amountSat) * 1_000 else {
            throw .invalidContract("the invoice's amount is not the accept's amount_sat")
        }
        role = .provider
        self.index = index
        self.accept = accept
        self.quote = quote
        self.request = request
        peer = client
        clientRecord = nil
        self.network = network
        contract = try Self.verified(accept, quote: quote, request: request, signer: ownPubky,
                                     invoiceHash: invoice.paymentHash, network: network)
    }

    /// The accept checked as the client checked it before locking, but for the accept
    /// window; its contract.
    private static func verified(_ accept: Signed<SubmarineSwapAccept>, quote: Quote, request: SubmarineSwapRequest,
                                 signer: Pubky, invoiceHash: [UInt8], network: Network) throws(RecoveryError) -> SwapContract {
        do {
            return try SubmarineAcceptPolicy().check(accept, quote: quote, request: request, invoicePaymentHash: invoiceHash,
                                                     provider: signer, network: network, tipHeight: nil)
        } catch {
            throw .invalidContract("the accept: \(error)")
        }
    }

    /// Refuses parameters that are not a swap of this seed at this index: the client's
    /// refund key, or the provider's claim key, must be ours. Returns the key scheme that
    /// matched (the re-created record keeps it).
    func checkOwnership(_ keyChain: SwapKeyChain) throws(RecoveryError) -> SwapKeyScheme {
        let body = accept.body
        let role = self.role
        let scheme = try keyChain.scheme(at: index) { secrets in
            role == .client ? body.refundPublicKey == secrets.refundKey.publicKey
                : body.claimPublicKey == secrets.claimKey.publicKey
        }
        if let scheme { return scheme }
        switch role {
        case .client: throw .invalidContract("the accept's refund key is not ours for index \(index)")
        case .provider: throw .invalidContract("the accept's claim key is not ours for index \(index)")
        }
    }
}
