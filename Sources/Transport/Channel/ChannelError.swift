/// Why a secure channel or a peer connection failed or refused something.
///
/// Messages say what happened and what to check. They never carry message contents, key
/// material or bytes a peer sent; pubkys appear because they are public and are what a
/// user needs to fix a contact. Failures caused by the remote peer close that connection;
/// the local-misuse cases (`messageTooLarge` on send, `tooManyRequestsInFlight`,
/// `duplicateRequestID`, `requestIDMismatch`) throw without closing anything.
public enum ChannelError: Error, Equatable, Sendable, CustomStringConvertible {
    // Handshake
    /// The Noise handshake failed: a corrupted or forged handshake message, or a peer that
    /// does not speak peernode/1.
    case handshakeFailed(NoiseError)
    /// The listener at the dialled address is not the contact that was dialled. `reached`
    /// is the pubky the listener announced when it refused us (unauthenticated, for the
    /// message only), nil if it said nothing.
    case wrongRemotePubky(expected: Pubky, reached: Pubky?)
    /// The dialler's handshake carried a pubky whose Noise key is not the key it used.
    case initiatorKeyMismatch(claimed: Pubky)
    /// A dialler's first handshake message did not decrypt under this node's key: it
    /// dialled a pubky this node does not hold, or sent garbage.
    case notForThisNode
    /// The listener refused the connection because its connection budgets are full (in
    /// all, or for our address or network); a later attempt may get in.
    case listenerBusy
    /// The dialler's handshake did not carry a valid ed25519 public key.
    case invalidInitiatorIdentity
    /// A handshake message carried a payload where peernode/1 sends none (or the wrong size).
    case unexpectedHandshakePayload
    /// The peer closed the connection before the handshake ended.
    case closedDuringHandshake
    case handshakeTimeout(milliseconds: UInt64)

    // Framing and transport
    case frameTooLarge(length: Int, limit: Int)
    case frameTooShort(length: Int, minimum: Int)
    /// The peer closed the connection in the middle of a frame.
    case truncatedFrame
    /// A message over the size limit, on send (nothing is closed) or on receive.
    case messageTooLarge(size: Int, limit: Int)
    /// A frame failed authentication: corrupted in transit or forged.
    case decryptionFailed
    /// The session's nonces are nearly used up; it was closed before any could repeat.
    case nonceLimitReached
    case idleTimeout(milliseconds: UInt64)
    /// The channel or connection is closed (locally or by the peer).
    case closed
    /// The underlying connection failed; the text is the transport's own description.
    case streamFailed(String)

    // Messages and requests
    /// A message was not valid JSON within the parser's limits.
    case invalidJSON(JSONError)
    /// A message was JSON but not a peernode envelope; `reason` names the rule broken.
    case invalidEnvelope(reason: String)
    case requestTimedOut(milliseconds: UInt64)
    /// This side already has `limit` requests waiting on this peer.
    case tooManyRequestsInFlight(limit: Int)
    /// The peer sent more concurrent requests than the limit.
    case peerExceededInFlightLimit(limit: Int)
    /// The peer kept sending requests while `unwritten` replies to it could not be written:
    /// it is not reading them.
    case peerNotReadingReplies(unwritten: Int)
    /// The peer pushed messages faster than they could be handled.
    case pushBacklogExceeded(limit: Int)
    case duplicateRequestID
    /// The `id` given to `request` differs from the message's own `request_id`.
    case requestIDMismatch
    /// The task waiting for a reply was cancelled.
    case cancelled

    public var description: String {
        switch self {
        case .handshakeFailed(let error):
            return "secure handshake failed: \(error); the peer may not be a peernode/1 node, or the connection was tampered with"
        case .wrongRemotePubky(let expected, let reached?):
            return "dialled \(expected) but the node at that address is \(reached); check the contact's host:port"
        case .wrongRemotePubky(let expected, nil):
            return "dialled \(expected) but the node at that address does not hold that key; check the contact's host:port"
        case .initiatorKeyMismatch(let claimed):
            return "the dialling peer claimed to be \(claimed) but its handshake key is not that identity's; refused"
        case .notForThisNode:
            return "a peer dialled a pubky this node does not hold (or sent garbage); refused"
        case .listenerBusy:
            return "the node is serving all the connections it takes (from this address or network, or in all); try again later"
        case .invalidInitiatorIdentity:
            return "the dialling peer's handshake did not carry a valid pubky; refused"
        case .unexpectedHandshakePayload:
            return "a handshake message carried data peernode/1 does not send; the peer runs incompatible software"
        case .closedDuringHandshake:
            return "the peer closed the connection during the handshake; it may not be the node dialled, or not a peernode/1 node"
        case .handshakeTimeout(let ms):
            return "the handshake did not finish within \(ms) ms; closed"
        case .frameTooLarge(let length, let limit):
            return "the peer sent a \(length)-byte frame, over the \(limit)-byte limit; closed"
        case .frameTooShort(let length, let minimum):
            return "the peer sent a \(length)-byte frame, shorter than any valid frame (\(minimum) bytes); closed"
        case .truncatedFrame:
            return "the peer closed the connection in the middle of a frame"
        case .messageTooLarge(let size, let limit):
            return "message of \(size) bytes is over the \(limit)-byte limit"
        case .decryptionFailed:
            return "a frame failed authentication (corrupted or forged); closed"
        case .nonceLimitReached:
            return "the session has used all its nonces; closed, reconnect to continue"
        case .idleTimeout(let ms):
            return "no traffic for \(ms) ms; closed"
        case .closed:
            return "the connection is closed"
        case .streamFailed(let text):
            return "the connection failed: \(text)"
        case .invalidJSON(let error):
            return "the peer sent a message that is not valid JSON: \(error); closed"
        case .invalidEnvelope(let reason):
            return "the peer sent a message that is not a peernode message: \(reason); closed"
        case .requestTimedOut(let ms):
            return "no reply within \(ms) ms"
        case .tooManyRequestsInFlight(let limit):
            return "already \(limit) requests waiting on this peer; wait for replies before sending more"
        case .peerExceededInFlightLimit(let limit):
            return "the peer sent more than \(limit) concurrent requests; closed"
        case .peerNotReadingReplies(let unwritten):
            return "the peer kept sending requests while \(unwritten) replies to it were still being written: it is not reading them; closed"
        case .pushBacklogExceeded(let limit):
            return "the peer pushed more than \(limit) messages faster than they were handled; closed"
        case .duplicateRequestID:
            return "a request with this request_id is already waiting on this peer; use a fresh id"
        case .requestIDMismatch:
            return "the request's \"request_id\" field differs from the id given to request(); pass the same id"
        case .cancelled:
            return "the request was cancelled"
        }
    }
}
