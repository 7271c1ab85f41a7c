import Offers
import Transport

/// Why a provider stopped before paying (`abandoned`): nothing was paid, and the client's
/// lock, if any, is its own again by its refund at the timeout.
public enum SubmarineGiveUp: Sendable, Hashable, CustomStringConvertible {
    /// No lock was seen within `SubmarineRules.lockWaitBlocks` of the accept, or none
    /// confirmed while the invoice could still be paid safely.
    case noLockInTime
    /// At pay time the invoice had expired (BOLT11 expiry, the payee's clock).
    case invoiceExpired(expiresAtUnix: UInt64)
    /// At pay time no route fits under the CLTV limit: `min_final_cltv_expiry + 3 > cltv_limit`
    /// (`SubmarineRules`), so a payee holding the HTLC could outlast the client's refund.
    case noRouteUnderCLTVLimit(cltvLimit: Int, minFinalCLTVExpiry: Int)
    /// The client's refund took the lock before anything was paid.
    case lockRefunded

    public var description: String {
        switch self {
        case .noLockInTime:
            return "no lock arrived in time (none seen within \(SubmarineRules.lockWaitBlocks) blocks of the accept, "
                + "or none confirmed while the invoice could still be paid safely)"
        case .invoiceExpired(let at):
            return "the invoice expired (at \(at)) before it could be paid"
        case .noRouteUnderCLTVLimit(let limit, let minFinal):
            return "too close to the timeout to pay: cltv_limit \(limit) leaves no route for min_final_cltv_expiry "
                + "\(minFinal) + 3"
        case .lockRefunded:
            return "the client refunded its lock before the invoice was paid"
        }
    }
}

extension SubmarineGiveUp {
    var json: JSONValue {
        switch self {
        case .noLockInTime: return .object(["reason": .string("no_lock_in_time")])
        case .invoiceExpired(let at): return .object(["reason": .string("invoice_expired"), "expires_at": .integer(at)])
        case .noRouteUnderCLTVLimit(let limit, let minFinal):
            return .object(["reason": .string("no_route_under_cltv_limit"), "cltv_limit": .integer(limit),
                            "min_final_cltv_expiry": .integer(minFinal)])
        case .lockRefunded: return .object(["reason": .string("lock_refunded")])
        }
    }

    init(json: JSONValue) throws(ProviderError) {
        switch json["reason"]?.stringValue {
        case "no_lock_in_time": self = .noLockInTime
        case "lock_refunded": self = .lockRefunded
        case "invoice_expired":
            guard let at = json["expires_at"]?.uint64Value else { throw .corruptRecord("abandoned without the expiry") }
            self = .invoiceExpired(expiresAtUnix: at)
        case "no_route_under_cltv_limit":
            guard let limit = json["cltv_limit"]?.int64Value, let minFinal = json["min_final_cltv_expiry"]?.int64Value else {
                throw .corruptRecord("abandoned without the CLTV figures")
            }
            self = .noRouteUnderCLTVLimit(cltvLimit: Int(limit), minFinalCLTVExpiry: Int(minFinal))
        default:
            throw .corruptRecord("abandoned without a known reason")
        }
    }
}
