import Bitcoin
import HTLC
import Offers
import Transport

/// What a contact's Endpoints reply says it takes on this node's network: an on-chain
/// address a claim or a send can pay, and whether it takes Lightning (the pubky to ask
/// for a signed invoice). The rail chooser decides from this and the balances.
struct ContactRails: Sendable, Equatable {
    let onchain: Address?
    let lightning: Pubky?
    /// Every entry as "type on network", for an error that says what was offered.
    let offered: [String]

    private init(onchain: Address?, lightning: Pubky?, offered: [String]) {
        self.onchain = onchain
        self.lightning = lightning
        self.offered = offered
    }

    /// The same contact without its Lightning rail (it gave no invoice).
    var onchainOnly: ContactRails { ContactRails(onchain: onchain, lightning: nil, offered: offered) }

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

    /// Refuses a contact that takes neither rail here, saying what it does list.
    func requireARail(contact name: String, network: Network) throws(ControlError) {
        guard onchain == nil, lightning == nil else { return }
        throw .failed("\(name) takes neither an on-chain address on \(network.rawValue) that can be paid nor Lightning"
                      + (offered.isEmpty ? "" : " (it offers: \(offered.joined(separator: ", ")))") + "; nothing was paid")
    }

    /// "carol receives at bcrt1...", "erin takes Lightning", or both.
    func summary(contact name: String, network: Network) -> String {
        switch (onchain, lightning) {
        case (let address?, nil): return "\(name) receives at \(address.encoded(for: network))"
        case (nil, _?): return "\(name) takes only Lightning"
        case (let address?, _?): return "\(name) takes Lightning and receives on-chain at \(address.encoded(for: network))"
        case (nil, nil): return "\(name) takes neither rail"
        }
    }
}
