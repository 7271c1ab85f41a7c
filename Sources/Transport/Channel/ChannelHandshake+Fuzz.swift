extension ChannelHandshake {
    /// The identity fuzzing runs under: fixed, so runs are reproducible.
    private static let fuzzIdentity: NodeIdentity = {
        guard let seed = try? NodeSeed(bytes: [UInt8](repeating: 0x5A, count: NodeSeed.length)) else {
            preconditionFailure("a 32-byte seed is always valid")
        }
        return NodeIdentity(seed: seed)
    }()

    /// libFuzzer entry for the responder's handshake input: whatever a stranger sends as the
    /// start of a handshake must end in a typed outcome, never a crash. The data is tried
    /// twice on fresh responders: as raw wire bytes (framing included), and as the body of
    /// handshake message 1 (so the Noise parsing sees every length and content).
    static func fuzzResponder(_ data: [UInt8]) {
        let limits = ChannelLimits()
        if var responder = try? ChannelHandshake(responder: fuzzIdentity, limits: limits) {
            let step = responder.receive(data)
            precondition(step.outcome != .finished, "a handshake cannot finish without the initiator's key")
        }
        if data.count <= ChannelLimits.wireFrameLimit,
           var responder = try? ChannelHandshake(responder: fuzzIdentity, limits: limits) {
            let step = responder.receive(Frame.encode(data))
            precondition(step.outcome != .finished, "a handshake cannot finish without the initiator's key")
        }
    }
}
