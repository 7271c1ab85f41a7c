/// `ConnectionBudget`'s answer for a newcomer.
public enum ConnectionVerdict: Sendable, Equatable {
    case admit
    /// Admit once the connection with this id is closed (a full budget made room).
    case admitEvicting(id: UInt64, budget: ConnectionBudgetKind)
    case refuse(ConnectionRefusal)
}
