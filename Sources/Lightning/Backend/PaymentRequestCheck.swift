import Bitcoin

/// How the node reads a payment request it is asked to pay (a submarine swap's provider
/// pays the client's invoice): with its own BOLT11 decoder first, then LND's
/// `DecodePayReq` as a check.
///
/// Why both. The node's decoder checks the signature and recovers the payee, needs no
/// round trip, and is what the pure engines can run on (amount, hash, expiry, final CLTV
/// delta: every refusal rule is a function of these). But LND is what pays, so LND's
/// reading is the one that counts: if the two ever differ (a field one of them skips, a
/// default one of them applies), the request is refused rather than paid on terms the
/// node did not check.
public enum PaymentRequestCheck {
    /// The request decoded locally, for `network`, and confirmed by the node.
    public static func read(_ paymentRequest: String, network: Network,
                            backend: any LightningBackend) async throws(PaymentRequestCheckError) -> Invoice {
        let invoice = try local(paymentRequest, network: network)
        let lnd: PaymentRequestDetails
        do {
            lnd = try await backend.decodeInvoice(paymentRequest)
        } catch {
            throw .backend(error)
        }
        if let field = PaymentRequestDetails(invoice).firstDifference(from: lnd) {
            throw .disagreement(field: field)
        }
        return invoice
    }

    /// The request decoded by the node's BOLT11 decoder, refused when for another network.
    public static func local(_ paymentRequest: String, network: Network) throws(PaymentRequestCheckError) -> Invoice {
        let invoice: Invoice
        do {
            invoice = try InvoiceDecoder.decode(paymentRequest)
        } catch {
            throw .undecodable(error)
        }
        guard invoice.currency == InvoiceCurrency(network: network) else {
            throw .wrongNetwork(prefix: invoice.currency.prefix, expected: InvoiceCurrency(network: network).prefix)
        }
        return invoice
    }
}

/// Why a payment request was not accepted for payment.
public enum PaymentRequestCheckError: Error, Sendable, Equatable, CustomStringConvertible {
    case undecodable(BOLT11Error)
    case wrongNetwork(prefix: String, expected: String)
    /// LND could not be asked, or refused the request.
    case backend(LightningBackendError)
    /// LND read `field` differently from the node's decoder.
    case disagreement(field: String)

    public var description: String {
        switch self {
        case .undecodable(let error): return "the payment request is not a valid BOLT11 invoice: \(error)"
        case .wrongNetwork(let prefix, let expected):
            return "the payment request is for another network (\(prefix), this node pays \(expected) invoices)"
        case .backend(let error): return "LND could not decode the payment request: \(error)"
        case .disagreement(let field):
            return "LND reads the payment request's \(field) differently from this node; refusing to pay it"
        }
    }
}

extension PaymentRequestDetails {
    /// The terms as the node's own decoder reads them, with BOLT11's defaults (3600 s,
    /// 18 blocks) where a field is absent, as LND's `DecodePayReq` reports them.
    public init(_ invoice: Invoice) {
        self.init(destination: invoice.payeeNodeID, paymentHash: invoice.paymentHash,
                  amountMsat: invoice.amountMsat ?? 0, timestamp: invoice.timestamp,
                  expirySeconds: invoice.expirySeconds, description: invoice.descriptionText ?? "",
                  cltvExpiry: invoice.minFinalCLTVExpiryDelta, paymentAddress: invoice.paymentSecret)
    }

    /// The name of the first term on which `other` differs, nil when they agree.
    public func firstDifference(from other: PaymentRequestDetails) -> String? {
        if destination != other.destination { return "destination" }
        if paymentHash != other.paymentHash { return "payment_hash" }
        if amountMsat != other.amountMsat { return "num_msat" }
        if timestamp != other.timestamp { return "timestamp" }
        if expirySeconds != other.expirySeconds { return "expiry" }
        if cltvExpiry != other.cltvExpiry { return "cltv_expiry" }
        if paymentAddress != other.paymentAddress { return "payment_addr" }
        if description != other.description { return "description" }
        return nil
    }
}
