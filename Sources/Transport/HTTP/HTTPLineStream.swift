/// A response whose body is read as newline-delimited lines while it arrives: how LND's
/// REST API streams subscriptions and payment updates, one JSON object per line.
public struct HTTPLineStream: Sendable {
    /// Status and headers; the body is in `lines`. Check the status before relying on the
    /// lines: an error response's body arrives there too.
    public let response: HTTPResponse
    /// Each line without its line ending; blank lines are skipped. Finishes when the body
    /// ends and throws if the connection breaks or the framing is malformed. Leaving the
    /// iteration early closes the connection.
    public let lines: HTTPLineSequence
}
