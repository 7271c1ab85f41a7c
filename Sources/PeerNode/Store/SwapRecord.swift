import HTLC
import Transport

/// A swap's contract: everything both sides committed to (terms, quote, accept, invoice,
/// HTLC parameters, destination), written once when the swap is created and never
/// changed. What happened since lives in the event log.
public struct SwapRecord: Sendable, Equatable {
    /// Unique per node (the client uses the quote id; the provider the same id).
    public let id: String
    public let role: SwapRole
    /// The index the swap's keys and preimage derive from (with the node seed), so a node
    /// that lost its database can still find and finish the swap from the chain.
    public let swapIndex: UInt32
    /// How the swap's secrets derive from the seed and `swapIndex`: `.legacy` for swaps
    /// made before the network entered the path, `SwapKeyScheme.current` for new ones.
    public let keyScheme: SwapKeyScheme
    /// The counterparty's pubky (z-base-32).
    public let peer: String
    /// Unix seconds.
    public let createdAt: Int64
    /// Role-specific immutable facts as a JSON object (canonical encoding when stored).
    public let contract: JSONValue

    public init(id: String, role: SwapRole, swapIndex: UInt32, keyScheme: SwapKeyScheme, peer: String, createdAt: Int64,
                contract: JSONValue) {
        self.id = id
        self.role = role
        self.swapIndex = swapIndex
        self.keyScheme = keyScheme
        self.peer = peer
        self.createdAt = createdAt
        self.contract = contract
    }
}
