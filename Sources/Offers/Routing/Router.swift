import Bitcoin
import HTLC
import Synchronization
import Transport

/// Finds the cheapest provider among the contacts.
///
/// Probing asks every contact for its offer in parallel (at most `maxConcurrentProbes` at
/// once, `perContactTimeoutMilliseconds` each, all within `overallDeadlineMilliseconds`),
/// keeps the offers that are properly signed by the contact, for this network, in a
/// supported version and unexpired, and lists every other contact with the reason.
/// Offers are cached until their `valid_until_unix`; a probe asks only contacts without
/// a cached offer, and not those that said lately that they run no provider or gave no
/// answer in time (`Settings`). A cached offer's limits are its provider's balances when it was made:
/// a caller that finds no route through cached offers asks again with `refresh`. A background refresh (`startRefresh`) re-probes at random intervals,
/// so paying usually needs no probe at all and does not show as a burst of them.
public actor Router {
    public struct Settings: Sendable, Hashable {
        public var network: Network
        public var maxConcurrentProbes: Int
        public var perContactTimeoutMilliseconds: UInt64
        public var overallDeadlineMilliseconds: UInt64
        /// A cached offer this close to expiry is probed again rather than used.
        public var cacheMarginSeconds: UInt64
        /// A contact that gave no answer within `perContactTimeoutMilliseconds` is not
        /// probed again for this long, but by a refresh: one that answers late on purpose
        /// (or is down behind a silent network) would otherwise cost every payment the
        /// whole timeout.
        public var timedOutHoldSeconds: UInt64
        /// A contact that answered that it runs no provider (`not_found` to an offer
        /// request, or an answer that is not an offer) is not probed again for this long,
        /// but by a refresh, as an offer is held for its life (10 minutes): most contacts are
        /// people paid, not providers, and every payment would otherwise dial each of them
        /// (twice, when the rail is chosen before the route) to hear the same answer.
        public var noProviderHoldSeconds: UInt64

        public init(network: Network, maxConcurrentProbes: Int = 32, perContactTimeoutMilliseconds: UInt64 = 5_000,
                    overallDeadlineMilliseconds: UInt64 = 15_000, cacheMarginSeconds: UInt64 = 30,
                    timedOutHoldSeconds: UInt64 = 60, noProviderHoldSeconds: UInt64 = 600) {
            self.network = network
            self.maxConcurrentProbes = max(1, maxConcurrentProbes)
            self.perContactTimeoutMilliseconds = perContactTimeoutMilliseconds
            self.overallDeadlineMilliseconds = overallDeadlineMilliseconds
            self.cacheMarginSeconds = cacheMarginSeconds
            self.timedOutHoldSeconds = timedOutHoldSeconds
            self.noProviderHoldSeconds = noProviderHoldSeconds
        }
    }

    public let settings: Settings
    private let prober: any OfferProber
    private let sleeper: any Sleeper
    private let clock: any UnixClock
    private var cache: [Pubky: ProviderOffer] = [:]
    /// Probes running now, by contact: a second ask for the same contact waits for the
    /// first one's answer instead of opening a connection of its own (payments that start
    /// together would each probe, and a provider lets one pubky hold only 4 connections).
    private var probing: [Contact: Task<ProbeResult, Never>] = [:]
    private var refreshTask: Task<Void, Never>?
    private var refreshes = 0
    /// Descriptors whose provider's signed offer cost more than they said, with why: not
    /// used again (nor the provider asked again) until it publishes another one.
    private var dishonoured: [Pubky: (terms: Offer, reason: SkipReason)] = [:]
    /// Each contact whose last answer holds it back, with that answer and when it came: no
    /// answer in time, or that it runs no provider. Only the latest answer counts.
    private var heldBack: [Pubky: (at: UInt64, reason: SkipReason)] = [:]

    public init(settings: Settings, prober: any OfferProber, sleeper: any Sleeper, clock: any UnixClock) {
        self.settings = settings
        self.prober = prober
        self.sleeper = sleeper
        self.clock = clock
    }

    /// Offers from the cache and, for contacts without a usable cached one (all of them
    /// when `refresh`), from their published descriptors (`published`, by node key: ranked
    /// without asking them anything) or else from probing; with `probeUnpublished` false a
    /// contact that publishes no descriptor is skipped instead (`private_discovery`).
    public func probe(_ contacts: [Contact], refresh: Bool = false, published: [Pubky: CapabilityDescriptor] = [:],
                      probeUnpublished: Bool = true, unpublishedReasons: [Pubky: String] = [:]) async -> ProbeReport {
        let now = clock.nowUnix
        var report = ProbeReport()
        var toProbe: [Contact] = []
        for contact in uniqued(contacts) {
            if !refresh, let cached = cache[contact.pubky], cached.contact == contact,
               cached.terms.validUntilUnix >= now + settings.cacheMarginSeconds {
                report.add(cached)
                report.fromCache += 1
            } else if let descriptor = published[contact.pubky], descriptor.network == settings.network.rawValue,
                      descriptor.expiresAtUnix >= now {
                let provider = ProviderOffer(contact: contact, descriptor: descriptor)
                if let refused = dishonoured[contact.pubky], refused.terms == provider.terms {
                    report.skip(SkippedContact(contact: contact, reason: refused.reason))
                } else {
                    report.add(provider)
                    report.fromDescriptors += 1
                }
            } else if !refresh, let last = heldBack[contact.pubky], let hold = holdSeconds(after: last.reason),
                      now < last.at + hold {
                // A silent one says so with its age; one that runs no provider, as it said it.
                let reason: SkipReason = if case .timedOut = last.reason {
                    .timedOutLately(secondsAgo: now >= last.at ? now - last.at : 0, holdSeconds: hold)
                } else {
                    last.reason
                }
                report.skip(SkippedContact(contact: contact, reason: reason))
                report.heldBack += 1
            } else if !probeUnpublished {
                report.skip(SkippedContact(contact: contact, reason: .noDescriptor(
                    unpublishedReasons[contact.pubky] ?? "it publishes no capability descriptor")))
            } else {
                toProbe.append(contact)
            }
        }
        let results = await probeAll(toProbe)
        let checkedAt = clock.nowUnix
        for (contact, result) in zip(toProbe, results) {
            heldBack[contact.pubky] = nil
            let reason: SkipReason
            switch result {
            case .offer(let offer):
                // Its signature was checked by the probe's own task (`probeAll`).
                guard let problem = termsProblem(offer, nowUnix: checkedAt) else {
                    let provider = ProviderOffer(contact: contact, offer: offer)
                    cache[contact.pubky] = provider
                    report.add(provider)
                    continue
                }
                reason = problem
            case .skipped(let skipped):
                reason = skipped
            }
            // The contact's latest answer is no usable offer: its old one is no longer
            // something to route through.
            cache[contact.pubky] = nil
            if holdSeconds(after: reason) != nil { heldBack[contact.pubky] = (checkedAt, reason) }
            report.skip(SkippedContact(contact: contact, reason: reason))
        }
        report.probed = toProbe.count
        return report
    }

    /// Probes (or reads the cache or the descriptors) and picks the cheapest route for
    /// paying `selector`'s X.
    public func route(_ selector: RouteSelector, contacts: [Contact], refresh: Bool = false,
                      published: [Pubky: CapabilityDescriptor] = [:], probeUnpublished: Bool = true,
                      unpublishedReasons: [Pubky: String] = [:]) async -> RouteDecision {
        let report = await probe(contacts, refresh: refresh, published: published, probeUnpublished: probeUnpublished,
                                 unpublishedReasons: unpublishedReasons)
        let (ranked, unfit) = selector.rank(report.offers)
        return RouteDecision(ranked: ranked, skipped: report.skipped + unfit, probed: report.probed,
                             fromDescriptors: report.fromDescriptors, fromCache: report.fromCache, heldBack: report.heldBack)
    }

    /// A provider ranked from its descriptor, asked alone for its signed offer (the only
    /// contact this asks), which is checked as a probe's and cached; a provider with a
    /// signed offer already is returned as it is.
    public func confirm(_ provider: ProviderOffer) async -> Result<ProviderOffer, SkipReason> {
        guard provider.fromDescriptor else { return .success(provider) }
        let contact = provider.contact
        let perContact = settings.perContactTimeoutMilliseconds
        let result = await Deadline.run(milliseconds: perContact, sleeper: sleeper,
                                        onTimeout: .skipped(.timedOut(milliseconds: perContact))) {
            await self.sharedProbe(contact, prober: self.prober, timeoutMilliseconds: perContact)
        }
        switch result {
        case .offer(let offer):
            if let reason = check(offer, from: contact, nowUnix: clock.nowUnix) { return .failure(reason) }
            let confirmed = ProviderOffer(contact: contact, offer: offer)
            cache[contact.pubky] = confirmed
            return .success(confirmed)
        case .skipped(let reason):
            return .failure(reason)
        }
    }

    /// `candidate` priced again on its provider's signed offer (`confirm`), or why not: the
    /// offer's reason, or `descriptorNotHonoured` when it costs more than the descriptor
    /// that ranked it said.
    public func confirm<Candidate: PricedCandidate>(
        _ candidate: Candidate, price: (ProviderOffer) -> Result<Candidate, SkipReason>
    ) async -> Result<Candidate, SkipReason> {
        guard candidate.provider.fromDescriptor else { return .success(candidate) }
        switch await confirm(candidate.provider) {
        case .failure(let reason):
            return .failure(reason)
        case .success(let provider):
            switch price(provider) {
            case .failure(let reason):
                return .failure(reason)
            case .success(let priced):
                guard priced.totalCostSat <= candidate.totalCostSat else {
                    let reason = SkipReason.descriptorNotHonoured(advertisedSat: candidate.totalCostSat, offeredSat: priced.totalCostSat)
                    // Its offer is not routed through for this descriptor, now or on the next pass.
                    cache[provider.contact.pubky] = nil
                    dishonoured[provider.contact.pubky] = (candidate.provider.terms, reason)
                    return .failure(reason)
                }
                return .success(priced)
            }
        }
    }

    /// Probes still running (a timed-out one until its cancellation is through): a probe of
    /// the same contact started meanwhile joins it and gets its answer.
    var probesRunning: Int { probing.count }

    /// Offers in the cache now, unexpired.
    public var cachedOffers: [ProviderOffer] {
        let now = clock.nowUnix
        return cache.values.filter { $0.terms.validUntilUnix >= now }
    }

    /// Completed background refresh rounds.
    public var refreshCount: Int { refreshes }

    /// Re-probes `contacts()` after each wait of `jitter(intervalMilliseconds)` until
    /// `stopRefresh`. The wait is random (the jitter is injected so tests can fix it), so
    /// probes do not line up with payments. Replaces a refresh already running.
    public func startRefresh(contacts: @escaping @Sendable () async -> [Contact],
                             intervalMilliseconds: ClosedRange<UInt64>,
                             jitter: @escaping @Sendable (ClosedRange<UInt64>) -> UInt64 = { UInt64.random(in: $0) }) {
        refreshTask?.cancel()
        let sleeper = self.sleeper
        refreshTask = Task { [weak self] in
            while !Task.isCancelled {
                do {
                    try await sleeper.sleep(milliseconds: jitter(intervalMilliseconds))
                } catch {
                    return
                }
                guard !Task.isCancelled, let router = self else { return }
                let list = await contacts()
                _ = await router.probe(list, refresh: true)
                await router.countRefresh()
            }
        }
    }

    public func stopRefresh() {
        refreshTask?.cancel()
        refreshTask = nil
    }

    public var isRefreshing: Bool { refreshTask != nil }

    private func countRefresh() { refreshes += 1 }

    /// Why `offer` from `contact` is not usable, or nil.
    func check(_ offer: Signed<Offer>, from contact: Contact, nowUnix: UInt64) -> SkipReason? {
        Self.signatureProblem(offer, from: contact) ?? termsProblem(offer, nowUnix: nowUnix)
    }

    /// Why `offer` is not `contact`'s own signed offer, or nil. Pure and nonisolated: the
    /// costliest check (an ed25519 verification over the offer's canonical bytes), made by
    /// each probe's task as its answer comes, so the checks of a route's offers run on
    /// every core instead of one after another in this actor once all have come.
    nonisolated static func signatureProblem(_ offer: Signed<Offer>, from contact: Contact) -> SkipReason? {
        guard offer.body.providerPubky == contact.pubky else { return .invalidOffer("signed for another identity") }
        guard offer.isSigned(by: contact.pubky) else { return .invalidOffer("the signature does not verify") }
        return nil
    }

    /// Why the terms of an offer whose signature checked out are not usable now, or nil.
    private func termsProblem(_ offer: Signed<Offer>, nowUnix: UInt64) -> SkipReason? {
        let body = offer.body
        guard ProtocolVersion.supported.contains(body.protocolVersion) else {
            return .incompatibleVersion(body.protocolVersion)
        }
        guard body.network == settings.network.rawValue else { return .otherNetwork(body.network) }
        // A provider running only `onchain_to_ln` is a route for submarine swaps; `probe`
        // lists it apart from the reverse offers.
        guard SwapDirection.allCases.contains(where: body.supports) else {
            return .notAProvider("offers no swap direction this node runs")
        }
        guard body.validUntilUnix >= nowUnix else { return .offerExpired }
        guard body.minAmountSat <= body.maxAmountSat else { return .invalidOffer("empty amount range") }
        return nil
    }

    /// How long an answer keeps its contact from being probed again but by a refresh: no
    /// answer in time, or that it runs no provider; nil for every other answer.
    private func holdSeconds(after reason: SkipReason) -> UInt64? {
        if case .timedOut = reason { return settings.timedOutHoldSeconds }
        return reason.saysNoProvider ? settings.noProviderHoldSeconds : nil
    }

    private func uniqued(_ contacts: [Contact]) -> [Contact] {
        var seen: Set<Pubky> = []
        return contacts.filter { seen.insert($0.pubky).inserted }
    }

    /// The answer of the probe of `contact` running now, or of a new one, forgotten once
    /// it answers. The caller that started it owns it: when that caller's deadline cancels
    /// it, the probe is cancelled as before, and those who joined get its answer (a
    /// timeout) too, as they would have got their own a moment later.
    private func sharedProbe(_ contact: Contact, prober: any OfferProber, timeoutMilliseconds: UInt64) async -> ProbeResult {
        if let running = probing[contact] { return await running.value }
        let task = Task { await prober.probe(contact, timeoutMilliseconds: timeoutMilliseconds) }
        probing[contact] = task
        let result = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        probing[contact] = nil
        return result
    }

    /// One result per contact, in order; every offer among them is signed by its contact
    /// (`signatureProblem`, checked by the probe's task). Contacts not done by the overall
    /// deadline are `overallDeadline`.
    private func probeAll(_ contacts: [Contact]) async -> [ProbeResult] {
        guard !contacts.isEmpty else { return [] }
        let collected = ProbeCollector(count: contacts.count)
        let prober = self.prober
        let sleeper = self.sleeper
        let perContact = settings.perContactTimeoutMilliseconds
        let width = min(settings.maxConcurrentProbes, contacts.count)
        _ = await Deadline.run(milliseconds: settings.overallDeadlineMilliseconds, sleeper: sleeper, onTimeout: false) {
            await withTaskGroup(of: Void.self) { group in
                var next = 0
                func addProbe() {
                    let index = next
                    next += 1
                    let contact = contacts[index]
                    group.addTask {
                        let result = await Deadline.run(milliseconds: perContact, sleeper: sleeper,
                                                        onTimeout: .skipped(.timedOut(milliseconds: perContact))) {
                            await self.sharedProbe(contact, prober: prober, timeoutMilliseconds: perContact)
                        }
                        // An offer that is not the contact's own is skipped here, off the actor.
                        if case .offer(let offer) = result, let reason = Self.signatureProblem(offer, from: contact) {
                            collected.set(index, .skipped(reason))
                        } else {
                            collected.set(index, result)
                        }
                    }
                }
                for _ in 0..<width { addProbe() }
                for await _ in group where next < contacts.count && !Task.isCancelled {
                    addProbe()
                }
            }
            return true
        }
        return collected.results(missing: .skipped(.overallDeadline))
    }
}

/// Results written by concurrent probe tasks, read once the probing ends (or its deadline).
private final class ProbeCollector: Sendable {
    private let slots: Mutex<[ProbeResult?]>

    init(count: Int) {
        slots = Mutex([ProbeResult?](repeating: nil, count: count))
    }

    func set(_ index: Int, _ result: ProbeResult) {
        slots.withLock { $0[index] = result }
    }

    func results(missing: ProbeResult) -> [ProbeResult] {
        slots.withLock { $0.map { $0 ?? missing } }
    }
}
