/// How a chain backend call failed. A refusal by the node is kept apart from not reaching
/// it, because callers act differently: a refusal is final for that transaction, an
/// unreachable backend is retried.
public enum ChainBackendError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The backend could not be reached or did not answer (which URL, and why).
    case unreachable(url: String, reason: String)
    /// The backend refused the credentials (HTTP 401/403).
    case unauthorized(url: String)
    /// The backend answered with a JSON-RPC error: Core's code and message, verbatim.
    case rpc(code: Int, message: String)
    /// A transaction was refused by the mempool, with Core's reason (e.g. `missing-inputs`,
    /// `insufficient fee`, `non-final`).
    case rejected(code: Int, reason: String)
    /// The backend answered something the client cannot read.
    case malformedResponse(String)
    /// The backend is on another network than the node.
    case wrongNetwork(expected: String, actual: String)

    public var description: String {
        switch self {
        case .unreachable(let url, let reason): return "cannot reach the chain backend at \(url): \(reason)"
        case .unauthorized(let url): return "the chain backend at \(url) refused the RPC credentials; check rpcuser/rpcpassword or the cookie file"
        case .rpc(let code, let message): return "chain backend error \(code): \(message)"
        case .rejected(let code, let reason): return "transaction refused (\(code)): \(reason)"
        case .malformedResponse(let what): return "unreadable answer from the chain backend: \(what)"
        case .wrongNetwork(let expected, let actual): return "the chain backend runs \(actual), this node is configured for \(expected)"
        }
    }
}
