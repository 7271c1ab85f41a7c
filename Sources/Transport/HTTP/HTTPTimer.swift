/// A one-shot timer on a `Sleeper` that runs an action unless disarmed first. Timeouts
/// work by closing the connection, because that is what unblocks a pending read on any
/// `ByteStream`; the caller then asks `disarm()` whether the timer was the cause.
///
/// The sleeper's `Alarm` keeps the time (on the event loop, without a task of its own), so
/// finishing early never waits for it; the action, which may await, gets a task only when
/// the alarm fires.
final class HTTPTimer: Sendable {
    private let alarm: Alarm?

    /// Starts the timer; nil milliseconds means no timeout (an inert timer).
    init(milliseconds: UInt64?, sleeper: any Sleeper, action: @escaping @Sendable () async -> Void) {
        alarm = milliseconds.map { sleeper.alarm(milliseconds: $0) { Task { await action() } } }
    }

    /// Stops the timer; true if it had already fired.
    @discardableResult
    func disarm() -> Bool {
        alarm?.disarm() ?? false
    }

    var hasFired: Bool {
        alarm?.hasFired ?? false
    }
}
