/// Why a request was refused: exactly the codes of DESIGN section 4.
public enum RejectCode: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case quoteExpired = "quote_expired"
    case unknownQuote = "unknown_quote"
    case amountOutOfRange = "amount_out_of_range"
    case insufficientLiquidity = "insufficient_liquidity"
    case rateLimited = "rate_limited"
    case unsupportedVersion = "unsupported_version"
    case invalidRequest = "invalid_request"
    case notFound = "not_found"
    case pending = "pending"
    case `internal` = "internal"

    public var description: String { rawValue }
}
