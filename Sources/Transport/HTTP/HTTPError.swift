/// Everything that can go wrong speaking HTTP/1.1, on either side.
///
/// Messages name the rule that was broken and the limit involved, never the bytes the
/// peer sent (they may be huge or hostile) nor header values (they may be credentials).
public enum HTTPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The request line or status line does not have the RFC 9112 shape.
    case invalidStartLine
    /// The message is not HTTP/1.x.
    case unsupportedVersion
    /// A header line is malformed: no colon, a bad name, whitespace before the colon, a
    /// control character, or an obsolete folded continuation line.
    case invalidHeader
    /// The start line and header fields (or the trailer section) exceed this many bytes.
    case headerSectionTooLarge(limit: Int)
    /// More header fields (or trailer fields) than this.
    case tooManyHeaders(limit: Int)
    /// A Content-Length value is not a plain decimal number.
    case invalidContentLength
    /// Content-Length appears with different values.
    case conflictingContentLength
    /// A Content-Length value does not fit in an Int.
    case contentLengthOverflow
    /// Both Content-Length and Transfer-Encoding: a request-smuggling shape we refuse.
    case contentLengthWithTransferEncoding
    /// A transfer coding other than exactly `chunked` (no gzip etc.), or chunked framing
    /// in an HTTP/1.0 request.
    case unsupportedTransferEncoding
    /// A chunk-size line is not hexadecimal digits with optional extensions.
    case invalidChunkSize
    /// A chunk size does not fit in an Int.
    case chunkSizeOverflow
    /// A chunk-size line is longer than this many bytes (extensions included).
    case chunkLineTooLong(limit: Int)
    /// The chunk data is not followed by CRLF.
    case invalidChunkTerminator
    /// The body is larger than this many bytes.
    case bodyTooLarge(limit: Int)
    /// A line of a streamed body is longer than this many bytes.
    case lineTooLong(limit: Int)
    /// The connection ended in the middle of a message.
    case unexpectedEOF
    /// The connection ended before any byte of the response: the server closed it.
    case connectionClosed
    /// An outgoing header field has an invalid name or a value with CR, LF or NUL, which
    /// would let its content forge headers; the 0-based index of the field.
    case invalidOutgoingHeader(index: Int)
    /// An outgoing request target is empty or contains whitespace or control characters.
    case invalidRequestTarget
    /// The exchange did not finish within the timeout.
    case timeout(milliseconds: UInt64)
    /// The client was shut down.
    case clientClosed

    public var description: String {
        switch self {
        case .invalidStartLine: return "malformed HTTP request line or status line"
        case .unsupportedVersion: return "unsupported HTTP version (only HTTP/1.x is spoken)"
        case .invalidHeader: return "malformed HTTP header field"
        case .headerSectionTooLarge(let limit): return "HTTP header section larger than \(limit) bytes"
        case .tooManyHeaders(let limit): return "more than \(limit) HTTP header fields"
        case .invalidContentLength: return "Content-Length is not a decimal number"
        case .conflictingContentLength: return "Content-Length appears with different values"
        case .contentLengthOverflow: return "Content-Length is too large to represent"
        case .contentLengthWithTransferEncoding:
            return "message has both Content-Length and Transfer-Encoding; refused as ambiguous framing"
        case .unsupportedTransferEncoding: return "unsupported Transfer-Encoding (only chunked is accepted)"
        case .invalidChunkSize: return "malformed chunk size line"
        case .chunkSizeOverflow: return "chunk size is too large to represent"
        case .chunkLineTooLong(let limit): return "chunk size line longer than \(limit) bytes"
        case .invalidChunkTerminator: return "chunk data not followed by CRLF"
        case .bodyTooLarge(let limit): return "HTTP body larger than \(limit) bytes"
        case .lineTooLong(let limit): return "streamed line longer than \(limit) bytes"
        case .unexpectedEOF: return "connection closed in the middle of an HTTP message"
        case .connectionClosed: return "connection closed by the server before a response"
        case .invalidOutgoingHeader(let index):
            return "outgoing header field #\(index) has an invalid name or a CR, LF or NUL in its value"
        case .invalidRequestTarget: return "request target is empty or contains whitespace or control characters"
        case .timeout(let milliseconds): return "HTTP exchange timed out after \(milliseconds) ms"
        case .clientClosed: return "the HTTP client was shut down"
        }
    }

    /// The status a server answers with before closing a connection that sent this.
    var responseStatus: HTTPStatus {
        switch self {
        case .headerSectionTooLarge, .tooManyHeaders: return .requestHeaderFieldsTooLarge
        case .bodyTooLarge: return .contentTooLarge
        case .unsupportedVersion: return .httpVersionNotSupported
        case .unsupportedTransferEncoding: return .notImplemented
        default: return .badRequest
        }
    }
}
