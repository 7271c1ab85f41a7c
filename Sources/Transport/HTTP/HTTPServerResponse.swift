/// What a server handler answers: a whole response, or a head and a body that is produced
/// over time (an LND-style subscription), sent with chunked framing as pieces arrive.
public enum HTTPServerResponse: Sendable {
    case complete(HTTPResponse)
    case streaming(HTTPStreamingResponse)
}
