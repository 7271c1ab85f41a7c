/// Why `PeerDialer.dial` failed: the TCP connect (the address is wrong or down), or the
/// secure handshake on top of it (the wrong node, or not a peernode/1 node).
public enum PeerDialError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The TCP connect failed; `reason` is the transport's own description (for example
    /// libuv's ECONNREFUSED).
    case connectFailed(address: String, reason: String)
    /// No TCP connection within the connect timeout.
    case connectTimedOut(address: String, milliseconds: UInt64)
    /// Connected, but the handshake failed. `wrongRemotePubky` names the pubky dialled and
    /// the one the address answered with.
    case handshakeFailed(ChannelError)

    public var description: String {
        switch self {
        case .connectFailed(let address, let reason):
            return "could not connect to \(address): \(reason); check the contact's host:port and that the node runs"
        case .connectTimedOut(let address, let ms):
            return "no TCP connection to \(address) within \(ms) ms; check the contact's host:port"
        case .handshakeFailed(let error):
            return error.description
        }
    }

    /// The handshake's error, when that is what failed.
    public var channelError: ChannelError? {
        if case .handshakeFailed(let error) = self { return error }
        return nil
    }
}
