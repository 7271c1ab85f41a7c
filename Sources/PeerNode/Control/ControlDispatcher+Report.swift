import Transport

extension ControlDispatcher {
    /// `report`: the books (`SwapAccounting`) over every stored swap, from `since` (a UTC
    /// day, YYYY-MM-DD) when given. Payments from savings are listed beside them: they are
    /// no swaps, but they moved the wallet, and the operator reconciles with them.
    func report(_ args: ControlArgs) async throws(ControlError) -> JSONValue {
        var since: AccountingDay?
        if let text = try args.optionalString("since") {
            do { since = try AccountingDay(parsing: text) } catch { throw .invalidRequest(error.description) }
        }
        do {
            var swaps: [SwapHistory] = []
            for record in try await services.store.allSwaps(limit: Int(Int32.max)) {
                swaps.append(try await SwapHistory.load(record, from: services.store))
            }
            let books = try SwapAccounting(swaps: swaps, since: since)
            guard case .object(var out) = books.json else { return books.json }
            await DirectLightningPayment.settleInFlight(store: services.store, lightning: services.lightning)
            out["payments"] = .array(try await DirectPayments.newest(Int(Int32.max), in: services.store).map(\.payment))
            return .object(out)
        } catch let error as AccountingError {
            throw .failed(error.description)
        } catch {
            throw .failed("\(error)")
        }
    }
}
