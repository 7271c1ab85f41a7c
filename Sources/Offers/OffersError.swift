import HTLC
import Transport

/// Everything the Offers module refuses. Each case maps to the Reject code a provider
/// answers with (`rejectCode`). Messages name fields, amounts and limits, never bytes a
/// peer sent, so they can go into a Reject's `reason` or a log as they are.
public enum OffersError: Error, Equatable, Sendable, CustomStringConvertible {
    // Decoding
    case invalidJSON(JSONError)
    case notAnObject
    case missingField(String)
    case wrongType(field: String, expected: String)
    case valueOutOfRange(field: String)
    case unknownMessageType
    case unexpectedMessageType(expected: String)

    // Signatures
    /// The signature does not verify against the expected signer.
    case invalidSignature
    /// A signed message names a signer other than the peer it came from.
    case signerMismatch

    // Provider refusals
    case unsupportedVersion(Int64)
    case wrongNetwork
    case unsupportedDirection
    case unknownOffer
    case offerExpired
    case amountOutOfRange(amount: Int64, minimum: Int64, maximum: Int64)
    /// The wallet can lock `available` now; `waiting` more becomes lockable after the next
    /// block (change held back until its transactions confirm), 0 when nothing is on the way.
    case insufficientLiquidity(available: Int64, needed: Int64, waiting: Int64 = 0)
    case unknownQuote
    case quoteExpired
    /// The quote was already redeemed (quotes are single use).
    case quoteAlreadyUsed
    /// The quote was issued to another client. Answered like `unknownQuote`, so a client
    /// learns nothing about other clients' quotes.
    case quoteNotForThisClient
    /// Live quotes are at their cap.
    case tooManyQuotes(limit: Int)
    /// One client holds its share of the live quotes; it may ask again once its oldest
    /// expires (the others are unaffected).
    case tooManyQuotesForPeer(limit: Int, retryAfterSeconds: UInt64)
    /// A risk limit (`RiskLimits`) says no; the string names the limit.
    case riskLimit(String)
    case swapNotFound
    /// `onchain_to_ln`: an invoice amount outside the offer's min...max for that direction.
    case submarineAmountOutOfRange(amount: Int64, minimum: Int64, maximum: Int64)
    /// `onchain_to_ln`: the provider's Lightning balance can pay `available` now (after its
    /// routing reserve), `needed` asked.
    case insufficientLightning(available: Int64, needed: Int64)
    /// `onchain_to_ln`: the invoice fails one of the provider's rules (`SubmarineRules`).
    case submarine(SubmarineRefusal)
    /// A contact asked for an invoice outside what it accepts over Lightning.
    case invoiceAmountOutOfRange(amountMsat: Int64, minimumMsat: Int64, maximumMsat: Int64)
    /// The contact takes no Lightning payments.
    case noLightning

    // Client policy
    /// A quote whose numbers do not add up, or do not match what was asked.
    case quoteMismatch(String)
    case feeAboveMaximum(fee: Int64, maximum: Int64)
    /// Confirmations, timeout or lifetime outside what this client accepts.
    case unacceptableTerms(String)
    /// A SwapAccept that does not match the quote, request or invoice.
    case acceptMismatch(String)
    /// A timelock or contract check of the HTLC module failed.
    case htlc(HTLCError)

    // Talking to providers
    /// The provider answered with a Reject.
    case rejected(RejectCode, reason: String)
    /// The provider answered with a message of another type.
    case unexpectedReply
    /// Connecting, the handshake or the request failed.
    case transport(String)
    case timedOut(milliseconds: UInt64)
    case noRoute(String)

    /// The Reject code a provider answers this failure with.
    public var rejectCode: RejectCode {
        switch self {
        case .invalidJSON, .notAnObject, .missingField, .wrongType, .valueOutOfRange, .unknownMessageType,
             .unexpectedMessageType, .invalidSignature, .signerMismatch, .unsupportedDirection, .quoteMismatch,
             .feeAboveMaximum, .unacceptableTerms, .acceptMismatch, .htlc, .unexpectedReply:
            return .invalidRequest
        case .submarine(let refusal): return refusal.rejectCode
        case .insufficientLightning: return .insufficientLiquidity
        case .submarineAmountOutOfRange, .invoiceAmountOutOfRange: return .amountOutOfRange
        case .noLightning: return .notFound
        case .unsupportedVersion: return .unsupportedVersion
        case .wrongNetwork, .unknownOffer, .swapNotFound, .noRoute: return .notFound
        case .offerExpired, .quoteExpired: return .quoteExpired
        case .amountOutOfRange: return .amountOutOfRange
        case .insufficientLiquidity: return .insufficientLiquidity
        case .unknownQuote, .quoteAlreadyUsed, .quoteNotForThisClient: return .unknownQuote
        case .tooManyQuotes, .tooManyQuotesForPeer, .riskLimit: return .rateLimited
        case .rejected(let code, _): return code
        case .transport, .timedOut: return .internal
        }
    }

    public var description: String {
        switch self {
        case .invalidJSON(let error): return "not valid JSON: \(error)"
        case .notAnObject: return "the message is not a JSON object"
        case .missingField(let field): return "required field \"\(field)\" is missing"
        case .wrongType(let field, let expected): return "field \"\(field)\" must be \(expected)"
        case .valueOutOfRange(let field): return "field \"\(field)\" is out of range"
        case .unknownMessageType: return "unknown message type"
        case .unexpectedMessageType(let expected): return "expected a \(expected) message"
        case .invalidSignature: return "the signature does not verify"
        case .signerMismatch: return "the message is signed for another identity than the peer's"
        case .unsupportedVersion(let version):
            return "protocol version \(version) is not supported (supported: \(ProtocolVersion.supported))"
        case .wrongNetwork: return "the provider runs on another network"
        case .unsupportedDirection: return "this swap direction is not offered"
        case .unknownOffer: return "no such offer"
        case .offerExpired: return "the offer has expired"
        case .amountOutOfRange(let amount, let minimum, let maximum):
            return "a lock of \(Self.sats(amount)) is outside the offered \(Self.sats(minimum)) to \(Self.sats(maximum))"
        case .insufficientLiquidity(let available, let needed, let waiting):
            let when = waiting > 0
                ? "\(Self.sats(waiting)) more become lockable by the next block, as its pending transactions go out or confirm"
                : "nothing more is on the way until its wallet is funded"
            return "the provider can lock \(Self.sats(available)) now, \(Self.sats(needed)) needed; \(when)"
        case .unknownQuote: return "no such quote"
        case .quoteExpired: return "the quote has expired"
        case .quoteAlreadyUsed: return "the quote was already used"
        case .quoteNotForThisClient: return "no such quote"
        case .tooManyQuotes(let limit): return "too many live quotes (limit \(limit)); try again shortly"
        case .tooManyQuotesForPeer(let limit, let seconds):
            return "this client holds \(limit) live quotes, its share; try again in \(seconds) s"
        case .riskLimit(let limit): return "over the provider's limit: \(limit)"
        case .swapNotFound: return "no such swap"
        case .insufficientLightning(let available, let needed):
            return "the provider can pay \(Self.sats(available)) over Lightning now, \(Self.sats(needed)) needed"
        case .submarine(let refusal): return refusal.description
        case .submarineAmountOutOfRange(let amount, let minimum, let maximum):
            return "an invoice of \(Self.sats(amount)) is outside the offered \(Self.sats(minimum)) to \(Self.sats(maximum))"
        case .invoiceAmountOutOfRange(let amount, let minimum, let maximum):
            return "an invoice for \(amount) msat is outside the \(minimum) to \(maximum) msat this node accepts over Lightning"
        case .noLightning: return "this node takes no Lightning payments"
        case .quoteMismatch(let what): return "the quote does not add up: \(what)"
        case .feeAboveMaximum(let fee, let maximum): return "fee of \(fee) sat is above the maximum of \(maximum) sat"
        case .unacceptableTerms(let what): return "unacceptable terms: \(what)"
        case .acceptMismatch(let what): return "the swap accept does not match: \(what)"
        case .htlc(let error): return error.description
        case .rejected(let code, let reason): return "refused (\(code)): \(reason)"
        case .unexpectedReply: return "the peer replied with an unexpected message"
        case .transport(let what): return "transport failure: \(what)"
        case .timedOut(let milliseconds): return "no answer within \(milliseconds) ms"
        case .noRoute(let why): return "no provider fits: \(why)"
        }
    }

    /// An amount as people read it: "1,500,000 sat".
    public static func sats(_ value: Int64) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return (value < 0 ? "-" : "") + grouped + " sat"
    }
}
