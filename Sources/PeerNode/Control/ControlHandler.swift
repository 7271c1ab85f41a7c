import Transport

/// Sends one progress line to the client that ran a long command (`pay`). A client that
/// went away misses it; the command goes on.
public typealias ControlProgress = @Sendable (JSONValue) async -> Void

/// Runs control commands: what the `ControlServer` calls for each request line.
public protocol ControlHandler: Sendable {
    func handle(_ request: ControlMessage.Request, progress: @escaping ControlProgress) async -> Result<JSONValue, ControlError>
}
