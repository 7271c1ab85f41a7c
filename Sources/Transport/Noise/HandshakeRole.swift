/// Which side of a Noise handshake this party plays. The initiator sends the first message.
public enum HandshakeRole: Sendable, Equatable {
    case initiator
    case responder
}
