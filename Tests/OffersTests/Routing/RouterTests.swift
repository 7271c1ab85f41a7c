import HTLC
@testable import Offers
import Synchronization
import Transport
import TestSupport
import XCTest

/// A prober scripted per contact name: an offer, a skip, or a hang; counts calls and the
/// most probes in flight at once.
private final class ScriptedProber: OfferProber {
    enum Behaviour: Sendable {
        case answer(ProbeResult)
        case hang
    }

    private let script: @Sendable (Contact) -> Behaviour
    private let state = Mutex<(calls: Int, inFlight: Int, peak: Int)>((0, 0, 0))
    private let delayMilliseconds: UInt64

    init(delayMilliseconds: UInt64 = 0, _ script: @escaping @Sendable (Contact) -> Behaviour) {
        self.script = script
        self.delayMilliseconds = delayMilliseconds
    }

    var calls: Int { state.withLock { $0.calls } }
    var peak: Int { state.withLock { $0.peak } }

    func probe(_ contact: Contact, timeoutMilliseconds: UInt64) async -> ProbeResult {
        state.withLock {
            $0.calls += 1
            $0.inFlight += 1
            $0.peak = max($0.peak, $0.inFlight)
        }
        defer { state.withLock { $0.inFlight -= 1 } }
        if delayMilliseconds > 0 { try? await Task.sleep(nanoseconds: delayMilliseconds * 1_000_000) }
        switch script(contact) {
        case .answer(let result): return result
        case .hang:
            try? await Task.sleep(nanoseconds: 60_000_000_000)
            return .skipped(.notAProvider("woke up"))
        }
    }
}

final class RouterTests: XCTestCase {
    private static func contact(_ byte: UInt8, _ name: String) -> Contact {
        Contact(pubky: Fixtures.identity(byte).pubky, host: "h", port: 1, name: name)
    }

    private static func signedOffer(_ byte: UInt8, signer: UInt8? = nil, base: Int64 = 500, confirmations: Int = 1,
                             timeout: Int = 144, network: String = "regtest", version: Int64 = 1,
                             validUntil: UInt64 = Fixtures.now + 600, features: [String] = ["taproot_boltz"],
                             max: Int64 = 1_000_000) -> ProbeResult {
        let offer = Fixtures.offer(provider: Fixtures.identity(byte), network: network, max: max, base: base,
                                   confirmations: confirmations, timeout: timeout, validUntil: validUntil,
                                   version: version, features: features)
        return .offer(Signed(signing: offer, with: Fixtures.identity(signer ?? byte)))
    }

    private func router(_ prober: ScriptedProber, clock: TestClock = TestClock(Fixtures.now),
                        settings: Router.Settings = .init(network: .regtest)) -> Router {
        Router(settings: settings, prober: prober, sleeper: TaskSleeper(), clock: clock)
    }

    func testSkipsOtherNetworksVersionsExpiredAndBadlySignedOffers() async {
        let offers: [String: ProbeResult] = [
            "good": Self.signedOffer(1),
            "mainnet": Self.signedOffer(2, network: "mainnet"),
            "v2": Self.signedOffer(3, version: 2),
            "stale": Self.signedOffer(4, validUntil: Fixtures.now - 1),
            "forged": Self.signedOffer(5, signer: 9),
            "impostor": { () -> ProbeResult in
                // Signed correctly, but by and for someone other than the contact dialled.
                let offer = Fixtures.offer(provider: Fixtures.identity(9))
                return .offer(Signed(signing: offer, with: Fixtures.identity(9)))
            }(),
        ]
        let prober = ScriptedProber { .answer(offers[$0.name]!) }
        let contacts = [Self.contact(1, "good"), Self.contact(2, "mainnet"), Self.contact(3, "v2"), Self.contact(4, "stale"),
                        Self.contact(5, "forged"), Self.contact(6, "impostor")]
        let report = await router(prober).probe(contacts)
        XCTAssertEqual(report.offers.map(\.contact.name), ["good"])
        let reasons = Dictionary(uniqueKeysWithValues: report.skipped.map { ($0.contact.name, $0.reason) })
        XCTAssertEqual(reasons["mainnet"], .otherNetwork("mainnet"))
        XCTAssertEqual(reasons["v2"], .incompatibleVersion(2))
        XCTAssertEqual(reasons["stale"], .offerExpired)
        XCTAssertEqual(reasons["forged"], .invalidOffer("the signature does not verify"))
        XCTAssertEqual(reasons["impostor"], .invalidOffer("signed for another identity"))
    }

    func testTiesGoToFewerConfirmationsThenShorterTimeout() async {
        let offers: [String: ProbeResult] = [
            "slow": Self.signedOffer(1, confirmations: 3, timeout: 100),
            "long": Self.signedOffer(2, confirmations: 1, timeout: 288),
            "best": Self.signedOffer(3, confirmations: 1, timeout: 144),
            "dear": Self.signedOffer(4, base: 501, confirmations: 0, timeout: 50),
            "small": Self.signedOffer(5, base: 0, max: 50_000),
        ]
        let prober = ScriptedProber { .answer(offers[$0.name]!) }
        let contacts = ["slow", "long", "best", "dear", "small"].enumerated().map { Self.contact(UInt8($0.offset + 1), $0.element) }
        let selector = RouteSelector(amountSat: 100_000, destination: .p2tr, claimFeeRate: Fixtures.rate(2))
        let decision = await router(prober).route(selector, contacts: contacts)
        XCTAssertEqual(decision.ranked.map(\.provider.contact.name), ["best", "long", "slow", "dear"])
        XCTAssertEqual(decision.choice?.provider.contact.name, "best")
        let claimFee = ContractSizes.claimFee(.taprootBoltz, destination: .p2tr, rate: Fixtures.rate(2))
        guard case .amountOutOfRange(100_000, 10_000 - claimFee, 50_000 - claimFee) = decision.skipped.first?.reason else {
            return XCTFail("the small provider cannot take 100,000: \(decision.skipped)")
        }
    }

    /// An amount outside an offer's range is refused in amounts the payer types: the
    /// smallest or largest payment, not the lock (X + claim fee) it never typed (issue 14:
    /// "6520 sat is outside its range").
    func testAnAmountOutsideTheRangeNamesThePayableBound() async {
        let prober = ScriptedProber { _ in .answer(Self.signedOffer(1, base: 0, max: 50_000)) }
        let claimFee = ContractSizes.claimFee(.taprootBoltz, destination: .p2tr, rate: Fixtures.rate(2))
        let smallest = OffersError.sats(10_000 - claimFee)
        for (amount, expected) in [
            (Int64(6_000), "the smallest payment its offer allows is \(smallest) (not 6,000 sat)"),
            (10_000 - claimFee - 1, "the smallest payment its offer allows is \(smallest) (not \(OffersError.sats(10_000 - claimFee - 1)))"),
            (50_000 - claimFee + 1, "the largest payment its offer allows is \(OffersError.sats(50_000 - claimFee)) "
                + "(not \(OffersError.sats(50_000 - claimFee + 1)))"),
        ] {
            let selector = RouteSelector(amountSat: amount, destination: .p2tr, claimFeeRate: Fixtures.rate(2))
            let decision = await router(prober).route(selector, contacts: [Self.contact(1, "bob")])
            XCTAssertEqual(decision.skipped.first?.reason.description, expected, "paying \(amount)")
        }
        // The bounds themselves fit.
        for amount in [10_000 - claimFee, 50_000 - claimFee] {
            let selector = RouteSelector(amountSat: amount, destination: .p2tr, claimFeeRate: Fixtures.rate(2))
            let decision = await router(prober).route(selector, contacts: [Self.contact(1, "bob")])
            XCTAssertEqual(decision.ranked.count, 1, "paying \(amount): \(decision.skipped)")
        }
    }

    func testAContractTypeAskedForKeepsOnlyTheOffersListingIt() async {
        let offers: [String: ProbeResult] = [
            "taproot": Self.signedOffer(1, base: 100, features: ["taproot_boltz"]),
            "both": Self.signedOffer(2, base: 300, features: ["taproot_boltz", "p2wsh_v2"]),
            "segwit": Self.signedOffer(3, base: 500, features: ["p2wsh_v2"]),
        ]
        let prober = ScriptedProber { .answer(offers[$0.name]!) }
        let contacts = ["taproot", "both", "segwit"].enumerated().map { Self.contact(UInt8($0.offset + 1), $0.element) }

        // Unasked, each offer's preferred type: the cheapest wins, Taproot where listed.
        let any = await router(prober).route(RouteSelector(amountSat: 100_000, destination: .p2tr, claimFeeRate: Fixtures.rate(2)),
                                             contacts: contacts)
        XCTAssertEqual(any.ranked.map(\.provider.contact.name), ["taproot", "both", "segwit"])
        XCTAssertEqual(any.ranked.map(\.contractType), [.taprootBoltz, .taprootBoltz, .p2wsh])

        // p2wsh asked for: the Taproot-only offer is skipped with the type named, the
        // others are priced for a P2WSH claim.
        let p2wsh = await router(prober).route(RouteSelector(amountSat: 100_000, destination: .p2tr, claimFeeRate: Fixtures.rate(2),
                                                             contractType: .p2wsh), contacts: contacts)
        XCTAssertEqual(p2wsh.ranked.map(\.provider.contact.name), ["both", "segwit"])
        XCTAssertEqual(p2wsh.ranked.map(\.contractType), [.p2wsh, .p2wsh])
        XCTAssertEqual(p2wsh.choice?.claimFeeSat, ContractSizes.claimFee(.p2wsh, destination: .p2tr, rate: Fixtures.rate(2)))
        XCTAssertEqual(p2wsh.skipped.map(\.contact.name), ["taproot"])
        XCTAssertEqual(p2wsh.skipped.first?.reason, .contractTypeNotOffered(wanted: .p2wsh, offered: [.taprootBoltz]))
        XCTAssertEqual(p2wsh.skipped.first?.reason.description, "offers no p2wsh_v2 contract (it offers taproot_boltz)")

        // taproot_boltz asked for: the P2WSH-only offer is skipped.
        let taproot = await router(prober).route(RouteSelector(amountSat: 100_000, destination: .p2tr, claimFeeRate: Fixtures.rate(2),
                                                               contractType: .taprootBoltz), contacts: contacts)
        XCTAssertEqual(taproot.ranked.map(\.provider.contact.name), ["taproot", "both"])
        XCTAssertEqual(taproot.skipped.first?.reason, .contractTypeNotOffered(wanted: .taprootBoltz, offered: [.p2wsh]))
    }

    func testPerContactTimeoutAndBoundedConcurrency() async {
        let prober = ScriptedProber(delayMilliseconds: 20) { $0.name == "hangs" ? .hang : .answer(.skipped(.notAProvider("no"))) }
        var contacts = (0..<12).map { Self.contact(UInt8(10 + $0), "quiet\($0)") }
        contacts.append(Self.contact(1, "hangs"))
        let settings = Router.Settings(network: .regtest, maxConcurrentProbes: 4, perContactTimeoutMilliseconds: 200,
                                       overallDeadlineMilliseconds: 5_000)
        let started = ContinuousClock.now
        let report = await router(prober, settings: settings).probe(contacts)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(3), "the hung contact costs its slot, not the minute")
        XCTAssertEqual(report.skipped.first { $0.contact.name == "hangs" }?.reason, .timedOut(milliseconds: 200))
        XCTAssertEqual(report.skipped.count, 13)
        XCTAssertEqual(prober.calls, 13)
        XCTAssertLessThanOrEqual(prober.peak, 4)
        XCTAssertGreaterThanOrEqual(prober.peak, 2, "probes ran in parallel")
    }

    /// A contact that answers late (on purpose, or down behind a silent network) would cost
    /// every payment the whole per-contact timeout: once it timed out, it is not probed for
    /// `timedOutHoldSeconds` (60), but by a refresh.
    func testAContactThatTimedOutIsNotAskedAgainForAMinuteButByARefresh() async {
        let answers = Mutex(false)
        let prober = ScriptedProber { _ in answers.withLock { $0 } ? .answer(Self.signedOffer(1)) : .hang }
        let clock = TestClock(Fixtures.now)
        let router = router(prober, clock: clock, settings: Router.Settings(network: .regtest, perContactTimeoutMilliseconds: 100))
        let late = [Self.contact(1, "late")]
        // A probe started while the timed-out one is still being cancelled would join it.
        func cancelled() async {
            while await router.probesRunning > 0 { try? await Task.sleep(nanoseconds: 1_000_000) }
        }
        let first = await router.probe(late)
        XCTAssertEqual(first.skipped.map(\.reason), [.timedOut(milliseconds: 100)])
        XCTAssertEqual(prober.calls, 1)

        await cancelled()
        clock.advance(by: 30)
        let held = await router.probe(late)
        XCTAssertEqual(held.skipped.map(\.reason), [.timedOutLately(secondsAgo: 30, holdSeconds: 60)])
        XCTAssertEqual(held.probed, 0)
        XCTAssertEqual(held.heldBack, 1, "a caller with no route asks again with refresh")
        XCTAssertEqual(prober.calls, 1, "not asked again within the minute")

        let refreshed = await router.probe(late, refresh: true)
        XCTAssertEqual(refreshed.skipped.map(\.reason), [.timedOut(milliseconds: 100)], "a refresh asks it")
        XCTAssertEqual(prober.calls, 2)

        await cancelled()
        clock.advance(by: 60)
        answers.withLock { $0 = true }
        let answered = await router.probe(late)
        XCTAssertEqual(answered.offers.count, 1, "asked again once the minute is over")
        XCTAssertEqual(prober.calls, 3)
    }

    /// Most contacts are people paid, not providers: once one said it runs no provider, it
    /// is not dialled again for `noProviderHoldSeconds` (600) but by a refresh (the
    /// daemon's background one re-probes every few minutes), and it is listed with the
    /// answer it gave. Before, every payment dialled it, twice when the rail was chosen
    /// before the route.
    func testAContactThatRunsNoProviderIsNotAskedAgainForTenMinutesButByARefresh() async {
        let provides = Mutex(false)
        let prober = ScriptedProber { contact in
            if contact.name == "shop" { return .answer(.skipped(.notAProvider("answered with an endpoints list"))) }
            return provides.withLock { $0 } ? .answer(Self.signedOffer(1, validUntil: Fixtures.now + 3_600)) : .answer(.skipped(.rejected(.notFound)))
        }
        let clock = TestClock(Fixtures.now)
        let router = router(prober, clock: clock)
        let payees = [Self.contact(1, "carol"), Self.contact(2, "shop")]
        let first = await router.probe(payees)
        XCTAssertEqual(first.skipped.map(\.reason), [.rejected(.notFound), .notAProvider("answered with an endpoints list")])
        XCTAssertEqual(first.probed, 2)
        XCTAssertEqual(prober.calls, 2)

        clock.advance(by: 30)
        let held = await router.probe(payees)
        XCTAssertEqual(held.skipped.map(\.reason), [.rejected(.notFound), .notAProvider("answered with an endpoints list")],
                       "listed with the answer each gave")
        XCTAssertEqual(held.probed, 0)
        XCTAssertEqual(held.heldBack, 2, "a caller with no route asks again with refresh")
        XCTAssertEqual(prober.calls, 2, "neither is dialled again within the hold")

        // carol starts a provider: a refresh asks it (and shop) at once.
        provides.withLock { $0 = true }
        let refreshed = await router.probe(payees, refresh: true)
        XCTAssertEqual(refreshed.offers.map(\.contact.name), ["carol"])
        XCTAssertEqual(prober.calls, 4)

        // Past the hold, shop is asked again without a refresh; carol's offer is cached.
        clock.advance(by: 601)
        let later = await router.probe(payees)
        XCTAssertEqual(later.probed, 1)
        XCTAssertEqual(later.fromCache, 1)
        XCTAssertEqual(prober.calls, 5)
    }

    /// Payments that start together each ask for the same provider's offer: one probe
    /// connection answers them all, so a client holds one probe per provider at a time
    /// and the provider's per-pubky share (4) is not spent on duplicates.
    func testConcurrentProbesOfOneContactShareOneProbe() async {
        let prober = ScriptedProber(delayMilliseconds: 100) { _ in .answer(Self.signedOffer(1)) }
        let router = router(prober)
        let provider = Self.contact(1, "prov")
        let reports = await withTaskGroup(of: ProbeReport.self) { group in
            for _ in 0..<5 { group.addTask { await router.probe([provider], refresh: true) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(reports.map(\.offers.count), [1, 1, 1, 1, 1])
        XCTAssertEqual(prober.calls, 1)
        // Once it answered, a new probe asks again.
        _ = await router.probe([provider], refresh: true)
        XCTAssertEqual(prober.calls, 2)
    }

    func testOverallDeadlineReportsTheUnfinished() async {
        let prober = ScriptedProber { $0.name.hasPrefix("hangs") ? .hang : .answer(Self.signedOffer(1)) }
        let contacts = [Self.contact(1, "quick"), Self.contact(2, "hangs-a"), Self.contact(3, "hangs-b")]
        let settings = Router.Settings(network: .regtest, maxConcurrentProbes: 1, perContactTimeoutMilliseconds: 5_000,
                                       overallDeadlineMilliseconds: 300)
        let started = ContinuousClock.now
        let report = await router(prober, settings: settings).probe(contacts)
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(3))
        XCTAssertEqual(report.offers.map(\.contact.name), ["quick"])
        XCTAssertEqual(report.skipped.map(\.reason), [.overallDeadline, .overallDeadline])
    }

    func testCachedOffersLiveForTheirLifetime() async {
        let clock = TestClock(Fixtures.now)
        let prober = ScriptedProber { _ in .answer(Self.signedOffer(1)) }
        let router = router(prober, clock: clock)
        let contacts = [Self.contact(1, "p")]
        _ = await router.probe(contacts)
        let cached = await router.probe(contacts)
        XCTAssertEqual(cached.probed, 0)
        XCTAssertEqual(cached.fromCache, 1, "the caller asks again when a cached offer carries no route")
        XCTAssertEqual(cached.offers.count, 1)
        XCTAssertEqual(prober.calls, 1)
        clock.advance(by: 571) // within the 30 s margin of valid_until: probed again
        let refreshed = await router.probe(contacts)
        XCTAssertEqual(refreshed.probed, 1)
        XCTAssertEqual(refreshed.fromCache, 0)
        XCTAssertEqual(prober.calls, 2)
        let forced = await router.probe(contacts, refresh: true)
        XCTAssertEqual(forced.probed, 1)
        XCTAssertEqual(forced.fromCache, 0)
    }

    func testBackgroundRefreshRunsAtJitteredIntervalsUntilStopped() async throws {
        let prober = ScriptedProber { _ in .answer(Self.signedOffer(1)) }
        let router = router(prober)
        let jitterCalls = RangeRecorder()
        await router.startRefresh(contacts: { [Self.contact(1, "p")] }, intervalMilliseconds: 10...50) { range in
            jitterCalls.record(range)
            return 10
        }
        for _ in 0..<300 where await router.refreshCount < 3 {
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        let refreshes = await router.refreshCount
        XCTAssertGreaterThanOrEqual(refreshes, 3)
        XCTAssertEqual(jitterCalls.first, 10...50)
        let cachedCount = await router.cachedOffers.count
        XCTAssertEqual(cachedCount, 1)
        await router.stopRefresh()
        let isRefreshing = await router.isRefreshing
        XCTAssertFalse(isRefreshing)
        try await Task.sleep(nanoseconds: 30_000_000)
        let callsAfterStop = prober.calls
        try await Task.sleep(nanoseconds: 80_000_000)
        XCTAssertEqual(prober.calls, callsAfterStop, "no probes after stopping")
    }

    /// Audit M-1: a route whose claim fee is above the payer's cap (20 % of the lock) is
    /// skipped with why; the same offer fits a larger amount at the same rate.
    func testARouteWhoseClaimFeeIsAboveTheCapIsSkipped() throws {
        let provider = ProviderOffer(contact: Contact(pubky: Fixtures.identity(1).pubky, host: "h", port: 1, name: "small"),
                                     offer: Signed(signing: Fixtures.offer(provider: Fixtures.identity(1)), with: Fixtures.identity(1)))
        let rate = try FeeRate(satPerKvB: 20_000)
        let small = RouteSelector(amountSat: 8_000, destination: .p2tr, claimFeeRate: rate).rank([provider])
        XCTAssertEqual(small.ranked.count, 0)
        guard case .claimFeeAboveCap(let fee, let cap)? = small.unfit.first?.reason else {
            return XCTFail("\(small.unfit)")
        }
        XCTAssertGreaterThan(fee, cap)
        XCTAssertEqual(cap, (8_000 + fee) / 5)
        XCTAssertTrue(small.unfit[0].reason.description.contains("cap"), small.unfit[0].reason.description)
        let large = RouteSelector(amountSat: 50_000, destination: .p2tr, claimFeeRate: rate).rank([provider])
        XCTAssertEqual(large.ranked.count, 1)
    }
}

private final class RangeRecorder: Sendable {
    private let ranges = Mutex<[ClosedRange<UInt64>]>([])
    func record(_ range: ClosedRange<UInt64>) { ranges.withLock { $0.append(range) } }
    var first: ClosedRange<UInt64>? { ranges.withLock { $0.first } }
}

extension RouterTests {
    /// One probe learns both directions: a two-way provider is a route both ways, a
    /// submarine-only one is kept (it was dropped before) and listed as skipped for reverse
    /// swaps, a reverse-only one as skipped for submarine swaps; a contact with no offer
    /// is skipped in both. The cache keeps the submarine-only offer too.
    func testProbeFilesEachOfferUnderTheDirectionsItRuns() async {
        let offers: [String: ProviderOffer] = [
            "two-way": RailFixtures.provider(1, "two-way"),
            "swap-in": RailFixtures.provider(2, "swap-in", reverse: false),
            "swap-out": RailFixtures.provider(3, "swap-out", submarine: nil),
        ]
        let prober = ScriptedProber { contact in
            guard let provider = offers[contact.name] else { return .answer(.skipped(.notAProvider("no"))) }
            return .answer(.offer(provider.signed!))
        }
        let contacts = ["two-way", "swap-in", "swap-out"].map { offers[$0]!.contact } + [Self.contact(4, "none")]
        let probing = router(prober)
        for round in 1...2 {
            let report = await probing.probe(contacts)
            XCTAssertEqual(report.probed, round == 1 ? 4 : 0,
                           "round \(round): offers come from the cache, and the contact without a provider is not asked again")
            XCTAssertEqual(report.offers.map(\.contact.name), ["two-way", "swap-out"])
            XCTAssertEqual(report.submarineOffers.map(\.contact.name), ["two-way", "swap-in"])
            XCTAssertEqual(report.skipped.map { "\($0.contact.name): \($0.reason)" },
                           ["swap-in: offers no Lightning-to-on-chain swaps", "none: runs no provider: no"])
            XCTAssertEqual(report.submarineSkipped.map { "\($0.contact.name): \($0.reason)" },
                           ["swap-out: offers no on-chain-to-Lightning swaps", "none: runs no provider: no"])
            let submarine = report.submarine(SubmarineSelector(amountSat: 20_000, lockFeeSat: 300))
            XCTAssertEqual(submarine.ranked.map(\.provider.contact.name).sorted(), ["swap-in", "two-way"])
            XCTAssertEqual(submarine.skipped.count, 2)
            let reverse = report.reverse(RouteSelector(amountSat: 20_000, destination: .p2tr, claimFeeRate: Fixtures.rate(2)))
            XCTAssertEqual(reverse.ranked.map(\.provider.contact.name).sorted(), ["swap-out", "two-way"])
        }
    }
}
