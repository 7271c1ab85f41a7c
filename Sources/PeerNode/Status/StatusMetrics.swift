import Offers
import Transport

/// `/metrics`: the node in Prometheus' text format. Swap counts and fees come from the
/// store (`StatusBooks`), so they survive a restart and never decrease; peer, probe and
/// quote counters are the running process's (they start again at 0 with the daemon, which
/// Prometheus' `rate()` reads as a counter reset). Amounts are in sat (`_sat`), routing
/// fees with their msat as three decimals; latencies in seconds. docs/STATUS.md lists
/// every family.
struct StatusMetrics {
    let reader: StatusReader

    func render() async throws -> String {
        let services = reader.services
        let books = try await StatusBooks.load(from: services.store)
        var out = PrometheusText()

        // Swaps by role, direction and outcome: every combination present, zeros included,
        // so a dashboard's query sees the series before the first swap of a kind.
        var counts: [String: Int] = [:]
        for swap in books.swaps { counts[Self.key(swap), default: 0] += 1 }
        var swapSamples: [([(String, String)], String)] = []
        for role in SwapRole.allCases {
            for direction in SwapDirection.allCases {
                for outcome in AccountingOutcome.allCases where outcome != .inFlight {
                    let key = "\(role.rawValue)|\(direction.rawValue)|\(outcome.rawValue)"
                    swapSamples.append(([("role", role.rawValue), ("direction", direction.rawValue),
                                         ("outcome", outcome.rawValue)], String(counts[key] ?? 0)))
                }
            }
        }
        out.family("peernode_swaps_total", .counter, "Swaps that reached a final state, by role, direction and outcome (from the store).",
                   swapSamples)
        // A count of its own rather than a move from `failed` to `lost` above: a counter
        // never goes down, and this is the one to alert on.
        let settledLate = books.swaps.filter { Self.settledAfterItsEnd($0.entry, submarine: Self.isSubmarine($0)) }.count
        out.family("peernode_client_payments_settled_after_end_total", .counter,
                   "Client swaps that ended with their payment held, whose payment the provider settled after (lost; from the store).",
                   value: Int64(settledLate))
        let live = books.inFlight
        out.family("peernode_swaps_in_flight", .gauge, "Swaps not final yet, by role.", SwapRole.allCases.map { role in
            ([("role", role.rawValue)], String(live.filter { $0.record.role == role }.count))
        })

        let final = books.swaps.map(\.entry).filter { $0.outcome != .inFlight }
        let earned = final.filter { $0.role == .provider }.reduce(Int64(0)) { $0 + $1.serviceFeeSat }
        out.family("peernode_fees_earned_sat_total", .counter, "Service fees earned as a provider, sat (from the store).", value: earned)
        let servicePaid = final.filter { $0.role == .client }.reduce(Int64(0)) { $0 + $1.serviceFeeSat }
        let onchainPaid = final.reduce(Int64(0)) { $0 + $1.onchainFeesSat }
        let routingPaid = final.reduce(Int64(0)) { $0 + ($1.routingFeeMsat ?? 0) }
        out.family("peernode_fees_paid_sat_total", .counter,
                   "Fees paid, sat, by kind: service fees to providers, on-chain fees (lock, claim, refund), Lightning routing fees (from the store).",
                   [([("kind", "service")], String(servicePaid)), ([("kind", "onchain")], String(onchainPaid)),
                    ([("kind", "routing")], PrometheusText.sat(fromMsat: routingPaid))])

        let limits = await reader.limits()
        out.family("peernode_exposure_sat", .gauge, "Locked amounts of the provider's paid, unfinished swaps, sat.", value: limits.exposureSat)
        out.family("peernode_exposure_limit_sat", .gauge, "The provider's ceiling on exposure, sat.", value: limits.settings.maxExposureSat)
        out.family("peernode_provider_swaps_active", .gauge, "Swaps in the provider's risk ledger (unpaid accepts included).",
                   value: Int64(limits.swaps))
        out.family("peernode_provider_swaps_limit", .gauge, "The provider's ceiling on concurrent swaps.",
                   value: Int64(limits.settings.maxConcurrentSwaps))

        let balance = await services.wallet.balance()
        let capacity = await services.wallet.capacity()
        out.family("peernode_liquidity_onchain_sat", .gauge, "On-chain wallet balance, sat, by state (lockable: what a lock may spend now).",
                   [([("state", "confirmed")], String(balance.confirmed)), ([("state", "unconfirmed")], String(balance.unconfirmed)),
                    ([("state", "lockable")], String(capacity.lockableSat))])
        if let msat = try? await services.lightning.channelBalance() {
            out.family("peernode_liquidity_lightning_sat", .gauge, "Lightning channel balance (outbound), sat.",
                       [([], PrometheusText.sat(fromMsat: Int64(msat)))])
        }

        let desk = await services.desk?.counters ?? ProviderDeskCounters()
        out.family("peernode_offer_requests_total", .counter, "Offer requests (probes) answered since the daemon started, by result.",
                   [([("result", "answered")], String(desk.offersAnswered)), ([("result", "refused")], String(desk.offersRefused))])
        out.family("peernode_quotes_total", .counter, "Quote requests since the daemon started, by result.",
                   [([("result", "issued")], String(desk.quotesIssued)), ([("result", "refused")], String(desk.quotesRefused))])

        let peers = await services.peerServer.counters
        out.family("peernode_peer_connections", .gauge, "Peer connections open now.", value: Int64(await services.peerServer.connectionCount))
        out.family("peernode_peer_connections_accepted_total", .counter, "Inbound peer connections accepted since the daemon started.",
                   value: Int64(peers.accepted))
        out.family("peernode_peer_handshake_failures_total", .counter, "Inbound Noise handshakes that failed since the daemon started.",
                   value: Int64(peers.handshakesFailed))
        out.family("peernode_peer_protocol_errors_total", .counter, "Authenticated peers closed for breaking the protocol since the daemon started.",
                   value: Int64(peers.protocolErrors))
        out.family("peernode_peer_refused_total", .counter, "Inbound connections refused by a full budget since the daemon started, by budget.",
                   ConnectionBudgetKind.allCases.map { kind in
                       ([("budget", Self.snakeCase(kind.rawValue))], String(peers.refused[kind] ?? 0))
                   })

        out.histogram("peernode_backend_request_duration_seconds", "Duration of calls to the backends (Bitcoin Core JSON-RPC, LND REST), seconds.",
                      [([("backend", "bitcoind")], services.backendLatency.bitcoind.snapshot),
                       ([("backend", "lnd")], services.backendLatency.lnd.snapshot)])
        return out.text
    }

    /// `handshakesPerHost` -> `handshakes_per_host`: label values in Prometheus' usual case.
    static func snakeCase(_ name: String) -> String {
        var out = ""
        for character in name {
            if character.isUppercase { out += "_" + character.lowercased() } else { out.append(character) }
        }
        return out
    }

    private static func key(_ swap: StatusBooks.Swap) -> String {
        let submarine = isSubmarine(swap)
        let direction: SwapDirection = submarine ? .onchainToLightning : .lightningToOnchain
        return "\(swap.entry.role.rawValue)|\(direction.rawValue)|\(countedOutcome(swap.entry, submarine: submarine).rawValue)"
    }

    private static func isSubmarine(_ swap: StatusBooks.Swap) -> Bool { SwapAccountingEntry.isSubmarine(swap.record.contract) }

    /// The outcome `peernode_swaps_total` counts: the one the final event wrote. A held
    /// payment settled later makes the books say `lost`, but the swap was counted `failed`
    /// when it ended, and a counter never goes down.
    static func countedOutcome(_ entry: SwapAccountingEntry, submarine: Bool) -> AccountingOutcome {
        settledAfterItsEnd(entry, submarine: submarine) ? .failed : entry.outcome
    }

    /// A reverse client swap the books count `lost`: only a payment the provider settled
    /// after the swap ended with it held (`ClientPaymentEnd`) makes one.
    static func settledAfterItsEnd(_ entry: SwapAccountingEntry, submarine: Bool) -> Bool {
        entry.role == .client && entry.outcome == .lost && !submarine
    }
}
