@testable import Offers
import Synchronization
import Transport
import XCTest

/// Providers and candidates for the rail tests, priced by the real selectors from signed
/// offers, and a quoter backed by the provider's own `QuoteBook`.
enum RailFixtures {
    static func contact(_ byte: UInt8, _ name: String) -> Contact {
        Contact(pubky: Fixtures.identity(byte).pubky, host: "h", port: 1, name: name)
    }

    /// `onchain_to_ln` terms: invoices of `min`...`max`, `base` + `ppm`, the provider's claim `onchain`.
    static func submarineTerms(min: Int64 = 10_000, max: Int64 = 500_000, base: Int64 = 400, ppm: Int64 = 1_500,
                               onchain: Int64 = 380, confirmations: Int = 1, timeout: Int = 144) -> DirectionTerms {
        DirectionTerms(direction: .onchainToLightning, minAmountSat: min, maxAmountSat: max, baseFeeSat: base, feePPM: ppm,
                       onchainFeeSat: onchain, requiredConfirmations: confirmations, htlcTimeoutBlocks: timeout)
    }

    /// An offer signed by identity `byte` running `onchain_to_ln` under `terms`, and also
    /// `ln_to_onchain` (base 100 sat, 2,000 ppm, on-chain fee 200 sat: under the client's
    /// 5 % fee maximum at 20,000 sat) when `reverse`.
    static func provider(_ byte: UInt8, _ name: String, submarine terms: DirectionTerms? = submarineTerms(),
                         reverse: Bool = true) -> ProviderOffer {
        let identity = Fixtures.identity(byte)
        var offer = Fixtures.offer(provider: identity, base: 100, onchain: 200)
        offer.offerID = "offer-\(name)"
        if let terms {
            if reverse {
                offer.directions = ["ln_to_onchain", "onchain_to_ln"]
                offer.directionTerms = [offer.terms(for: .lightningToOnchain)!, terms]
            } else {
                // A provider running only `onchain_to_ln` puts its terms at the top level too.
                offer.directions = ["onchain_to_ln"]
                offer.minAmountSat = terms.minAmountSat
                offer.maxAmountSat = terms.maxAmountSat
                offer.baseFeeSat = terms.baseFeeSat
                offer.feePPM = terms.feePPM
                offer.onchainFeeSat = terms.onchainFeeSat
                offer.requiredConfirmations = terms.requiredConfirmations
                offer.htlcTimeoutBlocks = terms.htlcTimeoutBlocks
                offer.directionTerms = [terms]
            }
        }
        return ProviderOffer(contact: contact(byte, name), offer: Signed(signing: offer, with: identity))
    }
}

/// Quotes `onchain_to_ln` amounts from the provider's real `QuoteBook` under its offer,
/// as the provider would answer a QuoteRequest; records the amounts asked.
final class QuoteBookQuoter: Quoter {
    private let book: Mutex<QuoteBook>
    private let offer: Offer
    private let lockableSat: Int64
    private let asked = Mutex<[Int64]>([])

    init(offer: Offer, lockableSat: Int64 = 100_000_000) {
        book = Mutex(QuoteBook(clock: TestClock(Fixtures.now)))
        self.offer = offer
        self.lockableSat = lockableSat
    }

    var amounts: [Int64] { asked.withLock { $0 } }

    func quote(amountSat: Int64) async throws -> Quote {
        asked.withLock { $0.append(amountSat) }
        let request = QuoteRequest(requestID: RandomID.make(), offerID: offer.offerID, direction: .onchainToLightning,
                                   amountSat: amountSat)
        let offer = self.offer
        let lockable = lockableSat
        return try book.withLock { book throws(OffersError) -> Quote in
            try book.issue(for: request, client: Fixtures.client.pubky, offer: offer, lockableSat: lockable)
        }
    }
}
