// Writes the seeds that cannot be typed by hand: handshake messages from a real
// initiator. Built by run.sh against the same modules as the fuzz targets and run once
// per build, so the seeds always match the current handshake code (a seed produced by
// an older prologue or pattern would be rejected at the first byte and teach nothing).
//
// Usage: SeedGenerator <output directory>
import Glibc
import Transport

/// The responder key the fuzz entry point uses (seed 0x5A repeated, fixed in
/// `ChannelHandshake+Fuzz.swift`); message 1 only decrypts for that key.
private let fuzzResponderSeedByte: UInt8 = 0x5A
/// Any other key: a message 1 for it is well formed but not for this node.
private let strangerSeedByte: UInt8 = 0x33

@main
struct SeedGenerator {
    static func main() {
        guard CommandLine.arguments.count == 2 else {
            fail("usage: SeedGenerator <output directory>")
        }
        let directory = CommandLine.arguments[1]
        let initiator = identity(0x11)
        let responder = identity(fuzzResponderSeedByte)
        let stranger = identity(strangerSeedByte)

        let first = messageOne(from: initiator, to: responder.pubky)
        let wrongKey = messageOne(from: initiator, to: stranger.pubky)
        // A message-3-sized frame after a good message 1 takes the responder past
        // message 2 into the static-key decryption, the deepest state reachable alone.
        let fakeThird = [UInt8](repeating: 0xA5, count: 96)

        write(first, to: directory, name: "message1-body")
        write(frame(first), to: directory, name: "message1-framed")
        write(frame(wrongKey), to: directory, name: "message1-other-node")
        write(frame(first) + frame(fakeThird), to: directory, name: "message1-then-message3")
    }

    private static func identity(_ byte: UInt8) -> NodeIdentity {
        guard let seed = try? NodeSeed(bytes: [UInt8](repeating: byte, count: NodeSeed.length)) else {
            fail("a 32-byte seed is always valid")
        }
        return NodeIdentity(seed: seed)
    }

    /// `-> e, es` with an empty payload, exactly as `SecureChannel.connect` sends it.
    private static func messageOne(from initiator: NodeIdentity, to contact: Pubky) -> [UInt8] {
        do {
            var noise = try HandshakeState.peernodeInitiator(identity: initiator, contact: contact)
            return try noise.writeMessage(payload: [])
        } catch {
            fail("initiator could not write message 1: \(error)")
        }
    }

    /// The channel's framing (2-byte big-endian length); `Frame.encode` is internal.
    private static func frame(_ body: [UInt8]) -> [UInt8] {
        [UInt8(truncatingIfNeeded: body.count >> 8), UInt8(truncatingIfNeeded: body.count)] + body
    }

    private static func write(_ bytes: [UInt8], to directory: String, name: String) {
        let path = directory + "/" + name
        guard let file = fopen(path, "wb") else { fail("cannot open \(path)") }
        defer { fclose(file) }
        guard fwrite(bytes, 1, bytes.count, file) == bytes.count else { fail("cannot write \(path)") }
    }

    private static func fail(_ message: String) -> Never {
        fputs("SeedGenerator: \(message)\n", stderr)
        exit(1)
    }
}
