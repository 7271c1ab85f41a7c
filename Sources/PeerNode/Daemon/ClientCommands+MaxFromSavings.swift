import Bitcoin
import HTLC
import Offers
import Transport

extension ClientCommands {
    /// A quoter for `provider` in `direction`, checked by this node's quote policy.
    func dialQuoter(_ provider: ProviderOffer, direction: SwapDirection) -> DialQuoter {
        DialQuoter(provider: provider, direction: direction, dialer: services.dialer, policy: engine.configuration.quotePolicy,
                   clock: services.clock, timeoutMilliseconds: engine.configuration.requestTimeoutMilliseconds)
    }

    /// `max --from savings [--contact]` (`MaxFromSavings`, docs/ROUTING.md): directly on chain
    /// when the contact takes on-chain (savings less the fee of sweeping every coin to its
    /// address); else (a Lightning contact, or `swap-in` without one) the largest X a
    /// submarine provider's real quotes fit into the savings with the lock's fee.
    func maxFromSavings(contact: SavedContact?, rails: ContactRails?,
                        progress: CommandProgress) async throws(ControlError) -> JSONValue {
        let wallet = services.wallet
        _ = try? await wallet.sync()
        let coins = await wallet.spendableCoins()
        let savingsSat = coins.reduce(0) { $0 + $1.output.value }
        var result: [String: JSONValue] = ["source": .string("savings"), "savings_sat": .integer(savingsSat),
                                           "coins": .integer(coins.count)]
        if let contact { result["contact"] = .string(contact.name) }
        if let address = rails?.onchain {
            let rate = try await feeRate(target: Self.directSendTarget, purpose: "an on-chain payment")
            let output = TransactionOutput(value: savingsSat, scriptPubKey: address.script)
            let sweepFee = try await sweepFee(coins: coins.count, to: output, rate: rate)
            let dust = wallet.configuration.dustThreshold(for: address.script)
            let direct = MaxFromSavings.directMax(savingsSat: savingsSat, sweepFeeSat: sweepFee, dustLimitSat: dust)
            guard let direct else {
                throw ControlError(code: "insufficient_funds", message: "savings of \(Self.grouped(savingsSat)) sat do not cover the "
                                   + "\(Self.grouped(sweepFee)) sat fee of sending them: nothing can be sent")
            }
            progress.stage("route", "\(contact?.name ?? "the contact") takes on-chain: sent directly from savings")
            result["max_sat"] = .integer(direct)
            result["route"] = .string(RailOption.directOnchain.rawValue)
            result["onchain_fee_sat"] = .integer(sweepFee)
            result["outcome"] = .string("savings less the fee of sending every coin, without change")
            return .object(result)
        }
        guard let submarine else {
            throw .notAvailable("submarine swaps (savings -> Lightning) are not wired into this daemon")
        }
        let lockRate = try await feeRate(target: submarine.configuration.lockFeeTargetBlocks, purpose: "the lock")
        // A contract output has the size of a P2TR one whatever the contract type.
        let contractSized = TransactionOutput(value: savingsSat, scriptPubKey: Self.contractSizedScript)
        let lockSweepFee = try await sweepFee(coins: coins.count, to: contractSized, rate: lockRate)
        let search = MaxFromSavings(savingsSat: savingsSat, lockSweepFeeSat: lockSweepFee)
        let candidates = try await routeCandidates()
        progress.stage("routing", "asking \(candidates.count) contact(s) for on-chain to Lightning offers")
        let report = await services.router.probe(candidates)
        var skipped = report.submarineSkipped.map { RoutePlan.Skip(contact: $0.contact, reason: Self.describe($0.reason)) }
        var settled: [(provider: ProviderOffer, result: MaxSendableResult)] = []
        for provider in report.submarineOffers {
            progress.stage("quoting", "settling the largest amount with \(provider.contact.name)")
            let quoter = dialQuoter(provider, direction: .onchainToLightning)
            let outcome = await search.settle(provider, using: quoter)
            await quoter.close()
            switch outcome {
            case .failure(let reason):
                skipped.append(RoutePlan.Skip(contact: provider.contact, reason: Self.describe(reason)))
            case .success(let found):
                if found.amountSat == nil {
                    skipped.append(RoutePlan.Skip(contact: provider.contact, reason: Self.describe(found.outcome)))
                }
                settled.append((provider, found))
            }
        }
        result["lock_budget_sat"] = .integer(search.lockBudgetSat)
        result["lock_sweep_fee_sat"] = .integer(lockSweepFee)
        result["skipped"] = .array(skipped.map(\.json))
        guard case .submarine(let provider, let amount, let found)? = MaxFromSavings.best(direct: nil, submarine: settled),
              let quote = found.quote else {
            throw ControlError(code: "no_route", message: "no provider can swap any amount of savings of \(Self.grouped(savingsSat)) sat "
                               + "to Lightning (" + (skipped.isEmpty ? "none of \(candidates.count) contact(s) runs one"
                                                      : skipped.map { "\($0.contact.name): \($0.reason)" }.joined(separator: "; ")) + ")")
        }
        result["max_sat"] = .integer(amount)
        result["route"] = .string(RailOption.submarineSwap.rawValue)
        result["outcome"] = .string(Self.describe(found.outcome))
        result["rounds"] = .integer(found.rounds)
        let type = OfferFeature.contractTypes(in: provider.terms.features).first ?? .taprootBoltz
        result["provider"] = RoutePlan.providerJSON(provider.contact, contractType: type)
        result["fees"] = .object([
            "amount_sat": .integer(amount), "service_fee_sat": .integer(quote.serviceFeeSat),
            "provider_onchain_fee_sat": .integer(quote.onchainFeeSat), "lock_total_sat": .integer(quote.totalSat),
            "lock_fee_max_sat": .integer(lockSweepFee),
        ])
        return .object(result)
    }

    /// The fee of one transaction spending `coins` coins to `output` alone (no change), at
    /// `rate`: the most a send of everything can cost.
    private func sweepFee(coins: Int, to output: TransactionOutput, rate: FeeRate) async throws(ControlError) -> Int64 {
        guard coins > 0 else {
            throw ControlError(code: "insufficient_funds", message: "the wallet holds no confirmed coins: nothing can be sent from savings")
        }
        let wallet = services.wallet
        let rate = await wallet.effectiveRate(rate)
        let lockTime = await wallet.antiFeeSnipingLockTime
        return rate.fee(forVirtualSize: TaprootSpendSize.virtualSize(inputCount: coins, outputs: [output], lockTime: lockTime))
    }

    /// A witness v1 program of 32 bytes: a contract output's size for fee estimates.
    static let contractSizedScript = Script(bytes: [0x51, 0x20] + [UInt8](repeating: 0, count: 32))
}
