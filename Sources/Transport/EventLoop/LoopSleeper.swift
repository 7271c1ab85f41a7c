/// The loop's timers as a `Sleeper`: what HTTP and the secure channel take for their
/// timeouts, so the same code runs with a test sleeper.
public struct LoopSleeper: Sleeper {
    public let loop: EventLoop

    public init(loop: EventLoop) {
        self.loop = loop
    }

    public func sleep(milliseconds: UInt64) async throws {
        try await loop.sleep(milliseconds: milliseconds)
    }

    public func alarm(milliseconds: UInt64, _ action: @escaping @Sendable () -> Void) -> Alarm {
        loop.alarm(milliseconds: milliseconds, action)
    }
}
