#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain OS thread for the few loops that must block outside Swift's cooperative pool:
/// the event loop, its late-job drainer, the store's checkpointer.
public enum SystemThread {
    /// `pthread_create` refused (its errno in `code`); the body never runs.
    public struct StartError: Error {
        public let code: Int32
    }

    /// Starts `body` on a new thread, which holds `body` (and what it captures) until it
    /// returns.
    public static func start(_ body: @escaping @Sendable () -> Void) throws(StartError) -> pthread_t {
        final class Body {
            let run: @Sendable () -> Void
            init(_ run: @escaping @Sendable () -> Void) { self.run = run }
        }
        var thread = pthread_t()
        let retained = Unmanaged.passRetained(Body(body)).toOpaque()
        let code = pthread_create(&thread, nil, { argument in
            Unmanaged<Body>.fromOpaque(argument!).takeRetainedValue().run()
            return nil
        }, retained)
        guard code == 0 else {
            Unmanaged<Body>.fromOpaque(retained).release()
            throw StartError(code: code)
        }
        return thread
    }
}
