import Bitcoin
import Regtest
import TestSupport
import XCTest

/// Money is only moved, never made or lost: after every step of a long seeded random
/// sequence of invoices, payments, settles, cancels, blocks, outages and funding, the
/// balances, the HTLCs in flight and the fees add up to what was funded, and what is in
/// flight is exactly the payments still in flight.
final class ConservationTests: XCTestCase {
    private struct Issued {
        var payee: String
        var request: String
        var hash: [UInt8]
        var preimage: [UInt8]
    }

    func testRandomOperationsConserveMoney() async throws {
        for seed: UInt64 in [1, 2, 3] {
            try await run(seed: seed, steps: 400)
        }
    }

    private func run(seed: UInt64, steps: Int) async throws {
        var random = SplitMix64(state: seed)
        let world = SimWorld()
        let network = world.network
        let names = ["alice", "bob", "carol"]
        for name in names {
            try network.addNode(name: name, balanceMsat: UInt64.random(in: 0...200_000_000, using: &random))
        }
        var issued = [Issued]()
        var payments = [(payer: String, hash: [UInt8])]()
        var counter: UInt8 = 0
        var outcomes = [String: Int]()

        for step in 0..<steps {
            let name = names.randomElement(using: &random)!
            switch UInt64.random(in: 0..<10, using: &random) {
            case 0, 1:
                counter &+= 1
                let secret = SHA256.hash([counter, UInt8(truncatingIfNeeded: seed), UInt8(step & 0xff), UInt8(step >> 8)])
                let amount = UInt64.random(in: 1...150_000_000, using: &random)
                let expiry = UInt64.random(in: 600...7200, using: &random)
                let cltv = UInt64.random(in: 18...300, using: &random)
                let added = Bool.random(using: &random)
                    ? try network.addHoldInvoice(node: name, paymentHash: SHA256.hash(secret), amountMsat: amount,
                                                 expirySeconds: expiry, cltvExpiry: cltv)
                    : try network.addInvoice(node: name, amountMsat: amount, expirySeconds: expiry,
                                             cltvExpiry: cltv, preimage: secret)
                issued.append(Issued(payee: name, request: added.paymentRequest, hash: added.paymentHash, preimage: secret))
            case 2, 3, 4:
                // Mostly recent invoices: older ones are likelier paid, cancelled or expired.
                guard let target = issued.suffix(6).randomElement(using: &random), target.payee != name else { continue }
                let feeLimit = UInt64.random(in: 0...20_000, using: &random)
                let cltvLimit = UInt32.random(in: 0...400, using: &random)
                do {
                    var updates = try network.sendPayment(from: name, paymentRequest: target.request,
                                                          feeLimitMsat: feeLimit, cltvLimit: cltvLimit,
                                                          timeoutSeconds: 30).makeAsyncIterator()
                    payments.append((name, target.hash))
                    _ = await updates.next()
                    let status = try network.payment(node: name, paymentHash: target.hash)
                    outcomes[status.status.lndName + " " + status.failureReason.lndName, default: 0] += 1
                } catch {
                    outcomes[error.description.prefix(20).description, default: 0] += 1
                }
            case 5:
                guard let target = issued.randomElement(using: &random) else { continue }
                let right = Bool.random(using: &random)
                _ = try? network.settleInvoice(node: target.payee, preimage: right ? target.preimage : preimage(0xee))
            case 6:
                guard let target = issued.randomElement(using: &random) else { continue }
                _ = try? network.cancelInvoice(node: target.payee, paymentHash: target.hash)
            case 7:
                world.mine(to: world.tip + Int.random(in: 1...40, using: &random))
                world.advanceTime(by: UInt64.random(in: 0...120, using: &random))
            case 8:
                try network.setOnline(node: name, Bool.random(using: &random) || Bool.random(using: &random))
            default:
                try network.setBalance(node: name, balanceMsat: UInt64.random(in: 0...200_000_000, using: &random))
            }
            try assertBooksBalance(network, payments: payments, step: step, seed: seed)
        }
        // The sequence reached every kind of ending, or the test proves little.
        XCTAssertGreaterThan(outcomes["SUCCEEDED FAILURE_REASON_NONE", default: 0], 0, "\(outcomes)")
        XCTAssertGreaterThan(outcomes["IN_FLIGHT FAILURE_REASON_NONE", default: 0], 0, "\(outcomes)")
        XCTAssertGreaterThan(outcomes["FAILED FAILURE_REASON_NO_ROUTE", default: 0], 0, "\(outcomes)")
        XCTAssertGreaterThan(outcomes["FAILED FAILURE_REASON_INSUFFICIENT_BALANCE", default: 0], 0, "\(outcomes)")
    }

    private func assertBooksBalance(_ network: LightningNetwork, payments: [(payer: String, hash: [UInt8])],
                                    step: Int, seed: UInt64) throws {
        let balances = network.balances()
        XCTAssertTrue(balances.isConserved, "seed \(seed) step \(step): \(balances)")
        var inFlight: UInt64 = 0
        var seen = Set<[UInt8]>()
        for (payer, hash) in payments where seen.insert(hash + Array(payer.utf8)).inserted {
            let payment = try network.payment(node: payer, paymentHash: hash)
            if payment.status == .inFlight { inFlight += payment.valueMsat + payment.feeMsat }
        }
        XCTAssertEqual(balances.inFlightMsat, inFlight, "seed \(seed) step \(step)")
    }
}
