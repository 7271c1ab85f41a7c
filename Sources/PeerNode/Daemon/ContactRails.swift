import Bitcoin
import HTLC
import Offers
import Transport

/// What a contact's Endpoints reply says it takes on this node's network: an on-chain
/// address a claim or a send can pay, and whether it takes Lightning (the pubky to ask
/// for a signed invoice). `pay` decides its rail from this, in one place (`rail`).
struct ContactRails: Sendable, Equatable {
    /// The rail `pay` takes to a contact.
    enum Rail: Sendable, Equatable {
        /// On-chain to this address: directly from savings, or a reverse swap from spending.
        case onchain(Address)
        /// The contact's Lightning invoice, paid through a submarine swap from savings.
        case lightningFromSavings(invoicePubky: Pubky)
    }

    let onchain: Address?
    let lightning: Pubky?
    /// Every entry as "type on network", for an error that says what was offered.
    let offered: [String]

    init(endpoints: [Endpoint], network: Network) {
        onchain = endpoints.lazy.filter { $0.type == Endpoint.onchainType && $0.network == network.rawValue }
            .compactMap { endpoint -> Address? in
                guard let address = try? Address(endpoint.address, network: network),
                      (try? DestinationType(address: address)) != nil else { return nil }
                return address
            }.first
        lightning = endpoints.lazy.filter { $0.network == network.rawValue }.compactMap(\.lightningPubky).first
        offered = endpoints.map { "\($0.type) on \($0.network)" }
    }

    /// On-chain whenever the contact takes it (`pay`'s existing choice between savings and
    /// a reverse swap follows); else its Lightning invoice from savings. `--from spending`
    /// to a Lightning-only contact would be a plain Lightning payment, which `pay` does not
    /// make: refused with what to do instead.
    func rail(contact name: String, source: PaymentSource?, network: Network) throws(ControlError) -> Rail {
        if let onchain { return .onchain(onchain) }
        guard let lightning else {
            throw .failed("\(name) takes neither an on-chain address on \(network.rawValue) that can be paid nor Lightning"
                          + (offered.isEmpty ? "" : " (it offers: \(offered.joined(separator: ", ")))") + "; nothing was paid")
        }
        if source == .spending {
            throw .invalidRequest("\(name) takes only Lightning, and a plain Lightning payment from spending is not made by "
                                  + "`pay`; pay from savings (the default: a submarine swap through a provider); nothing was paid")
        }
        return .lightningFromSavings(invoicePubky: lightning)
    }
}
