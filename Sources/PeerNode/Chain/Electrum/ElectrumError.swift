/// What can go wrong talking to an Electrum server, each case saying what to check.
///
/// Errors that drop the connection (`unreachable`, `closed`, `lineTooLong`, `malformed`,
/// `timedOut`)
/// are also thrown by every later call on it: a dropped connection never half-works.
/// `server` and `unexpectedResult` fail one call and leave the connection up.
public enum ElectrumError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The TCP connection or the TLS handshake failed.
    case unreachable(server: String, reason: String)
    /// The connection ended (the server closed it, a read or write failed, or this node
    /// closed it).
    case closed(reason: String)
    /// The server sent a line longer than the limit: a broken or hostile server.
    case lineTooLong(limit: Int)
    /// The server sent something that is not Electrum JSON-RPC 2.0.
    case malformed(reason: String)
    /// The server did not answer a call in time; the connection was dropped.
    case timedOut(method: String, milliseconds: UInt64)
    /// The server answered a call with a JSON-RPC error.
    case server(method: String, code: Int, message: String)
    /// The server's result has not the shape the protocol gives it.
    case unexpectedResult(method: String, reason: String)
    /// The server speaks only protocol versions older than `minimum`.
    case unsupportedProtocolVersion(server: String, minimum: String)
    /// The server follows another chain than the node's network.
    case wrongNetwork(expected: String, serverGenesis: String)
    /// The call was refused before anything was sent.
    case invalidRequest(reason: String)
    /// The server's tip has stayed `referenceHeight - serverHeight` blocks behind LND's
    /// best block for `seconds`: it stopped following the chain (ElectrumLagGuard).
    case lagging(serverHeight: Int, referenceHeight: Int, seconds: Int)
    /// A server the operator does not run gave a header at `height` that the node could
    /// not link to LND's best block (`ElectrumAnchoredChain`): what it says about that
    /// block is not believed, and no tip or confirmation is counted from it.
    case notInLNDsChain(height: Int, reason: String)

    /// Whether this error ended the connection (a new one must be dialled), rather than
    /// failing one call on a connection that is still up.
    public var dropsConnection: Bool {
        switch self {
        case .unreachable, .closed, .lineTooLong, .malformed, .timedOut: return true
        case .server, .unexpectedResult, .unsupportedProtocolVersion, .wrongNetwork, .invalidRequest, .lagging, .notInLNDsChain:
            return false
        }
    }

    public var description: String {
        switch self {
        case .unreachable(let server, let reason):
            return "cannot reach the Electrum server \(server): \(reason); check electrum_server and that the server runs"
        case .closed(let reason):
            return "the connection to the Electrum server is closed: \(reason)"
        case .lineTooLong(let limit):
            return "the Electrum server sent a line longer than \(limit) bytes; the connection was dropped "
                + "(a broken or hostile server: use another one)"
        case .malformed(let reason):
            return "the Electrum server sent something that is not Electrum JSON-RPC: \(reason); the connection was dropped"
        case .timedOut(let method, let milliseconds):
            return "the Electrum server did not answer \(method) within \(milliseconds) ms; the connection was dropped "
                + "(check that the server is synced and not overloaded)"
        case .server(let method, let code, let message):
            return "the Electrum server refused \(method): \(message) (code \(code))"
        case .unexpectedResult(let method, let reason):
            return "the Electrum server's answer to \(method) is not what the protocol gives: \(reason)"
        case .unsupportedProtocolVersion(let server, let minimum):
            return "the Electrum server (\(server)) does not speak protocol \(minimum) or newer; "
                + "upgrade it (ElectrumX 1.16+, Fulcrum 1.9+, Electrs 0.9+) or use another server"
        case .wrongNetwork(let expected, let serverGenesis):
            return "the Electrum server follows another network (its genesis block is \(serverGenesis), "
                + "this node's network's is \(expected)); point electrum_server at a server of this network"
        case .invalidRequest(let reason):
            return "invalid Electrum request: \(reason)"
        case .lagging(let serverHeight, let referenceHeight, let seconds):
            return "the Electrum server lags: its tip is at height \(serverHeight), \(referenceHeight - serverHeight) blocks behind "
                + "LND's best block \(referenceHeight), for \(seconds) s; the node takes no tip from it (no deadline is counted "
                + "from a stale height) until it catches up; check the server's link to its Bitcoin node and its logs, "
                + "or point electrum_server at a server that follows the chain"
        case .notInLNDsChain(let height, let reason):
            return "the Electrum server's block at height \(height) is not in the chain LND follows: \(reason); the node "
                + "counts no tip and no confirmation from it until it is (a server you do not run is checked against LND's "
                + "best block); if this lasts, the server is on another chain or lying: point electrum_server at another one"
        }
    }
}
