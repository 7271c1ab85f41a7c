import HTLC
@testable import Offers
import Synchronization
import Transport
import TestSupport
import XCTest

/// The router with published capability descriptors: providers that publish one are ranked
/// from it without being asked anything, only the chosen one is asked (for its signed
/// offer), one whose offer costs more than its descriptor said is skipped with the reason,
/// and with probing of unpublished contacts off they are skipped, never dialled.
final class RouterDescriptorTests: XCTestCase {
    /// Answers with each contact's signed offer and counts who was asked.
    private final class CountingProber: OfferProber {
        private let offers: [String: Offer]
        private let asked = Mutex<[String]>([])

        init(_ offers: [String: Offer]) { self.offers = offers }

        var contactsAsked: [String] { asked.withLock { $0 } }

        func probe(_ contact: Contact, timeoutMilliseconds: UInt64) async -> ProbeResult {
            asked.withLock { $0.append(contact.name) }
            guard let offer = offers[contact.name] else { return .skipped(.rejected(.notFound)) }
            return .offer(Signed(signing: offer, with: Fixtures.identity(UInt8(contact.name == "cheap" ? 1 : contact.name == "dear" ? 2 : 3))))
        }
    }

    private let cheap = Contact(pubky: Fixtures.identity(1).pubky, host: "h", port: 1, name: "cheap")
    private let dear = Contact(pubky: Fixtures.identity(2).pubky, host: "h", port: 2, name: "dear")
    private let quiet = Contact(pubky: Fixtures.identity(3).pubky, host: "h", port: 3, name: "quiet")

    private func offer(_ byte: UInt8, base: Int64) -> Offer {
        Fixtures.offer(provider: Fixtures.identity(byte), base: base, ppm: 1_000, onchain: 300)
    }

    private func descriptor(base: Int64) -> CapabilityDescriptor {
        CapabilityDescriptor(offer: offer(1, base: base), expiresAtUnix: Fixtures.now + 600)
    }

    private let selector = RouteSelector(amountSat: 20_000, destination: .p2tr, claimFeeRate: Fixtures.rate(2))

    private func router(_ prober: CountingProber) -> Router {
        Router(settings: .init(network: .regtest), prober: prober, sleeper: TaskSleeper(), clock: TestClock(Fixtures.now))
    }

    func testPublishedProvidersAreRankedWithoutBeingAskedAndOnlyTheChosenOneIsAsked() async throws {
        let prober = CountingProber(["cheap": offer(1, base: 300), "dear": offer(2, base: 500)])
        let router = router(prober)
        let published = [cheap.pubky: descriptor(base: 300), dear.pubky: descriptor(base: 500)]
        let decision = await router.route(selector, contacts: [cheap, dear, quiet], published: published,
                                          probeUnpublished: false, unpublishedReasons: [quiet.pubky: "publishes no capability descriptor"])
        XCTAssertEqual(prober.contactsAsked, [], "ranking asked nobody")
        XCTAssertEqual(decision.fromDescriptors, 2)
        XCTAssertEqual(decision.probed, 0)
        XCTAssertEqual(decision.ranked.map(\.provider.contact.name), ["cheap", "dear"])
        XCTAssertTrue(decision.ranked.allSatisfy(\.provider.fromDescriptor))
        XCTAssertEqual(decision.skipped.map { "\($0.contact.name): \($0.reason)" },
                       ["quiet: publishes no capability descriptor, and private_discovery=1 forbids probing it"])

        let chosen = try await router.confirm(try XCTUnwrap(decision.choice), price: selector.price).get()
        XCTAssertEqual(prober.contactsAsked, ["cheap"], "only the chosen provider is asked, for its signed offer")
        XCTAssertFalse(chosen.provider.fromDescriptor)
        XCTAssertEqual(chosen.provider.signed?.isSigned(by: cheap.pubky), true)
        XCTAssertEqual(chosen.totalCostSat, decision.ranked[0].totalCostSat)
        // The confirmed offer is cached: routing again asks nobody.
        let again = await router.route(selector, contacts: [cheap, dear], published: published)
        XCTAssertEqual(prober.contactsAsked, ["cheap"])
        XCTAssertFalse(try XCTUnwrap(again.choice).provider.fromDescriptor)
    }

    func testAnOfferDearerThanItsDescriptorIsSkippedWithTheReason() async throws {
        // cheap publishes base 300 but offers base 900.
        let prober = CountingProber(["cheap": offer(1, base: 900), "dear": offer(2, base: 500)])
        let router = router(prober)
        let decision = await router.route(selector, contacts: [cheap, dear],
                                          published: [cheap.pubky: descriptor(base: 300), dear.pubky: descriptor(base: 500)])
        let first = try XCTUnwrap(decision.choice)
        let outcome = await router.confirm(first, price: selector.price)
        guard case .failure(.descriptorNotHonoured(let advertised, let offered)) = outcome else { return XCTFail("\(outcome)") }
        XCTAssertGreaterThanOrEqual(offered - advertised, 600, "the 600 sat of base fee, and the routing fee on it")
        XCTAssertEqual("\(SkipReason.descriptorNotHonoured(advertisedSat: advertised, offeredSat: offered))",
                       "its offer does not honour its published descriptor (fees \(OffersError.sats(offered)), "
                       + "\(OffersError.sats(advertised)) advertised)")
        let ranked = RankedCandidates(ranked: decision.ranked).confirming(first, outcome)
        XCTAssertEqual(ranked.ranked.map(\.provider.contact.name), ["dear"])
        XCTAssertEqual(ranked.skipped.map(\.contact.name), ["cheap"])
        // Routed again (the payment's next pass), the same descriptor is skipped with the same
        // reason without asking cheap again, and its real offer is not used either.
        let again = await router.route(selector, contacts: [cheap, dear],
                                       published: [cheap.pubky: descriptor(base: 300), dear.pubky: descriptor(base: 500)])
        XCTAssertEqual(again.ranked.map(\.provider.contact.name), ["dear"])
        XCTAssertEqual(again.skipped.first { $0.contact == cheap }?.reason, .descriptorNotHonoured(advertisedSat: advertised, offeredSat: offered))
        XCTAssertEqual(prober.contactsAsked, ["cheap"])
        // A new descriptor is tried again.
        let renewed = await router.route(selector, contacts: [cheap, dear],
                                         published: [cheap.pubky: descriptor(base: 900), dear.pubky: descriptor(base: 500)])
        XCTAssertEqual(renewed.ranked.map(\.provider.contact.name), ["dear", "cheap"])
    }

    func testUnpublishedContactsAreProbedUnlessForbiddenAndExpiredOrForeignDescriptorsAreNotUsed() async throws {
        let prober = CountingProber(["quiet": offer(3, base: 400)])
        let router = router(prober)
        let expired = CapabilityDescriptor(offer: offer(1, base: 300), expiresAtUnix: Fixtures.now - 1)
        var mainnet = offer(2, base: 300)
        mainnet.network = "mainnet"
        let foreign = CapabilityDescriptor(offer: mainnet, expiresAtUnix: Fixtures.now + 600)
        let report = await router.probe([cheap, dear, quiet], published: [cheap.pubky: expired, dear.pubky: foreign])
        XCTAssertEqual(report.fromDescriptors, 0)
        XCTAssertEqual(Set(prober.contactsAsked), ["cheap", "dear", "quiet"], "without a usable descriptor, probed as before")
        XCTAssertEqual(report.offers.map(\.contact.name), ["quiet"])
    }
}
