import Foundation
import Transport

/// The responder's side of one peernode/1 handshake, and nothing else: read message 1,
/// write message 2, read message 3 and check the dialler's pubky against its static key.
/// Timed in this process with the messages prepared beforehand, it is the least CPU a
/// provider can spend per handshake, to compare with what the daemon spends.
struct ResponderBound {
    let responder: NodeIdentity
    var iterations = 300

    func microsecondsPerHandshake() throws -> Double {
        let dialler = NodeIdentity(seed: .generate())
        var best = Double.infinity
        for _ in 0..<3 {
            var elapsed = Duration.zero
            for _ in 0..<iterations {
                var initiator = try HandshakeState.peernodeInitiator(identity: dialler, contact: responder.pubky)
                let first = try initiator.writeMessage(payload: [])
                // Message 3 needs message 2, so the responder's two halves are timed apart.
                var listener = try HandshakeState.peernodeResponder(identity: responder)
                let start = ContinuousClock.now
                _ = try listener.readMessage(first)
                let second = try listener.writeMessage(payload: [])
                elapsed += ContinuousClock.now - start
                _ = try initiator.readMessage(second)
                let third = try initiator.writeMessage(payload: dialler.publicKey)
                let resume = ContinuousClock.now
                let claimed = try listener.readMessage(third)
                // Computed, as for a dialler never seen before (a known one's check is a lookup).
                guard let key = listener.remoteStaticKey, try Pubky.noiseStaticKey(validating: claimed) == key else {
                    throw KitError("the timed handshake did not authenticate the dialler")
                }
                _ = try listener.intoTransportState()
                elapsed += ContinuousClock.now - resume
            }
            best = min(best, Double(elapsed / .nanoseconds(1)) / 1_000 / Double(iterations))
        }
        return best
    }
}
