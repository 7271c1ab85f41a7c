/// Failures of the loop itself, as opposed to a libuv call.
public enum EventLoopError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The loop is shutting down or stopped; it accepts no new handles or waits.
    case shutDown

    public var description: String {
        switch self {
        case .shutDown: return "the event loop is shut down"
        }
    }
}
