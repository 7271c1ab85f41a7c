/// One TCP connect raced against a timer on a `Sleeper`: whichever ends first wins and
/// the other is cancelled. Cancellation is what stops a connect (`TCPConnector` closes its
/// handle), so no timer has to reach into libuv, and a connection that completes in the
/// instant the timer fires is closed rather than leaked.
enum TCPConnectAttempt {
    enum Failure: Error {
        case timedOut
        case failed(any Error)
    }

    private enum Outcome: Sendable {
        case connected(TCPConnection)
        case failed(any Error)
        case timedOut
        /// The timer was cancelled because the connect finished first.
        case timerStopped
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
        let result = await withTaskGroup(of: Outcome.self) { group -> Result<TCPConnection, Failure> in
            group.addTask {
                do {
                    return .connected(try await TCPConnection.connect(
                        host: host, port: port, loop: loop, readBufferLimit: readBufferLimit))
                } catch {
                    return .failed(error)
                }
            }
            group.addTask {
                do {
                    try await sleeper.sleep(milliseconds: timeoutMilliseconds)
                    return .timedOut
                } catch {
                    return .timerStopped
                }
            }
            var decided: Result<TCPConnection, Failure>?
            while let outcome = await group.next() {
                switch outcome {
                case .connected(let connection):
                    // Connected after the timer already decided: nobody will use it.
                    if decided == nil { decided = .success(connection) } else { await connection.close() }
                case .failed(let error):
                    if decided == nil { decided = .failure(.failed(error)) }
                case .timedOut:
                    if decided == nil { decided = .failure(.timedOut) }
                case .timerStopped:
                    break
                }
                group.cancelAll()
            }
            // Both children always report, so a decision exists; `.timerStopped` alone
            // happens only if the caller was cancelled, which the connect reports too.
            return decided ?? .failure(.failed(CancellationError()))
        }
        return try result.get()
    }
}
