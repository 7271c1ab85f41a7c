import Bitcoin
import HTLC
import Offers
import Transport

/// What a client swap is, written once as the swap's contract in the store: the provider
/// (so a restart can reach it again), the signed quote as received, the destination and X,
/// the claim fee and its rate, and the confirmation rule fixed for this swap. The accept
/// follows in the `accepted` event; the secrets are never stored (seed + swap index).
public struct ClientSwapTerms: Sendable, Equatable {
    public let provider: Offers.Contact
    public let quote: Signed<Quote>
    public let destination: Address
    /// X: what the destination receives.
    public let amountSat: Int64
    public let claimFeeSat: Int64
    public let claimFeeRate: FeeRate
    public let purpose: ClaimPurpose
    public let contractType: ContractType
    public let requiredConfirmations: Int
    public let network: Network
    /// Whether the first claim is asked for cooperatively (MuSig2 key path): this node has
    /// `musig2` on, the provider's offer lists it, and the contract is `taproot_boltz`.
    /// Fixed when the swap is made; older records lack it (false).
    public let cooperativeClaim: Bool

    public init(provider: Offers.Contact, quote: Signed<Quote>, destination: Address, amountSat: Int64, claimFeeSat: Int64,
                claimFeeRate: FeeRate, purpose: ClaimPurpose, contractType: ContractType, requiredConfirmations: Int,
                network: Network, cooperativeClaim: Bool = false) {
        self.provider = provider
        self.quote = quote
        self.destination = destination
        self.amountSat = amountSat
        self.claimFeeSat = claimFeeSat
        self.claimFeeRate = claimFeeRate
        self.purpose = purpose
        self.contractType = contractType
        self.requiredConfirmations = requiredConfirmations
        self.network = network
        self.cooperativeClaim = cooperativeClaim && contractType == .taprootBoltz
    }

    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "provider": .object([
                "pubky": .string(provider.pubky.z32), "host": .string(provider.host),
                "port": .integer(provider.port), "name": .string(provider.name),
            ]),
            "quote": quote.json,
            "destination": .string(destination.encoded(for: network)),
            "amount_sat": .integer(amountSat),
            "claim_fee_sat": .integer(claimFeeSat),
            "claim_fee_rate_sat_kvb": .integer(claimFeeRate.satPerKvB),
            "purpose": .string(purpose.rawValue),
            "script_type": .string(contractType.rawValue),
            "required_confirmations": .integer(requiredConfirmations),
            "network": .string(network.rawValue),
        ]
        if cooperativeClaim { members["cooperative_claim"] = .bool(true) }
        return .object(members)
    }

    public init(json: JSONValue) throws(ClientEngineError) {
        do {
            guard let providerJSON = json["provider"], let pubky = providerJSON["pubky"]?.stringValue,
                  let host = providerJSON["host"]?.stringValue, let port = providerJSON["port"]?.uint64Value,
                  let name = providerJSON["name"]?.stringValue, let quoteJSON = json["quote"],
                  let networkName = json["network"]?.stringValue, let network = Network(rawValue: networkName),
                  let destination = json["destination"]?.stringValue, let amount = json["amount_sat"]?.int64Value,
                  let claimFee = json["claim_fee_sat"]?.int64Value, let rate = json["claim_fee_rate_sat_kvb"]?.int64Value,
                  let purpose = json["purpose"]?.stringValue.flatMap(ClaimPurpose.init(rawValue:)),
                  let type = json["script_type"]?.stringValue.flatMap(ContractType.init(rawValue:)),
                  let confirmations = json["required_confirmations"]?.int64Value else {
                throw ClientEngineError.corruptRecord("a client swap contract lacks a field")
            }
            self.init(provider: Offers.Contact(pubky: try Pubky(parsing: pubky), host: host, port: UInt16(clamping: port), name: name),
                      quote: try Signed<Quote>(json: quoteJSON), destination: try Address(destination, network: network),
                      amountSat: amount, claimFeeSat: claimFee, claimFeeRate: try FeeRate(satPerKvB: rate),
                      purpose: purpose, contractType: type, requiredConfirmations: Int(confirmations), network: network,
                      cooperativeClaim: json["cooperative_claim"]?.boolValue ?? false)
        } catch let error as ClientEngineError {
            throw error
        } catch {
            throw .corruptRecord("a client swap contract does not decode: \(error)")
        }
    }
}
