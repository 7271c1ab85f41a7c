/// peernode's channel handshake: Noise_XK_25519_ChaChaPoly_BLAKE2b with prologue
/// `peernode/1`, static keys taken from node identities.
///
/// The dialer knows the contact's pubky, so it knows the responder's X25519 static key in
/// advance (XK's "<- s" pre-message) and the handshake fails unless the listener owns that
/// identity. The listener learns the dialer's X25519 static key only. ed25519 -> X25519
/// loses the sign of x, so the dialer's pubky cannot be computed from it: to check a
/// dialer against an expected pubky, convert the pubky to X25519 and compare
/// (`Pubky.matches(noiseStaticKey:)`), with the pubky carried in a handshake payload if the
/// listener does not know it beforehand.
extension HandshakeState {
    /// The dialer's side: `identity` dials `contact`.
    public static func peernodeInitiator(identity: NodeIdentity, contact: Pubky) throws(NoiseError) -> HandshakeState {
        try HandshakeState(protocolName: .peernode, role: .initiator, prologue: NoiseProtocolName.peernodePrologue,
                           localStaticKey: identity.noiseStaticKey, remoteStaticKey: contact.noiseStaticKey)
    }

    /// The listener's side.
    public static func peernodeResponder(identity: NodeIdentity) throws(NoiseError) -> HandshakeState {
        try HandshakeState(protocolName: .peernode, role: .responder, prologue: NoiseProtocolName.peernodePrologue,
                           localStaticKey: identity.noiseStaticKey)
    }
}

extension TransportState {
    /// True when the authenticated peer's static key is that of `pubky`.
    public func remoteIdentity(is pubky: Pubky) -> Bool {
        guard let remoteStaticKey else { return false }
        return pubky.matches(noiseStaticKey: remoteStaticKey)
    }
}
