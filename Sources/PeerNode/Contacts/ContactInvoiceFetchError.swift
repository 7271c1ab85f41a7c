import Offers
import Transport

/// Why a contact's invoice could not be had. Nothing was paid in any case; each message
/// says what to do.
public enum ContactInvoiceFetchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The contact could not be dialled (or did not prove it holds its pubky).
    case unreachable(String)
    /// The request went out but no usable answer came back.
    case noAnswer(String)
    /// The contact refused, with its code (`not_found`: it takes no Lightning or does not
    /// know this node; `amount_out_of_range`; `rate_limited`; `internal`: try later).
    case refused(code: RejectCode, reason: String)
    /// The `Invoice` is not signed by the pubky dialled, or answers another request.
    case notSignedByContact(String)
    /// The BOLT11 does not decode, or its signature does not verify.
    case undecodable(String)
    /// The invoice is for another network or amount, or expires too soon.
    case mismatch(String)

    public var description: String {
        switch self {
        case .unreachable(let why): return "the contact cannot be reached: \(why); try again when it is online"
        case .noAnswer(let why): return "the contact did not answer the invoice request: \(why); try again"
        case .refused(let code, let reason): return "the contact refused to make an invoice (\(code)): \(reason)"
        case .notSignedByContact(let why):
            return "the invoice is not the contact's (\(why)); it was not paid: check the contact's pubky"
        case .undecodable(let why): return "the contact's invoice cannot be read: \(why); it was not paid"
        case .mismatch(let why): return "the contact's invoice does not match the request: \(why); it was not paid"
        }
    }
}
