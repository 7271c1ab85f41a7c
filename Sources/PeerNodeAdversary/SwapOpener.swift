import Bitcoin
import HTLC
import Lightning
import Offers
import Transport

/// The honest first half of every attack: an offer, a quote for X plus the claim fee, and a
/// SwapRequest, each checked with the library's own policies (`QuotePolicy`,
/// `AcceptPolicy`), so the provider has no reason to suspect the kit until it cheats.
struct SwapOpener {
    let session: ProviderSession
    let chain: KitChain
    let provider: Pubky
    let network: Network
    let log: @Sendable (String) -> Void

    /// The provider's signed offer, verified and for our network.
    func offer() async throws(KitError) -> Offer {
        let request = OfferRequest(requestID: RandomID.make(), network: network.rawValue)
        let offer: Signed<Offer>
        switch try await session.request(request.encoded, id: request.requestID) {
        case .offer(let signed): offer = signed
        case .reject(let reject): throw KitError("the provider refused an OfferRequest: \(reject.code.rawValue): \(reject.reason)")
        default: throw KitError("the provider answered an OfferRequest with something else")
        }
        do { try offer.verify(by: provider) } catch { throw KitError("the offer is not signed by the provider: \(error)") }
        guard offer.body.network == network.rawValue else {
            throw KitError("the provider runs on \(offer.body.network), not \(network.rawValue)")
        }
        return offer.body
    }

    /// A quote locking X plus a claim fee priced now for a P2WPKH claim of `type`.
    func quote(_ offer: Offer, amountSat: Int64, type: ContractType) async throws(KitError) -> (Quote, FeeRate) {
        let rate = try await chain.feeRate()
        let claimFee = ContractSizes.claimFee(type, destination: .p2wpkh, rate: rate)
        let request = QuoteRequest(requestID: RandomID.make(), offerID: offer.offerID, amountSat: amountSat + claimFee)
        let signed: Signed<Quote>
        switch try await session.request(request.encoded, id: request.requestID) {
        case .quote(let quote): signed = quote
        case .reject(let reject): throw KitError("the provider refused the QuoteRequest: \(reject.code.rawValue): \(reject.reason)")
        default: throw KitError("the provider answered a QuoteRequest with something else")
        }
        do {
            let quote = try QuotePolicy().check(signed, answering: request, provider: provider, offer: offer,
                                                nowUnix: SystemClock().nowUnix)
            log("quote \(quote.quoteID): \(quote.totalSat) sat for \(quote.amountSat) sat locked")
            return (quote, rate)
        } catch {
            throw KitError("the quote fails the client's checks: \(error)")
        }
    }

    /// Sends the SwapRequest for `type` with fresh secrets; the provider's answer as it
    /// came (an accept or a Reject) and the request it answers.
    func request(_ quote: Quote, type: ContractType, preimage: [UInt8],
                 claimKey: PrivateKey) async throws(KitError) -> (SwapMessage, SwapRequest) {
        let request = SwapRequest(requestID: RandomID.make(), quoteID: quote.quoteID, paymentHash: SHA256.hash(preimage),
                                  claimPublicKey: claimKey.publicKey, scriptType: type)
        log("SwapRequest for \(type.rawValue) on quote \(quote.quoteID)")
        return (try await session.request(request.encoded, id: request.requestID), request)
    }

    /// Checks an accept as the daemon's client does before paying, and returns the swap.
    func open(_ signed: Signed<SwapAccept>, quote: Quote, request: SwapRequest, preimage: [UInt8], claimKey: PrivateKey,
              amountSat: Int64, rate: FeeRate, destination: Address) async throws(KitError) -> OpenSwap {
        let invoice: Invoice
        do { invoice = try InvoiceDecoder.decode(signed.body.invoice) } catch {
            throw KitError("the accept's invoice does not decode: \(error)")
        }
        let facts = InvoiceFacts(paymentHash: invoice.paymentHash, amountMsat: invoice.amountMsat,
                                 minFinalCLTVExpiry: Int(clamping: invoice.minFinalCLTVExpiryDelta))
        let tip = try await chain.tipHeight()
        let contract: SwapContract
        do {
            contract = try AcceptPolicy().check(signed, quote: quote, request: request, invoice: facts, provider: provider,
                                                network: network, tipHeight: UInt32(clamping: tip))
        } catch {
            throw KitError("the accept fails the client's checks: \(error)")
        }
        log("accepted: swap \(signed.body.swapID), lock to \(signed.body.htlcAddress), timeout height \(signed.body.timeoutHeight)")
        return OpenSwap(swapID: signed.body.swapID, quote: quote, accept: signed.body, contract: contract, preimage: preimage,
                        claimKey: claimKey, amountSat: amountSat, claimFeeRate: rate, destination: destination,
                        cltvDelta: invoice.minFinalCLTVExpiryDelta)
    }
}
