/// One TCP connect raced against an alarm on a `Sleeper`: the alarm cancels the connect,
/// and cancellation is what stops a connect (`TCPConnector` closes its handle), so no
/// timer has to reach into libuv. A connect that completes in the instant the alarm fires
/// is used, not leaked: the cancellation came too late to matter.
enum TCPConnectAttempt {
    enum Failure: Error {
        case timedOut
        case failed(any Error)
    }

    static func run(host: String, port: Int, loop: EventLoop, sleeper: any Sleeper,
                    timeoutMilliseconds: UInt64?, readBufferLimit: Int) async throws(Failure) -> TCPConnection {
        guard let timeoutMilliseconds else {
            do {
                return try await TCPConnection.connect(host: host, port: port, loop: loop, readBufferLimit: readBufferLimit)
            } catch {
                throw .failed(error)
            }
        }
        let connecting = Task {
            try await TCPConnection.connect(host: host, port: port, loop: loop, readBufferLimit: readBufferLimit)
        }
        let alarm = sleeper.alarm(milliseconds: timeoutMilliseconds) { connecting.cancel() }
        do {
            let connection = try await withTaskCancellationHandler {
                try await connecting.value
            } onCancel: {
                connecting.cancel()
            }
            alarm.disarm()
            return connection
        } catch {
            // Whatever error the cancelled connect surfaced, the cause was the clock.
            throw alarm.disarm() ? .timedOut : .failed(error)
        }
    }
}
