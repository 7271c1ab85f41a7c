/// Gets a quote for locking `amountSat` from the chosen provider, checked by the client's
/// `QuotePolicy` (signed, adds up). Throws when there is no such quote.
public protocol Quoter: Sendable {
    func quote(amountSat: Int64) async throws -> Quote
}
