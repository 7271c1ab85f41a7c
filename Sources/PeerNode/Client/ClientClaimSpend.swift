import Bitcoin
import HTLC

/// How a client swap's claim spends the lock: through the key path (one MuSig2 signature,
/// co-signed by the provider) or the script path, its size and fee, and what the key path
/// saved against the script-path claim the lock was priced for (issue 17, "Fees"):
///
/// - a contact payment sends exactly X either way: the saved bytes raise the fee rate, so
///   `savedSat` is 0 and `feeSat` is the quoted claim fee over fewer bytes;
/// - a swap-out sends everything but the key-path fee to the node's own wallet: `savedSat`
///   more than the script-path claim would have.
public struct ClientClaimSpend: Sendable, Hashable, CustomStringConvertible {
    public enum Path: String, Sendable, Hashable {
        case keyPath = "key_path"
        case scriptPath = "script_path"
    }

    public let path: Path
    public let virtualSize: Int
    /// Lock value − the claim's outputs.
    public let feeSat: Int64
    /// Key path: the bytes and the sat (to the destination) it saved; 0 on the script path.
    public let savedVirtualBytes: Int
    public let savedSat: Int64
    /// Why a cooperative round ended on the script path; nil when none was asked or it worked.
    public let fallback: String?

    /// The spend of `claim` (the swap's last signed version) of a lock holding `lockValue`,
    /// against the round `coop` recorded, if any.
    public init(claim: Transaction, lockValue: Int64, coop: CoopRound?, fallback: String?) {
        let outputs = claim.outputs.reduce(Int64(0)) { $0 + $1.value }
        virtualSize = claim.virtualSize
        feeSat = lockValue - outputs
        self.fallback = fallback
        if let coop, claim.txid == coop.txid, claim.inputs.first?.witness.stack.count == 1 {
            path = .keyPath
            savedVirtualBytes = coop.scriptPathVirtualSize - claim.virtualSize
            savedSat = outputs - coop.scriptPathOutputSat
        } else {
            path = .scriptPath
            savedVirtualBytes = 0
            savedSat = 0
        }
    }

    public var description: String {
        switch path {
        case .keyPath:
            return "key path, \(virtualSize) vB, fee \(feeSat) sat; \(savedVirtualBytes) vB saved"
                + (savedSat > 0 ? ", \(savedSat) sat more to the destination" : ", spent on a higher fee rate")
        case .scriptPath:
            return "script path, \(virtualSize) vB, fee \(feeSat) sat" + (fallback.map { "; cooperation: \($0)" } ?? "")
        }
    }
}
