import Lightning
import Offers
import Transport

/// Builds each status API answer from the running daemon's services. Read-only: it asks
/// the store, the wallet, the backends and the engines, and changes nothing. A backend
/// that fails is reported in the answer (as `/api/status`'s `errors` and `/api/health`'s
/// attention items), never as a failed request: the page is what one opens to find out.
struct StatusReader: Sendable {
    let services: NodeServices
    let engines: SwapEnginesBox
    let listenAddress: String
    let startedAt: Int64
    /// Recent final swaps `/api/swaps` lists besides the live ones.
    static let recentSwaps = 20

    // MARK: endpoints

    func node() async -> StatusNodeView {
        var errors: [String: String] = [:]
        var tip: Int64?
        do { tip = Int64(try await services.chain.tip().height) } catch { errors["bitcoind"] = error.description }
        var lightning: Int64?
        do { lightning = Int64(try await services.lightning.channelBalance()) } catch { errors["lnd"] = error.description }
        let balance = await services.wallet.balance()
        let capacity = await services.wallet.capacity()
        let live = (try? await services.store.unfinishedSwaps(role: nil).count) ?? 0
        return StatusNodeView(network: services.config.network.rawValue, pubky: services.identity.pubky.z32,
                              listen: listenAddress, provider: services.config.provider.enabled, tipHeight: tip,
                              walletConfirmedSat: balance.confirmed, walletUnconfirmedSat: balance.unconfirmed,
                              walletTotalSat: balance.total, lockableSat: capacity.lockableSat, lightningMsat: lightning,
                              peers: await services.peerServer.connectionCount, swapsInFlight: live, startedAt: startedAt,
                              errors: errors)
    }

    /// Live swaps (oldest first) and the most recent final ones (newest first).
    func swaps() async throws -> (live: [StatusSwapView], recent: [StatusSwapView]) {
        let books = try await StatusBooks.load(from: services.store)
        let tip = try? await services.chain.tip().height
        let names = await contactNames()
        let views = books.swaps.map { swap in
            StatusSwapView(entry: swap.entry, peerName: names[swap.record.peer], stage: swap.last?.kind ?? "created",
                           isFinal: swap.last?.isFinal ?? false, updatedAt: swap.last?.at, timeoutHeight: swap.timeoutHeight,
                           blocksLeft: swap.entry.outcome == .inFlight ? swap.timeoutHeight.flatMap { height in
                               tip.map { height - Int64($0) }
                           } : nil)
        }
        let live = views.filter { $0.entry.outcome == .inFlight }.sorted { $0.entry.createdAt < $1.entry.createdAt }
        let recent = views.filter { $0.entry.outcome != .inFlight }
            .sorted { ($0.entry.endedAt ?? 0, $0.entry.id) > ($1.entry.endedAt ?? 0, $1.entry.id) }
        return (live, Array(recent.prefix(Self.recentSwaps)))
    }

    func health() async -> StatusHealthView {
        var checks = [StatusCheckView(NodeDoctor.dataDirectory(services.config.datadir))]
        var attention: [StatusAttention] = []
        var tip: Int64?
        // The chain backend's own checks: Bitcoin Core's (and its txindex), or the Electrum
        // server's (protocol, network, tip), as `doctor` runs them.
        if let electrum = services.chain as? ElectrumBackend {
            let (check, electrumTip) = await NodeDoctor.electrum(electrum, config: services.config)
            checks.append(StatusCheckView(check))
            tip = electrumTip.map { Int64($0.height) }
            if tip == nil {
                attention.append(check.name == NodeDoctor.electrumLagCheck
                    ? StatusAttention(kind: "backend_lagging", detail: check.detail)
                    : StatusAttention(kind: "backend_down", detail: "the Electrum server does not answer: \(check.detail)"))
            }
        } else {
            do {
                tip = Int64(try await services.chain.tip().height)
                checks.append(StatusCheckView(DoctorCheck("bitcoind", .ok, "Bitcoin Core at \(services.config.bitcoind.url): height \(tip ?? 0)")))
                if let core = services.chain as? BitcoinCoreBackend {
                    checks.append(StatusCheckView(await NodeDoctor.txIndex(rpc: core.rpc)))
                }
            } catch {
                checks.append(StatusCheckView(DoctorCheck("bitcoind", .fatal, error.description,
                                                          fix: "start bitcoind, or check bitcoind_rpc_host/bitcoind_rpc_port")))
                attention.append(StatusAttention(kind: "backend_down", detail: "Bitcoin Core does not answer: \(error.description)"))
            }
        }
        do {
            let status = try await services.lightning.info()
            checks.append(StatusCheckView(DoctorCheck("lnd", .ok, "LND at \(services.config.lnd.url): height \(status.blockHeight)")))
            for check in await NodeDoctor.lndState(services.lightning, status: status) { checks.append(StatusCheckView(check)) }
        } catch {
            checks.append(StatusCheckView(DoctorCheck("lnd", .fatal, error.description, fix: "start LND, or check lnd_rest_host/lnd_rest_port")))
            attention.append(StatusAttention(kind: "backend_down", detail: "LND does not answer: \(error.description)"))
        }
        if let books = try? await StatusBooks.load(from: services.store, unfinishedOnly: true), let tip {
            for swap in books.inFlight {
                if let item = StatusAttention.deadline(swapID: swap.record.id, role: swap.record.role.rawValue,
                                                       stage: swap.last?.kind ?? "created", timeoutHeight: swap.timeoutHeight,
                                                       tip: tip) {
                    attention.append(item)
                }
            }
        }
        if let desk = services.desk {
            let minimum = desk.terms.effectiveMinAmountSat
            let preview = await desk.preview()
            if preview.offer == nil {
                attention.append(StatusAttention(kind: "low_liquidity",
                                                 detail: "the wallet can lock \(preview.state.liquiditySat) sat, below the offer's minimum \(minimum) sat and its lock fee: no offer is made; fund the wallet (`peernode wallet address`)"))
            }
        }
        return StatusHealthView(checks: checks, attention: attention)
    }

    func limits() async -> StatusLimitsView {
        let names = await contactNames()
        if let engine = engines.current.provider as? ProviderEngine {
            let view = await engine.riskView()
            return StatusLimitsView(provider: true, settings: view.settings, active: view.active, names: names)
        }
        return StatusLimitsView(provider: false, settings: RiskLimits.Settings(), active: [], names: names)
    }

    func offers() async -> StatusOfferView {
        guard let desk = services.desk else {
            let capacity = await services.wallet.capacity()
            return StatusOfferView(provider: false, terms: nil, offer: nil, liquiditySat: capacity.lockableSat,
                                   waitingSat: capacity.waitingSat, feeRateSatPerKvB: nil)
        }
        let preview = await desk.preview()
        return StatusOfferView(provider: true, terms: desk.terms, offer: preview.offer, liquiditySat: preview.state.liquiditySat,
                               waitingSat: preview.state.waitingSat, feeRateSatPerKvB: preview.state.feeRate.satPerKvB)
    }

    func earnings() async throws -> StatusEarningsView {
        StatusEarningsView(try await StatusBooks.load(from: services.store).accounting)
    }

    /// Saved contacts' names by pubky (z-base-32), for showing counterparties.
    func contactNames() async -> [String: String] {
        var names: [String: String] = [:]
        for contact in (try? await services.store.contacts()) ?? [] { names[contact.nodeKey.z32] = contact.name }
        return names
    }
}

extension ProviderEngine {
    /// The risk ledger's ceilings and swaps, for the status API's limits.
    func riskView() -> (settings: RiskLimits.Settings, active: [RiskLimits.ActiveSwap]) {
        (risk.settings, risk.activeSwaps)
    }
}
