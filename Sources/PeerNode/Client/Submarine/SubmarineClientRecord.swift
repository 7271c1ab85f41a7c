import Bitcoin
import HTLC
import Offers
import Transport

/// What a client submarine swap's record holds as its contract (written once, with the
/// swap): the provider contact, the signed quote, the SwapRequest sent (invoice and refund
/// key), the invoice's payment hash, and whether the invoice is this node's own (a
/// swap-in, whose settlement also reveals the preimage). Stored under role `client` with
/// `"direction": "onchain_to_ln"`, which is how the reverse engine tells these records
/// from its own and leaves them alone.
public struct SubmarineClientRecord: Sendable, Equatable {
    public static let direction = SwapDirection.onchainToLightning.rawValue

    public let provider: Offers.Contact
    public let quote: Signed<Quote>
    public let request: SubmarineSwapRequest
    public let invoicePaymentHash: [UInt8]
    public let network: Network
    /// The invoice is this node's own (`swap-in`): its settlement is watched for the preimage.
    public let ownInvoice: Bool

    public init(provider: Offers.Contact, quote: Signed<Quote>, request: SubmarineSwapRequest, invoicePaymentHash: [UInt8],
                network: Network, ownInvoice: Bool) {
        self.provider = provider
        self.quote = quote
        self.request = request
        self.invoicePaymentHash = invoicePaymentHash
        self.network = network
        self.ownInvoice = ownInvoice
    }

    /// The terms the machine checks the accept against.
    public var terms: SubmarineClientTerms {
        SubmarineClientTerms(provider: provider.pubky, quote: quote.body, request: request,
                             invoicePaymentHash: invoicePaymentHash, network: network)
    }

    /// Whether a stored client contract is a submarine swap's.
    public static func isSubmarine(_ contract: JSONValue) -> Bool {
        contract["direction"]?.stringValue == direction
    }

    public var json: JSONValue {
        .object([
            "direction": .string(Self.direction),
            "provider": .object([
                "pubky": .string(provider.pubky.z32), "host": .string(provider.host),
                "port": .integer(provider.port), "name": .string(provider.name),
            ]),
            "quote": quote.json,
            "request": request.json,
            "payment_hash": .string(invoicePaymentHash.hex),
            "network": .string(network.rawValue),
            "own_invoice": .bool(ownInvoice),
        ])
    }

    public init(json: JSONValue) throws(ClientEngineError) {
        guard Self.isSubmarine(json) else { throw .corruptRecord("not a submarine swap's contract") }
        do {
            guard let providerJSON = json["provider"], let pubky = providerJSON["pubky"]?.stringValue,
                  let host = providerJSON["host"]?.stringValue, let port = providerJSON["port"]?.uint64Value,
                  let name = providerJSON["name"]?.stringValue, let quoteJSON = json["quote"],
                  let requestJSON = json["request"],
                  let hash = json["payment_hash"]?.stringValue.flatMap({ [UInt8](hex: $0) }), hash.count == 32,
                  let network = json["network"]?.stringValue.flatMap(Network.init(rawValue:)) else {
                throw ClientEngineError.corruptRecord("a submarine swap's contract lacks a field")
            }
            self.init(provider: Offers.Contact(pubky: try Pubky(parsing: pubky), host: host, port: UInt16(clamping: port),
                                               name: name),
                      quote: try Signed<Quote>(json: quoteJSON), request: try SubmarineSwapRequest(json: requestJSON),
                      invoicePaymentHash: hash, network: network, ownInvoice: json["own_invoice"]?.boolValue ?? false)
        } catch let error as ClientEngineError {
            throw error
        } catch {
            throw .corruptRecord("a submarine swap's contract does not decode: \(error)")
        }
    }
}
