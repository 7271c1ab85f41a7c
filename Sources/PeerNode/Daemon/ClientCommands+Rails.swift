import Bitcoin
import HTLC
import Offers
import Transport

extension ClientCommands {
    /// What `pay`, `quote` and `max` decide a route from: the contact's rails, the two
    /// balances and the fee estimates, read once per command (docs/ROUTING.md).
    struct RailInputs: Sendable {
        let payee: PayeeRails
        /// Confirmed savings the wallet can spend now (`WalletCapacity.lockableSat`).
        let savingsSat: Int64
        /// The Lightning spending balance; 0 when it cannot be read.
        let spendingSat: Int64
        /// The miner fee of sending X straight to the contact's address (0 when it takes none).
        let onchainSendFeeSat: Int64
        /// The lock transaction's miner fee for a submarine swap of X, as the engine funds it.
        let lockFeeSat: Int64
    }

    /// Reads the balances and estimates for paying X to a contact with `rails`.
    func railInputs(rails: ContactRails, amountSat: Int64, progress: CommandProgress) async throws(ControlError) -> RailInputs {
        try await railInputs(payee: PayeeRails(onchain: rails.onchain != nil, lightning: rails.lightning != nil),
                             address: rails.onchain, amountSat: amountSat, progress: progress)
    }

    /// The same for a payee that takes `payee`, `address` being its on-chain address if any
    /// (`swap-in`: this node's own invoice, Lightning only).
    func railInputs(payee: PayeeRails, address: Address?, amountSat: Int64,
                    progress: CommandProgress) async throws(ControlError) -> RailInputs {
        let wallet = services.wallet
        // A stale view could miss coins just received; a failed sync leaves the last one.
        _ = try? await wallet.sync()
        let savings = await wallet.capacity().lockableSat
        var spending: Int64 = 0
        do {
            spending = Int64(clamping: try await services.lightning.spendableBalance() / 1_000)
        } catch {
            // A submarine swap needs no Lightning of ours; every route spending it is out.
            progress.stage("routing", "the spending balance cannot be read (\(error)); routes spending it are left out")
        }
        var sendFee: Int64 = 0
        if let address {
            sendFee = try await directSendFee(to: address, amountSat: amountSat)
        }
        return RailInputs(payee: payee, savingsSat: savings, spendingSat: spending, onchainSendFeeSat: sendFee,
                          lockFeeSat: try await submarineLockFee(amountSat: amountSat))
    }

    /// The fee a direct send of X would pay now (the wallet's own coin selection); when the
    /// savings do not cover it, what a one-input send would cost, so the chooser still sees
    /// the route and says the balance is short.
    private func directSendFee(to address: Address, amountSat: Int64) async throws(ControlError) -> Int64 {
        let rate = try await feeRate(target: Self.directSendTarget, purpose: "an on-chain payment")
        let encoded = address.encoded(for: services.config.network)
        do {
            return try await services.wallet.previewSend(to: encoded, amount: amountSat, feeRate: rate).fee
        } catch .insufficientFunds(let needed, _) {
            return Swift.max(0, needed - amountSat)
        } catch {
            return rate.fee(forVirtualSize: Self.typicalSendVirtualSize)
        }
    }

    /// The lock's miner fee as the submarine engine will pay it: one contract output and
    /// change at its lock rate (a contract output has the size of a P2TR one either type).
    func submarineLockFee(amountSat: Int64) async throws(ControlError) -> Int64 {
        let target = submarine?.configuration.lockFeeTargetBlocks ?? 2
        let rate = try await feeRate(target: target, purpose: "the lock")
        let contractSized = TransactionOutput(value: amountSat, scriptPubKey: Self.contractSizedScript)
        if let selection = try? await services.wallet.select(paying: [contractSized], feeRate: rate) {
            return selection.fee
        }
        return rate.fee(forVirtualSize: Self.typicalSendVirtualSize)
    }

    /// One P2TR input, a P2TR payment and P2TR change: the estimate when the wallet cannot
    /// select coins for the amount (it is then short anyway).
    static let typicalSendVirtualSize = 154

    func feeRate(target: Int, purpose: String) async throws(ControlError) -> FeeRate {
        do {
            return try await services.feeEstimator.feeRate(targetBlocks: target)
        } catch {
            throw .backend("no fee estimate for \(purpose): \(error); nothing was paid")
        }
    }

    /// The route for paying X (`RailChooser`). Direct routes need no provider, so the
    /// contacts are asked for offers only when no direct route fits (or a contract type
    /// asks for a swap): a payment from a balance that covers it tells no contact anything.
    func chooseRail(contact name: String, address: Address?, inputs: RailInputs, amountSat: Int64, options: SwapOptions,
                    progress: CommandProgress, refresh: Bool = false) async throws(ControlError) -> RailPlan {
        let source = options.source
        func chooser(_ reverse: RankedCandidates<RouteCandidate>, _ submarine: RankedCandidates<SubmarineCandidate>) -> RailChooser {
            RailChooser(contact: name, payee: inputs.payee, amountSat: amountSat, savingsSat: inputs.savingsSat,
                        spendingSat: inputs.spendingSat, source: source, onchainSendFeeSat: inputs.onchainSendFeeSat,
                        routingFee: engine.configuration.routingFee, reverse: reverse, submarine: submarine,
                        quotePolicy: engine.configuration.quotePolicy, maxFeeSat: options.maxFeeSat,
                        // A contract type is a swap's: the direct routes are not taken.
                        swapsOnly: options.contractType != nil)
        }
        if options.contractType == nil, let plan = try? chooser(RankedCandidates(), RankedCandidates()).choose(),
           plan.option.isDirect {
            return plan
        }
        let candidates = try await routeCandidates()
        let discovery = await services.discovery(for: candidates)
        progress.stage("routing", "asking \(candidates.count) contact(s) for swap offers"
                       + (options.contractType.map { " with a \($0.rawValue) contract" } ?? "")
                       + (discovery.published.isEmpty ? "" : " (\(discovery.published.count) publish a capability descriptor)"))
        let report = await services.router.probe(candidates, refresh: refresh, published: discovery.published,
                                                 probeUnpublished: discovery.probeUnpublished,
                                                 unpublishedReasons: discovery.reasons)
        progress.stage("routing", Self.discoveryLine(
            candidates: candidates.count, fromDescriptors: report.fromDescriptors, probed: report.probed,
            heldBack: report.heldBack, skippedUnpublished: report.skipped.filter { if case .noDescriptor = $0.reason { true } else { false } }.count))
        var reverseSelector: RouteSelector?
        if inputs.payee.onchain, source != .savings {
            let rate = try await feeRate(target: engine.configuration.claimFeeTargetBlocks, purpose: "the claim")
            let destination = try address.map(Self.destinationType) ?? .p2tr
            reverseSelector = RouteSelector(amountSat: amountSat, destination: destination, claimFeeRate: rate,
                                            routingFee: engine.configuration.routingFee, contractType: options.contractType,
                                            claimPolicy: engine.configuration.claimPolicy)
        }
        var submarineSelector: SubmarineSelector?
        if inputs.payee.lightning, source != .spending, self.submarine != nil {
            submarineSelector = SubmarineSelector(amountSat: amountSat, lockFeeSat: inputs.lockFeeSat,
                                                  contractType: options.contractType)
        }
        // Providers ranked from their descriptors are confirmed one at a time, the chosen one
        // only: each that fails (or does not honour its descriptor) is skipped and the route
        // chosen again.
        var reverse = reverseSelector.map(report.reverse) ?? RankedCandidates()
        var submarine = submarineSelector.map(report.submarine) ?? RankedCandidates()
        while true {
            let plan: RailPlan
            do {
                plan = try chooser(reverse, submarine).choose()
            } catch {
                // A cached offer's limits are the provider's balances when it made it (a
                // provider paid on Lightning a moment ago may list onchain_to_ln now): before
                // refusing, the contacts are asked once more.
                if !refresh, report.fromCache + report.heldBack > 0 {
                    progress.stage("routing", Self.askingAgainLine(cached: report.fromCache, heldBack: report.heldBack))
                    return try await chooseRail(contact: name, address: address, inputs: inputs, amountSat: amountSat,
                                                options: options, progress: progress, refresh: true)
                }
                for verdict in error.verdicts { progress.stage("routing", verdict.description) }
                throw ControlError(code: Self.refusalCode(error), message: error.description + "; nothing was paid")
            }
            switch plan.route {
            case .reverseSwap(let choice) where choice.provider.fromDescriptor:
                guard let reverseSelector else { return plan }
                reverse = await confirmed(choice, in: reverse, price: { reverseSelector.price($0) }, progress: progress)
            case .submarineSwap(let choice) where choice.provider.fromDescriptor:
                guard let submarineSelector else { return plan }
                submarine = await confirmed(choice, in: submarine, price: { submarineSelector.price($0) }, progress: progress)
            default:
                return plan
            }
        }
    }

    /// The balances, estimates and route for paying X to a contact with `rails`, the
    /// route's reason said as a progress line.
    func planRoute(contact name: String, rails: ContactRails, amountSat: Int64, options: SwapOptions,
                   progress: CommandProgress) async throws(ControlError) -> (inputs: RailInputs, plan: RailPlan) {
        let inputs = try await railInputs(rails: rails, amountSat: amountSat, progress: progress)
        let plan = try await chooseRail(contact: name, address: rails.onchain, inputs: inputs, amountSat: amountSat,
                                        options: options, progress: progress)
        progress.stage("route", plan.reason)
        return (inputs, plan)
    }

    /// `candidates` after the descriptor-ranked `choice` is asked alone for its signed offer
    /// (`Router.confirm`): priced on it, or skipped with the reason, said in a progress line.
    private func confirmed<Candidate: PricedCandidate & Equatable>(
        _ choice: Candidate, in candidates: RankedCandidates<Candidate>,
        price: @Sendable (ProviderOffer) -> Result<Candidate, SkipReason>, progress: CommandProgress
    ) async -> RankedCandidates<Candidate> {
        progress.stage("routing", "\(choice.provider.contact.name) was ranked from its published descriptor; "
                       + "asking it alone for its signed offer")
        let outcome = await services.router.confirm(choice, price: price)
        if case .failure(let reason) = outcome {
            progress.stage("routing", "skipped \(choice.provider.contact.name): \(Self.describe(reason))")
        }
        return candidates.confirming(choice, outcome)
    }

    /// `no_route` when a provider is missing, `not_paid` when only balances are short (as
    /// every refusal that moved nothing said before the rail chooser).
    static func refusalCode(_ refusal: RailRefusal) -> String {
        switch refusal {
        case .balancesTooSmall: return "not_paid"
        case .invalidAmount: return "invalid_request"
        case .payeeTakesNoRail, .noRoute: return "no_route"
        }
    }

    /// The plan as a command's result says it: the route, the reason, every verdict.
    static func railJSON(_ plan: RailPlan) -> JSONValue {
        .object([
            "option": .string(plan.option.rawValue), "source": .string(plan.source.rawValue),
            "rail": .string(plan.rail.name), "reason": .string(plan.reason), "cost_sat": .integer(plan.costSat),
            "spend_sat": .integer(plan.spendSat),
            "verdicts": .array(plan.verdicts.map { .object(["option": .string($0.option.rawValue), "why": .string($0.why)]) }),
        ])
    }
}
