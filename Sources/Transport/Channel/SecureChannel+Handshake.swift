extension SecureChannel {
    /// Dials: runs the handshake as initiator over `stream` and returns the channel once the
    /// listener has proven it holds `contact`'s key. On any failure the stream is closed.
    ///
    /// Throws `wrongRemotePubky` (naming both keys when the listener announced itself) if
    /// the address belongs to another node, `handshakeTimeout` after
    /// `limits.handshakeTimeoutMilliseconds`, and other `ChannelError`s for broken input.
    public static func connect(over stream: any ByteStream, identity: NodeIdentity, expecting contact: Pubky,
                               sleeper: any Sleeper, limits: ChannelLimits = ChannelLimits()) async throws(ChannelError) -> SecureChannel {
        let handshake: ChannelHandshake
        do {
            handshake = try ChannelHandshake(initiator: identity, expecting: contact, limits: limits)
        } catch {
            await stream.close()
            throw error
        }
        return try await runHandshake(handshake, over: stream, sleeper: sleeper, limits: limits)
    }

    /// Accepts: runs the handshake as responder over `stream` and returns the channel once
    /// the dialler has proven its pubky (`remotePubky`). On any failure the stream is closed.
    public static func accept(over stream: any ByteStream, identity: NodeIdentity,
                              sleeper: any Sleeper, limits: ChannelLimits = ChannelLimits()) async throws(ChannelError) -> SecureChannel {
        let handshake: ChannelHandshake
        do {
            handshake = try ChannelHandshake(responder: identity, limits: limits)
        } catch {
            await stream.close()
            throw error
        }
        return try await runHandshake(handshake, over: stream, sleeper: sleeper, limits: limits)
    }

    /// The I/O around the pure handshake: write what it says, read until it finishes,
    /// under the handshake deadline.
    private static func runHandshake(_ start: consuming ChannelHandshake, over stream: any ByteStream,
                                     sleeper: any Sleeper, limits: ChannelLimits) async throws(ChannelError) -> SecureChannel {
        var handshake = start
        let deadline = HandshakeDeadline(milliseconds: limits.handshakeTimeoutMilliseconds, sleeper: sleeper, stream: stream)
        let timeout = ChannelError.handshakeTimeout(milliseconds: limits.handshakeTimeoutMilliseconds)
        do throws(ChannelError) {
            var step = handshake.start()
            exchange: while true {
                if !step.send.isEmpty {
                    do {
                        try await stream.write(step.send)
                    } catch {
                        throw ChannelError.streamFailed(ErrorText.describe(error))
                    }
                }
                switch step.outcome {
                case .finished:
                    break exchange
                case .failed(let error):
                    throw error
                case .needMoreBytes:
                    let bytes: [UInt8]?
                    do {
                        bytes = try await stream.read()
                    } catch {
                        throw ChannelError.streamFailed(ErrorText.describe(error))
                    }
                    guard let bytes else { throw handshake.closedEarlyError }
                    step = handshake.receive(bytes)
                }
            }
            guard deadline.finish() else { throw timeout }
        } catch {
            deadline.finish()
            await stream.close()
            // A fired deadline closed the stream; whatever the handshake saw then is its echo.
            throw deadline.hasFired ? timeout : error
        }
        let session: ChannelSession
        do {
            session = try handshake.finish()
        } catch {
            await stream.close()
            throw error
        }
        let channel = SecureChannel(session: session, stream: stream, sleeper: sleeper, limits: limits)
        await channel.startIdleWatch()
        return channel
    }
}
