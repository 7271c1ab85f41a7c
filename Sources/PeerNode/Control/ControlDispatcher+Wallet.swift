import HTLC
import Transport

extension ControlDispatcher {
    /// Confirmation target for `wallet send` when no rate is given: about an hour.
    static let sendConfirmationTarget = 6

    /// Syncs first (a sync already running is joined), so a payment just received shows.
    func walletBalance() async throws(ControlError) -> JSONValue {
        do {
            try await services.wallet.sync()
        } catch {
            throw .backend("the wallet could not follow the chain: \(error)")
        }
        let balance = await services.wallet.balance()
        var result = Self.json(balance)
        if case .object(var members) = result, let tip = await services.wallet.syncedTip {
            members["synced_height"] = .integer(tip.height)
            result = .object(members)
        }
        return result
    }

    func walletAddress() async -> JSONValue {
        let address = await services.wallet.newAddress()
        return .object(["address": .string(address.encoded), "network": .string(services.config.network.rawValue)])
    }

    /// `preview: true` answers what the send would pay (the fee of the transaction it would
    /// broadcast now) and sends nothing; the command line shows it, and its confirmed send
    /// carries `expected_fee_sat`, refused (nothing sent) when the fee built then differs.
    func walletSend(_ args: ControlArgs) async throws(ControlError) -> JSONValue {
        let address = try args.string("address")
        let amount = try args.amount("amount_sat")
        let preview = try args.bool("preview", default: false)
        let expectedFee = try args.optionalInt("expected_fee_sat", in: 0...2_100_000_000_000_000)
        let rate: FeeRate
        if let given = try args.optionalFeeRate("fee_rate_sat_vb") {
            rate = given
        } else {
            do {
                rate = try await services.feeEstimator.feeRate(targetBlocks: Self.sendConfirmationTarget)
            } catch {
                throw .backend("no fee estimate: \(error)")
            }
        }
        do {
            try await services.wallet.sync()
            if preview {
                let plan = try await services.wallet.previewSend(to: address, amount: amount, feeRate: rate)
                return Self.sendJSON(address: address, amount: amount, feeSat: plan.fee, vsize: plan.virtualSize,
                                     extra: ["preview": .bool(true)])
            }
            let sent = try await services.wallet.send(to: address, amount: amount, feeRate: rate, expectedFeeSat: expectedFee)
            return Self.sendJSON(address: address, amount: amount, feeSat: sent.fee ?? 0, vsize: sent.virtualSize,
                                 extra: ["txid": .string(sent.txid.hex)])
        } catch {
            switch error {
            case .invalidDestination, .invalidAmount, .insufficientFunds, .feeChanged: throw .failed(error.description)
            default: throw .backend(error.description)
            }
        }
    }

    /// The fee of the transaction itself: `fee_sat`, its `vsize` and the rate they make
    /// (`fee_rate_sat_vb`, 3 decimals, rounded down), which can sit a little above the rate
    /// asked for (sizes round up to whole sats, change below dust goes to the fee).
    static func sendJSON(address: String, amount: Int64, feeSat: Int64, vsize: Int, extra: [String: JSONValue]) -> JSONValue {
        let perKvB = vsize > 0 ? feeSat * 1_000 / Int64(vsize) : 0
        let fraction = String(perKvB % 1_000)
        var result: [String: JSONValue] = [
            "amount_sat": .integer(amount), "address": .string(address), "fee_sat": .integer(feeSat),
            "vsize": .integer(Int64(vsize)), "total_sat": .integer(amount + feeSat),
            "fee_rate_sat_vb": .number("\(perKvB / 1_000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"),
        ]
        result.merge(extra) { $1 }
        return .object(result)
    }
}
