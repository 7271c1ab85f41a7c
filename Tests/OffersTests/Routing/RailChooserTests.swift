import HTLC
@testable import Offers
import Transport
import XCTest

/// The rail choice for `pay <contact> <sats>`: every combination of what the contact
/// takes, what the wallet holds and `--from`, with the route and its reason line.
final class RailChooserTests: XCTestCase {
    private static let amount: Int64 = 20_000
    private static let sendFee: Int64 = 282
    private static let lockFee: Int64 = 300
    /// carol: 400 + floor(20,000 × 1,500 / 1e6) = 430 service, 380 claim, + the 300 sat lock fee.
    private static let submarineCost: Int64 = 1_110

    private static let carol = RailFixtures.provider(3, "carol", reverse: false)
    private static let bob = RailFixtures.provider(2, "bob", submarine: nil)

    private static func reverse(_ providers: [ProviderOffer] = [bob], amount: Int64 = amount) -> RankedCandidates<RouteCandidate> {
        RouteSelector(amountSat: amount, destination: .p2tr, claimFeeRate: Fixtures.rate(2)).ranked(providers)
    }

    private static func submarine(_ providers: [ProviderOffer] = [carol], amount: Int64 = amount) -> RankedCandidates<SubmarineCandidate> {
        SubmarineSelector(amountSat: amount, lockFeeSat: lockFee).rank(providers)
    }

    private static var reverseCost: Int64 { reverse().ranked[0].totalCostSat }

    private enum Balances: String, CaseIterable {
        case savingsOnly, spendingOnly, both, neitherEnough

        var sats: (savings: Int64, spending: Int64) {
            switch self {
            case .savingsOnly: return (500_000, 0)
            case .spendingOnly: return (0, 500_000)
            case .both: return (500_000, 500_000)
            case .neitherEnough: return (10_000, 10_000)
            }
        }
    }

    private enum Expected: Equatable {
        case route(RailOption, reason: String)
        case balancesTooSmall
    }

    private func chooser(_ payee: PayeeRails, _ balances: Balances, from source: RailSource?) -> RailChooser {
        RailChooser(contact: "erin", payee: payee, amountSat: Self.amount, savingsSat: balances.sats.savings,
                    spendingSat: balances.sats.spending, source: source, onchainSendFeeSat: Self.sendFee,
                    reverse: Self.reverse(), submarine: Self.submarine())
    }

    func testEveryPayeeBalanceAndFromCombination() throws {
        XCTAssertEqual(Self.submarine().ranked[0].totalCostSat, Self.submarineCost)
        let onchainDirect = "erin takes on-chain and savings cover 20,000 sat + 282 sat fee: sending directly from savings"
        let lightningDirect = "erin takes Lightning and spending covers 20,000 sat + 21 sat routing fee: paying directly"
        let reverseCost = OffersError.sats(Self.reverseCost)
        let swapIn = "swapping in through carol, 1,110 sat"
        let swapOut = "swapping out through bob, \(reverseCost)"
        typealias Row = (PayeeRails, Balances, RailSource?, Expected)
        let table: [Row] = [
            // The contact takes only on-chain.
            (.onchainOnly, .savingsOnly, nil, .route(.directOnchain, reason: onchainDirect)),
            (.onchainOnly, .savingsOnly, .savings, .route(.directOnchain, reason: onchainDirect + " (--from savings)")),
            (.onchainOnly, .savingsOnly, .spending, .balancesTooSmall),
            (.onchainOnly, .spendingOnly, nil,
             .route(.reverseSwap, reason: "erin takes only on-chain and the wallet holds only spending funds: " + swapOut)),
            (.onchainOnly, .spendingOnly, .savings, .balancesTooSmall),
            (.onchainOnly, .spendingOnly, .spending, .route(.reverseSwap, reason: "erin takes only on-chain and --from spending: " + swapOut)),
            (.onchainOnly, .both, nil, .route(.directOnchain, reason: onchainDirect)),
            (.onchainOnly, .both, .savings, .route(.directOnchain, reason: onchainDirect + " (--from savings)")),
            (.onchainOnly, .both, .spending, .route(.reverseSwap, reason: "erin takes only on-chain and --from spending: " + swapOut)),
            (.onchainOnly, .neitherEnough, nil, .balancesTooSmall),
            (.onchainOnly, .neitherEnough, .savings, .balancesTooSmall),
            (.onchainOnly, .neitherEnough, .spending, .balancesTooSmall),
            // The contact takes only Lightning.
            (.lightningOnly, .savingsOnly, nil,
             .route(.submarineSwap, reason: "erin takes only Lightning and the wallet holds only savings: " + swapIn)),
            (.lightningOnly, .savingsOnly, .savings, .route(.submarineSwap, reason: "erin takes only Lightning and --from savings: " + swapIn)),
            (.lightningOnly, .savingsOnly, .spending, .balancesTooSmall),
            (.lightningOnly, .spendingOnly, nil, .route(.directLightning, reason: lightningDirect)),
            (.lightningOnly, .spendingOnly, .savings, .balancesTooSmall),
            (.lightningOnly, .spendingOnly, .spending, .route(.directLightning, reason: lightningDirect + " (--from spending)")),
            (.lightningOnly, .both, nil, .route(.directLightning, reason: lightningDirect)),
            (.lightningOnly, .both, .savings, .route(.submarineSwap, reason: "erin takes only Lightning and --from savings: " + swapIn)),
            (.lightningOnly, .both, .spending, .route(.directLightning, reason: lightningDirect + " (--from spending)")),
            (.lightningOnly, .neitherEnough, nil, .balancesTooSmall),
            (.lightningOnly, .neitherEnough, .savings, .balancesTooSmall),
            (.lightningOnly, .neitherEnough, .spending, .balancesTooSmall),
            // The contact takes both: a direct route always exists when a balance covers X.
            (.both, .savingsOnly, nil, .route(.directOnchain, reason: onchainDirect)),
            (.both, .savingsOnly, .savings, .route(.directOnchain, reason: onchainDirect + " (--from savings)")),
            (.both, .savingsOnly, .spending, .balancesTooSmall),
            (.both, .spendingOnly, nil, .route(.directLightning, reason: lightningDirect)),
            (.both, .spendingOnly, .savings, .balancesTooSmall),
            (.both, .spendingOnly, .spending, .route(.directLightning, reason: lightningDirect + " (--from spending)")),
            (.both, .both, nil, .route(.directLightning, reason: lightningDirect + " (cheaper than on-chain, 282 sat)")),
            (.both, .both, .savings, .route(.directOnchain, reason: onchainDirect + " (--from savings)")),
            (.both, .both, .spending, .route(.directLightning, reason: lightningDirect + " (--from spending)")),
            (.both, .neitherEnough, nil, .balancesTooSmall),
            (.both, .neitherEnough, .savings, .balancesTooSmall),
            (.both, .neitherEnough, .spending, .balancesTooSmall),
        ]
        XCTAssertEqual(table.count, 3 * Balances.allCases.count * 3)
        for (payee, balances, source, expected) in table {
            let row = "\(payee.description), \(balances.rawValue), --from \(source?.rawValue ?? "none")"
            let chooser = chooser(payee, balances, from: source)
            switch expected {
            case .route(let option, let reason):
                let plan: RailPlan
                do {
                    plan = try chooser.choose()
                } catch {
                    XCTFail("\(row): refused: \(error)")
                    continue
                }
                XCTAssertEqual(plan.option, option, row)
                XCTAssertEqual(plan.reason, reason, row)
                XCTAssertTrue(payee.takes(plan.rail), "\(row): delivered on a rail the contact takes")
                if let source { XCTAssertEqual(plan.source, source, "\(row): --from is obeyed") }
                assertExact(plan, balances: balances, row: row)
            case .balancesTooSmall:
                XCTAssertThrowsError(try chooser.choose(), row) { error in
                    guard case .balancesTooSmall(let contact, let amount, let verdicts) = error as? RailRefusal else {
                        return XCTFail("\(row): \(error)")
                    }
                    XCTAssertEqual(contact, "erin", row)
                    XCTAssertEqual(amount, Self.amount, row)
                    let open = verdicts.filter(\.isOpen)
                    XCTAssertFalse(open.isEmpty, row)
                    for verdict in open {
                        guard case .balanceTooSmall(let source, let balance, let needed) = verdict.outcome else {
                            return XCTFail("\(row): \(verdict)")
                        }
                        XCTAssertGreaterThan(needed, balance, row)
                        XCTAssertEqual(balance, source == .savings ? balances.sats.savings : balances.sats.spending, row)
                    }
                }
            }
        }
    }

    /// The payee gets exactly X on every route; what leaves the balance is X plus every fee,
    /// and the fees are each route's own parts, added in integers.
    private func assertExact(_ plan: RailPlan, balances: Balances, row: String) {
        XCTAssertEqual(plan.amountSat, Self.amount, row)
        XCTAssertEqual(plan.spendSat, Self.amount + plan.costSat, row)
        switch plan.route {
        case .directOnchain(let fee):
            XCTAssertEqual(fee, Self.sendFee, row)
        case .directLightning(let fee):
            XCTAssertEqual(fee, 1 + 20, "\(row): 1 sat + 1,000 ppm of 20,000")
        case .reverseSwap(let candidate):
            XCTAssertEqual(candidate.amountSat, Self.amount, row)
            XCTAssertEqual(candidate.lockAmountSat, Self.amount + candidate.claimFeeSat, row)
            XCTAssertEqual(plan.spendSat, candidate.spendSat, row)
            XCTAssertEqual(plan.costSat, candidate.serviceFeeSat + candidate.providerOnchainFeeSat + candidate.claimFeeSat
                               + candidate.routingFeeSat, row)
        case .submarineSwap(let candidate):
            XCTAssertEqual(candidate.amountSat, Self.amount, "\(row): the invoice the provider pays is X")
            XCTAssertEqual(candidate.lockAmountSat, 20_810, row)
            XCTAssertEqual(plan.spendSat, 20_810 + Self.lockFee, row)
        }
        let balance = plan.source == .savings ? balances.sats.savings : balances.sats.spending
        XCTAssertLessThanOrEqual(plan.spendSat, balance, "\(row): the source covers it")
    }

    func testARefusalNamesTheBalancesAndWhatEachRouteNeeds() {
        XCTAssertThrowsError(try chooser(.lightningOnly, .neitherEnough, from: nil).choose()) { error in
            XCTAssertEqual("\(error)", "the balances are too small to pay erin 20,000 sat: "
                           + "paying directly on Lightning: spending holds 10,000 sat, 20,021 sat needed; "
                           + "swapping in (savings → Lightning): savings hold 10,000 sat, 21,110 sat needed")
        }
    }

    /// The contact takes only Lightning, the wallet holds only savings, and no contact swaps
    /// savings into Lightning for X: refused with each provider's reason.
    func testNoProviderForTheOnlyRouteIsANoRouteRefusal() {
        let small = RailFixtures.provider(4, "dave", submarine: RailFixtures.submarineTerms(max: 15_000))
        let chooser = RailChooser(contact: "erin", payee: .lightningOnly, amountSat: Self.amount, savingsSat: 500_000,
                                  spendingSat: 0, source: .savings, onchainSendFeeSat: Self.sendFee,
                                  reverse: Self.reverse([Self.bob]),
                                  submarine: Self.submarine([Self.bob, small])
                                      .skipping([SkippedContact(contact: RailFixtures.contact(9, "frank"), reason: .offerExpired)]))
        XCTAssertThrowsError(try chooser.choose()) { error in
            guard case .noRoute(_, _, .lightningOnly, .savings, _) = error as? RailRefusal else { return XCTFail("\(error)") }
            XCTAssertEqual("\(error)", "no route pays erin 20,000 sat (erin takes only Lightning; --from savings): "
                           + "swapping in (savings → Lightning): no provider can (frank: its offer has expired; "
                           + "bob: offers no on-chain-to-Lightning swaps; "
                           + "dave: the largest invoice its offer pays is 15,000 sat (not 20,000 sat))")
        }
    }

    func testAContactTakingNothingAndABadAmountAreRefused() {
        let nothing = RailChooser(contact: "erin", payee: PayeeRails(onchain: false, lightning: false), amountSat: 1,
                                  savingsSat: 1_000, spendingSat: 1_000, onchainSendFeeSat: 1)
        XCTAssertThrowsError(try nothing.choose()) { XCTAssertEqual($0 as? RailRefusal, .payeeTakesNoRail(contact: "erin")) }
        for amount: Int64 in [0, -1, Amounts.maximumSat + 1] {
            let bad = RailChooser(contact: "erin", payee: .both, amountSat: amount, savingsSat: 1_000, spendingSat: 1_000,
                                  onchainSendFeeSat: 1)
            XCTAssertThrowsError(try bad.choose()) { XCTAssertEqual($0 as? RailRefusal, .invalidAmount(amount)) }
        }
    }

    /// Two direct routes at the same cost: the Lightning one, keeping the savings.
    func testADirectTieKeepsTheSavings() throws {
        let chooser = RailChooser(contact: "erin", payee: .both, amountSat: Self.amount, savingsSat: 500_000,
                                  spendingSat: 500_000, onchainSendFeeSat: 21)
        let plan = try chooser.choose()
        XCTAssertEqual(plan.option, .directLightning)
        XCTAssertTrue(plan.reason.hasSuffix("(as cheap as on-chain; savings kept)"), plan.reason)
        XCTAssertEqual(plan.alternatives, [.directOnchain(feeSat: 21)])
        // One sat cheaper on chain: the on-chain send.
        let cheaper = try RailChooser(contact: "erin", payee: .both, amountSat: Self.amount, savingsSat: 500_000,
                                      spendingSat: 500_000, onchainSendFeeSat: 20).choose()
        XCTAssertEqual(cheaper.route, .directOnchain(feeSat: 20))
        XCTAssertTrue(cheaper.reason.hasSuffix("(cheaper than Lightning, 21 sat)"), cheaper.reason)
    }

    /// A direct route beats a swap even when the swap would cost less (a provider fee of 0
    /// and a lock cheaper than the send).
    func testADirectRouteBeatsACheaperSwap() throws {
        let free = RailFixtures.provider(5, "free", submarine: RailFixtures.submarineTerms(base: 0, ppm: 0, onchain: 0),
                                         reverse: false)
        let submarine = SubmarineSelector(amountSat: Self.amount, lockFeeSat: 1).rank([free])
        XCTAssertEqual(submarine.ranked[0].totalCostSat, 1)
        let plan = try RailChooser(contact: "erin", payee: .both, amountSat: Self.amount, savingsSat: 500_000, spendingSat: 0,
                                   onchainSendFeeSat: 5_000, submarine: submarine).choose()
        XCTAssertEqual(plan.route, .directOnchain(feeSat: 5_000))
        XCTAssertEqual(plan.alternatives.map(\.kind), [.submarineSwap])
    }

    /// Between swaps the cheapest total across both directions; a tie keeps the savings.
    func testSwapsAreOrderedByTotalCostThenKeepSavings() throws {
        let reverse = Self.reverse().ranked[0]
        let submarine = Self.submarine().ranked[0]
        XCTAssertTrue(RailChooser.isBetter(.directOnchain(feeSat: 1), than: .reverseSwap(reverse)))
        XCTAssertEqual(RailChooser.isBetter(.reverseSwap(reverse), than: .submarineSwap(submarine)), reverse.totalCostSat < submarine.totalCostSat)
        let free = RailFixtures.provider(5, "free", submarine: RailFixtures.submarineTerms(base: 0, ppm: 0, onchain: 0))
        let tied = try SubmarineSelector(amountSat: Self.amount, lockFeeSat: reverse.totalCostSat).price(free).get()
        XCTAssertEqual(tied.totalCostSat, reverse.totalCostSat)
        XCTAssertTrue(RailChooser.isBetter(.reverseSwap(reverse), than: .submarineSwap(tied)))
        XCTAssertFalse(RailChooser.isBetter(.submarineSwap(tied), than: .reverseSwap(reverse)))
    }

    /// With several submarine providers the cheapest that fits the savings is chosen; one
    /// the savings cannot cover is skipped with the numbers, one above --max-fee or this
    /// node's fee maximum with its own reason.
    func testTheCheapestFittingSubmarineProviderIsChosen() throws {
        let providers = [
            RailFixtures.provider(1, "cheap", submarine: RailFixtures.submarineTerms(base: 10, ppm: 0, onchain: 0)),
            RailFixtures.provider(2, "middle", submarine: RailFixtures.submarineTerms(base: 200, ppm: 0, onchain: 0)),
            RailFixtures.provider(3, "dear", submarine: RailFixtures.submarineTerms(base: 700, ppm: 0, onchain: 0)),
            RailFixtures.provider(4, "greedy", submarine: RailFixtures.submarineTerms(base: 1_001, ppm: 0, onchain: 0)),
        ]
        let submarine = SubmarineSelector(amountSat: Self.amount, lockFeeSat: Self.lockFee).rank(providers)
        // 5% of 20,000 is the policy's maximum fee: greedy's 1,001 is above it.
        let plan = try RailChooser(contact: "erin", payee: .lightningOnly, amountSat: Self.amount, savingsSat: 20_000 + 200 + 300,
                                   spendingSat: 0, onchainSendFeeSat: Self.sendFee, submarine: submarine).choose()
        guard case .submarineSwap(let chosen) = plan.route else { return XCTFail("\(plan.route)") }
        XCTAssertEqual(chosen.provider.contact.name, "cheap")
        XCTAssertEqual(plan.alternatives.map { $0.provider?.contact.name }, ["middle"], "middle fits the savings to the sat")
        XCTAssertEqual(plan.spendSat, 20_000 + 10 + 300)

        let tight = RailChooser(contact: "erin", payee: .lightningOnly, amountSat: Self.amount, savingsSat: 20_000 + 200 + 300 - 1,
                                spendingSat: 0, onchainSendFeeSat: Self.sendFee, submarine: submarine, maxFeeSat: 309)
        XCTAssertThrowsError(try tight.choose()) { error in
            XCTAssertEqual("\(error)", "no route pays erin 20,000 sat (erin takes only Lightning): "
                           + "paying directly on Lightning: spending holds 0 sat, 20,021 sat needed; "
                           + "swapping in (savings → Lightning): no provider can ("
                           + "cheap: its fees come to 310 sat, above --max-fee 309 sat; "
                           + "middle: its fees come to 500 sat, above --max-fee 309 sat; "
                           + "dear: its fees come to 1,000 sat, above --max-fee 309 sat; "
                           + "greedy: charges 1,001 sat in fees, above this node's maximum of 1,000 sat (5% of 20,000 sat))")
        }
        let short = RailChooser(contact: "erin", payee: .lightningOnly, amountSat: Self.amount, savingsSat: 20_000 + 10 + 300 - 1,
                                spendingSat: 0, onchainSendFeeSat: Self.sendFee, submarine: submarine)
        XCTAssertThrowsError(try short.choose()) { error in
            guard case .balancesTooSmall(_, _, let verdicts) = error as? RailRefusal else { return XCTFail("\(error)") }
            XCTAssertEqual(verdicts.first { $0.option == .submarineSwap }?.outcome,
                           .balanceTooSmall(source: .savings, balanceSat: 20_309, neededSat: 20_310))
        }
    }

    func testPayeeRailsFromEndpoints() {
        let pubky = Fixtures.identity(7).pubky
        let endpoints = [Endpoint(address: "bcrt1qgood", network: "regtest"), Endpoint(address: "bc1qother", network: "mainnet"),
                         Endpoint.lightning(pubky: pubky, network: "regtest")]
        XCTAssertEqual(PayeeRails(endpoints: endpoints, network: "regtest") { $0 == "bcrt1qgood" }, .both)
        XCTAssertEqual(PayeeRails(endpoints: endpoints, network: "regtest") { _ in false }, .lightningOnly)
        XCTAssertEqual(PayeeRails(endpoints: endpoints, network: "mainnet") { _ in true }, .onchainOnly)
        let notAPubky = Endpoint(type: Endpoint.lightningType, address: "nope", network: "regtest")
        XCTAssertEqual(PayeeRails(endpoints: [notAPubky], network: "regtest") { _ in true }, PayeeRails(onchain: false, lightning: false))
    }
}
