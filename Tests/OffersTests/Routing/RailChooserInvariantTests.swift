import HTLC
@testable import Offers
import Transport
import XCTest

/// The rail choice's promises over many generated inputs (a fixed seed, so a failure
/// repeats): the payee gets X on a rail it takes, the source obeys `--from` and covers
/// the spend, a fitting direct route is always taken, and the choice is the cheapest of
/// its class.
final class RailChooserInvariantTests: XCTestCase {
    /// SplitMix64: small, deterministic.
    private struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    func testInvariantsOverGeneratedInputs() {
        var random = Generator(state: 16)
        let payees: [PayeeRails] = [.onchainOnly, .lightningOnly, .both]
        let sources: [RailSource?] = [nil, .savings, .spending]
        var seen: Set<String> = []
        for round in 0..<1_500 {
            let amount = Int64.random(in: 1...60_000, using: &random)
            let payee = payees.randomElement(using: &random)!
            let source = sources.randomElement(using: &random)!
            let savings = Int64.random(in: 0...80_000, using: &random)
            let spending = Int64.random(in: 0...80_000, using: &random)
            let sendFee = Int64.random(in: 0...3_000, using: &random)
            let routing = RoutingFeeEstimate(baseSat: Int64.random(in: 0...5, using: &random),
                                             feePPM: Int64.random(in: 0...5_000, using: &random))
            let providers = (0..<Int.random(in: 0...4, using: &random)).map { index in
                RailFixtures.provider(UInt8(10 + index), "p\(index)",
                                      submarine: Bool.random(using: &random) ? nil : RailFixtures.submarineTerms(
                                          min: Int64.random(in: 1...20_000, using: &random),
                                          max: Int64.random(in: 10_000...60_000, using: &random),
                                          base: Int64.random(in: 0...800, using: &random),
                                          ppm: Int64.random(in: 0...5_000, using: &random),
                                          onchain: Int64.random(in: 0...600, using: &random)),
                                      reverse: Bool.random(using: &random))
            }
            let reverse = RouteSelector(amountSat: amount, destination: .p2tr, claimFeeRate: Fixtures.rate(2),
                                        routingFee: routing).ranked(providers.filter { $0.terms.supports(.lightningToOnchain) })
            let submarine = SubmarineSelector(amountSat: amount, lockFeeSat: Int64.random(in: 0...1_000, using: &random))
                .rank(providers)
            let chooser = RailChooser(contact: "erin", payee: payee, amountSat: amount, savingsSat: savings, spendingSat: spending,
                                      source: source, onchainSendFeeSat: sendFee, routingFee: routing, reverse: reverse,
                                      submarine: submarine)
            let row = "round \(round)"
            let lightningDirectFits = payee.lightning && source != .savings && amount + routing.fee(paymentSat: amount) <= spending
            let onchainDirectFits = payee.onchain && source != .spending && amount + sendFee <= savings
            do {
                let plan = try chooser.choose()
                seen.insert(plan.option.rawValue)
                XCTAssertEqual(plan.amountSat, amount, row)
                XCTAssertEqual(plan.spendSat, amount + plan.costSat, row)
                XCTAssertTrue(payee.takes(plan.rail), row)
                if let source { XCTAssertEqual(plan.source, source, row) }
                XCTAssertLessThanOrEqual(plan.spendSat, plan.source == .savings ? savings : spending, row)
                XCTAssertEqual(plan.option.isDirect, lightningDirectFits || onchainDirectFits, "\(row): a fitting direct route wins")
                for other in plan.alternatives where other.kind.isDirect == plan.option.isDirect {
                    XCTAssertLessThanOrEqual(plan.costSat, other.costSat, "\(row): the cheapest of its class")
                }
                if case .submarineSwap(let candidate) = plan.route {
                    XCTAssertEqual(candidate.amountSat, amount, row)
                    XCTAssertEqual(candidate.lockAmountSat, amount + candidate.providerFeeSat, row)
                }
            } catch {
                seen.insert("refused")
                XCTAssertFalse(lightningDirectFits || onchainDirectFits, "\(row): refused with a direct route that fits: \(error)")
                if case .balancesTooSmall(_, _, let verdicts) = error {
                    for verdict in verdicts where verdict.isOpen {
                        guard case .balanceTooSmall(let from, let balance, let needed) = verdict.outcome else {
                            XCTFail("\(row): \(verdict)")
                            continue
                        }
                        XCTAssertEqual(balance, from == .savings ? savings : spending, row)
                        XCTAssertGreaterThan(needed, balance, row)
                    }
                }
            }
        }
        XCTAssertEqual(seen, Set(RailOption.allCases.map(\.rawValue) + ["refused"]), "every outcome was reached")
    }
}
