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

    func walletSend(_ args: ControlArgs) async throws(ControlError) -> JSONValue {
        let address = try args.string("address")
        let amount = try args.amount("amount_sat")
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
            let sent = try await services.wallet.send(to: address, amount: amount, feeRate: rate)
            var result: [String: JSONValue] = [
                "txid": .string(sent.txid.hex), "amount_sat": .integer(amount), "address": .string(address),
                "fee_rate_sat_kvb": .integer(rate.satPerKvB), "vsize": .integer(sent.virtualSize),
            ]
            if let fee = sent.fee { result["fee_sat"] = .integer(fee) }
            return .object(result)
        } catch {
            switch error {
            case .invalidDestination, .invalidAmount, .insufficientFunds: throw .failed(error.description)
            default: throw .backend(error.description)
            }
        }
    }
}
