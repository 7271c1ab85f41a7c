import Transport

/// One `onchain_to_ln` swap in a `SwapList`: everything the other side needs to rebuild
/// its record, as the answerer holds it. `role` is the answerer's side: `provider` (the
/// asker was its client) or `client` (the asker was its provider).
///
/// - `accept`: the provider's signed `SwapAccept` as sent (the contract, the timeout);
/// - `quote`: the provider's signed `Quote` (a provider signs its stored quote again; an
///   ed25519 signature over the same bytes is the same signature);
/// - `request`: the client's `SwapRequest` (the invoice, the refund key).
///
/// The asker checks each one against its seed, its own signature or its provider's, and
/// the chain before it re-creates anything (`SubmarineRecoveryContract`).
public struct SwapListEntry: Sendable, Equatable {
    public enum Role: String, Sendable, Equatable {
        case provider
        case client
    }

    public let role: Role
    public let accept: Signed<SubmarineSwapAccept>
    public let quote: Signed<Quote>
    public let request: SubmarineSwapRequest

    public init(role: Role, accept: Signed<SubmarineSwapAccept>, quote: Signed<Quote>, request: SubmarineSwapRequest) {
        self.role = role
        self.accept = accept
        self.quote = quote
        self.request = request
    }

    public init(fields: FieldReader) throws(OffersError) {
        role = try fields.rawValue("role", as: Role.self)
        accept = try Signed(json: .object(try fields.object("accept").members))
        quote = try Signed(json: .object(try fields.object("quote").members))
        request = try SubmarineSwapRequest(json: .object(try fields.object("request").members))
    }

    public var json: JSONValue {
        .object(["role": .string(role.rawValue), "accept": accept.json, "quote": quote.json, "request": request.json])
    }
}
