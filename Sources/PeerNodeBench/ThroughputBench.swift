import CSodium
import Transport

/// Benchmark 2: bulk data through a `SecureChannel` over a loopback TCP connection, both
/// ends in this process on one event loop, in messages of the largest plaintext one frame
/// carries (65519 bytes: 65535 less the 16-byte tag), against libsodium's
/// ChaCha20-Poly1305 (IETF, the Noise ChaChaPoly cipher) encrypting and then decrypting the
/// same messages in memory, one after the other on one thread.
///
/// The channel's figure is wall time from the first send to the last message received,
/// so it includes framing, copies, the syscalls and every hop between tasks.
struct ThroughputBench {
    struct Result {
        var channelMBps: Double
        /// Megabytes moved per CPU-second the whole process used meanwhile: the sender's
        /// encryption and the receiver's decryption may run on two cores at once, which
        /// wall-clock MB/s credits and this does not.
        var channelMBPerCPUSecond: Double
        var rawMBps: Double
        /// MB per CPU-second of the raw cipher and the kernel's loopback TCP together
        /// (`LoopbackFloor`): what the channel could reach if its own code cost nothing.
        var rawPlusLoopbackMBPerCPUSecond: Double
        var messageBytes: Int
        var messages: Int
    }

    let sender: NodeIdentity
    let receiver: NodeIdentity
    let messages: Int

    static let messageBytes = ChannelLimits.wireMessageLimit
    /// What one message is on the wire: header, ciphertext, tag.
    static let frameBytes = Frame.headerLength + messageBytes + TransportState.tagLength

    func run(loop: EventLoop) async throws -> Result {
        var message = [UInt8](repeating: 0, count: Self.messageBytes)
        randombytes_buf(&message, message.count)
        let rawWarmup = raw(message, count: 64)
        _ = rawWarmup
        var best = Result(channelMBps: 0, channelMBPerCPUSecond: 0, rawMBps: 0, rawPlusLoopbackMBPerCPUSecond: 0,
                          messageBytes: Self.messageBytes, messages: messages)
        for _ in 0..<2 {
            let (channelSeconds, cpuSeconds) = try await channel(message, count: messages, loop: loop)
            let rawSeconds = raw(message, count: messages)
            let loopbackSeconds = try LoopbackFloor.cpuSeconds(frames: messages, frameBytes: Self.frameBytes)
            let megabytes = Double(messages * Self.messageBytes) / 1e6
            best.channelMBps = max(best.channelMBps, megabytes / channelSeconds)
            best.channelMBPerCPUSecond = max(best.channelMBPerCPUSecond, megabytes / cpuSeconds)
            best.rawMBps = max(best.rawMBps, megabytes / rawSeconds)
            best.rawPlusLoopbackMBPerCPUSecond = max(best.rawPlusLoopbackMBPerCPUSecond,
                                                     megabytes / (rawSeconds + loopbackSeconds))
        }
        return best
    }

    /// Wall and CPU seconds to move `count` messages through a fresh channel (handshake
    /// excluded).
    private func channel(_ message: [UInt8], count: Int, loop: EventLoop) async throws -> (Double, Double) {
        let limits = ChannelLimits(handshakeTimeoutMilliseconds: 10_000, idleTimeoutMilliseconds: 60_000)
        let listener = try await TCPListener.bind(host: "127.0.0.1", port: 0, maxConnections: 4, loop: loop)
        let receiver = self.receiver
        let accepting = Task {
            guard let stream = try await listener.accept() else { throw BenchFailure("listener closed early") }
            return try await SecureChannel.accept(over: stream, identity: receiver, sleeper: loop.sleeper, limits: limits)
        }
        let stream = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, loop: loop)
        let outbound = try await SecureChannel.connect(over: stream, identity: sender, expecting: receiver.pubky,
                                                       sleeper: loop.sleeper, limits: limits)
        let inbound = try await accepting.value
        let expected = message.count

        let cpuBefore = processCPUSeconds()
        let seconds = try await timedAsync {
            let reader = Task {
                var received = 0
                while received < count {
                    guard let piece = try await inbound.receive() else { throw BenchFailure("channel closed early") }
                    guard piece.count == expected else { throw BenchFailure("a message arrived cut") }
                    received += 1
                }
            }
            for _ in 0..<count { try await outbound.send(message) }
            try await reader.value
        }
        let cpuSeconds = processCPUSeconds() - cpuBefore
        await outbound.close()
        await inbound.close()
        await listener.close()
        return (seconds, cpuSeconds)
    }

    /// Seconds to encrypt and then decrypt `count` messages with preallocated buffers.
    private func raw(_ message: [UInt8], count: Int) -> Double {
        var key = [UInt8](repeating: 0, count: Int(crypto_aead_chacha20poly1305_ietf_KEYBYTES))
        crypto_aead_chacha20poly1305_ietf_keygen(&key)
        var nonce = [UInt8](repeating: 0, count: Int(crypto_aead_chacha20poly1305_ietf_NPUBBYTES))
        var ciphertext = [UInt8](repeating: 0, count: message.count + Int(crypto_aead_chacha20poly1305_ietf_ABYTES))
        var plaintext = [UInt8](repeating: 0, count: message.count)
        var failures: Int32 = 0
        let seconds = timed {
            for counter in 0..<UInt64(count) {
                // Noise's nonce layout: 4 zero bytes, then the 64-bit counter little-endian.
                withUnsafeBytes(of: counter.littleEndian) { bytes in
                    for index in 0..<8 { nonce[4 + index] = bytes[index] }
                }
                var cipherLength: UInt64 = 0
                crypto_aead_chacha20poly1305_ietf_encrypt(&ciphertext, &cipherLength, message, UInt64(message.count),
                                                          nil, 0, nil, nonce, key)
                var plainLength: UInt64 = 0
                failures &+= crypto_aead_chacha20poly1305_ietf_decrypt(&plaintext, &plainLength, nil, ciphertext,
                                                                        cipherLength, nil, 0, nonce, key)
            }
        }
        // A failed decryption would mean the comparison measured the wrong thing.
        precondition(failures == 0, "raw ChaCha20-Poly1305 round trip failed")
        return seconds
    }
}
