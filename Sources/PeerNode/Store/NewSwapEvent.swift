import Transport

/// An event an engine has decided but not yet written: what `SwapStore.append(_:to:)`
/// takes. The store assigns its sequence when it writes it.
public struct NewSwapEvent: Sendable, Equatable {
    public let kind: String
    public let data: JSONValue
    public let isFinal: Bool
    /// Unix seconds.
    public let at: Int64

    public init(kind: String, data: JSONValue, isFinal: Bool, at: Int64) {
        self.kind = kind
        self.data = data
        self.isFinal = isFinal
        self.at = at
    }
}
