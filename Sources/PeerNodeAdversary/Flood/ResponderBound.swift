import Foundation
import Transport

/// The responder's side of one peernode/1 handshake, and nothing else: read message 1,
/// write message 2, read message 3 and check the dialler's pubky against its static key.
/// Timed in this process with the messages prepared beforehand, it is the least CPU a
/// provider can spend per handshake, to compare with what the daemon spends.
///
/// Timed on this thread's CPU clock, not the wall clock: the daemon's side of the ratio is
/// CPU time too, and the bound runs right after the flood, while the provider may still be
/// closing what it accepted. On two cores a wall clock then counts the time this thread
/// waited for a core, which made the bound up to half again as large from one run to the
/// next and the ratio look better than it was.
struct ResponderBound {
    let responder: NodeIdentity
    var iterations = 300

    func microsecondsPerHandshake() throws -> Double {
        let dialler = NodeIdentity(seed: .generate())
        var best = UInt64.max
        for _ in 0..<3 {
            var elapsed: UInt64 = 0
            for _ in 0..<iterations {
                var initiator = try HandshakeState.peernodeInitiator(identity: dialler, contact: responder.pubky)
                let first = try initiator.writeMessage(payload: [])
                // Message 3 needs message 2, so the responder's two halves are timed apart.
                var listener = try HandshakeState.peernodeResponder(identity: responder)
                let start = Self.threadCPUNanoseconds()
                _ = try listener.readMessage(first)
                let second = try listener.writeMessage(payload: [])
                elapsed += Self.threadCPUNanoseconds() - start
                _ = try initiator.readMessage(second)
                let third = try initiator.writeMessage(payload: dialler.publicKey)
                let resume = Self.threadCPUNanoseconds()
                let claimed = try listener.readMessage(third)
                // Computed, as for a dialler never seen before (a known one's check is a lookup).
                guard let key = listener.remoteStaticKey, try Pubky.noiseStaticKey(validating: claimed) == key else {
                    throw KitError("the timed handshake did not authenticate the dialler")
                }
                _ = try listener.intoTransportState()
                elapsed += Self.threadCPUNanoseconds() - resume
            }
            best = min(best, elapsed)
        }
        return Double(best) / 1_000 / Double(iterations)
    }

    /// CPU time this thread has used, in nanoseconds (CLOCK_THREAD_CPUTIME_ID: it stops
    /// while the thread waits for a core).
    private static func threadCPUNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
