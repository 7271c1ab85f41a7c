import Synchronization

/// A one-shot timer: its action runs once when the time comes, unless `disarm()` came
/// first. What keeps the time is the `Sleeper` that made it: on an `EventLoop`, one loop
/// timer for all of the loop's alarms (`LoopAlarms`), so arming and disarming take a lock
/// and never wake the loop's thread; elsewhere, a task that sleeps.
///
/// The action runs on whatever thread keeps the time (the loop's, for a loop alarm): it
/// must not block, and starts a task for anything that awaits. Disarming drops the action,
/// and what it captured, at once, however far off the alarm was.
public final class Alarm: Sendable {
    private enum Phase {
        case armed(@Sendable () -> Void)
        case fired
        case disarmed
    }

    private struct State {
        var phase: Phase
        /// What disarming must also stop (a sleeping task); nil for a loop alarm.
        var stopTimekeeper: (@Sendable () -> Void)?
    }

    private let state: Mutex<State>

    init(_ action: @escaping @Sendable () -> Void) {
        state = Mutex(State(phase: .armed(action)))
    }

    /// Runs the action if the alarm is still armed; called once, by the timekeeper.
    func fire() {
        let action = state.withLock { state -> (@Sendable () -> Void)? in
            guard case .armed(let action) = state.phase else { return nil }
            state.phase = .fired
            state.stopTimekeeper = nil
            return action
        }
        action?()
    }

    /// Stops the alarm. True when it had already fired: its action ran, or is running.
    @discardableResult
    public func disarm() -> Bool {
        let (fired, stop) = state.withLock { state -> (Bool, (@Sendable () -> Void)?) in
            if case .fired = state.phase { return (true, nil) }
            state.phase = .disarmed
            defer { state.stopTimekeeper = nil }
            return (false, state.stopTimekeeper)
        }
        stop?()
        return fired
    }

    public var hasFired: Bool {
        state.withLock { if case .fired = $0.phase { return true } else { return false } }
    }

    var isArmed: Bool {
        state.withLock { if case .armed = $0.phase { return true } else { return false } }
    }

    /// Registers what `disarm()` must stop; runs it at once if the alarm is disarmed already.
    func onDisarm(_ stop: @escaping @Sendable () -> Void) {
        let disarmed = state.withLock { state -> Bool in
            guard case .armed = state.phase else { return true }
            state.stopTimekeeper = stop
            return false
        }
        if disarmed { stop() }
    }
}

extension Sleeper {
    /// Runs `action` once, `milliseconds` from now, unless the alarm is disarmed first: a
    /// task sleeps on this sleeper, and disarming cancels it. `EventLoop` and `LoopSleeper`
    /// keep their alarms on the loop instead, without a task each.
    public func alarm(milliseconds: UInt64, _ action: @escaping @Sendable () -> Void) -> Alarm {
        let alarm = Alarm(action)
        let sleeping = Task { [self] in
            do { try await sleep(milliseconds: milliseconds) } catch { return }
            alarm.fire()
        }
        alarm.onDisarm { sleeping.cancel() }
        return alarm
    }
}
