import Bitcoin
import Transport

/// A client swap's stored events as shown to the operator (`swap show`, any control
/// answer). A claim transaction's witness holds the preimage: until the claim confirms it
/// may still be secret (a claim never accepted by the node, a resumed claim past the
/// cutoff), and once printed it can leak through logs, terminals and bug reports (audit
/// L-5). So every `claim_tx` is withheld, replaced by its txid, unless the swap's last
/// event says the claim confirmed (`claim_confirmed`, `completed`): then it is public on
/// chain. The store keeps the full transaction: recovery needs it.
public enum ClientSwapDisplay {
    static let claimPublicKinds: Set<String> = [ClientSwapPhase.claimConfirmed.rawValue, ClientSwapPhase.completed.rawValue]

    /// The events' data as shown, in order; the last event tells whether the claim confirmed.
    public static func shown(_ events: [SwapEvent]) -> [JSONValue] {
        let claimPublic = events.last.map { claimPublicKinds.contains($0.kind) } ?? false
        return events.map { shown($0.data, claimPublic: claimPublic) }
    }

    /// One event's data: `claim_tx` withheld (its txid shown instead) unless `claimPublic`.
    public static func shown(_ data: JSONValue, claimPublic: Bool) -> JSONValue {
        guard !claimPublic, case .object(var members) = data, let hex = members["claim_tx"]?.stringValue else { return data }
        members["claim_tx"] = nil
        if let claim = try? Transaction(hex: hex) { members["claim_txid"] = .string(claim.txid.hex) }
        members["claim_tx_withheld"] = .string("the claim's witness holds the preimage; shown once the claim confirms")
        return .object(members)
    }
}
