/// A one-shot timer that closes a stream unless the handshake on it finishes first.
///
/// The sleeper's `Alarm` keeps the time (on the event loop: no task, and no wake-up of the
/// loop to arm or disarm it as a rule); `finish()` tells the handshake whether the alarm
/// got there first.
final class HandshakeDeadline: Sendable {
    private let alarm: Alarm

    init(milliseconds: UInt64, sleeper: any Sleeper, stream: any ByteStream) {
        // Closing ends the handshake's pending read, which then reports the timeout.
        alarm = sleeper.alarm(milliseconds: milliseconds) { Task { await stream.close() } }
    }

    /// Stops the timer. False if it had already fired (the handshake must then fail).
    @discardableResult
    func finish() -> Bool {
        !alarm.disarm()
    }

    var hasFired: Bool { alarm.hasFired }
}
