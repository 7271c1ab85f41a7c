/// Turns requests and responses into bytes. The serializer owns framing: any
/// Content-Length or Transfer-Encoding the caller put in the headers is replaced by the
/// one matching the bytes actually written, so a message can never announce one length
/// and carry another.
public enum HTTPSerializer {
    public enum Framing: Sendable, Equatable {
        /// `Content-Length` of this many bytes.
        case contentLength(Int)
        /// `Transfer-Encoding: chunked`; follow with `chunk(_:)` pieces and `lastChunk`.
        case chunked
        /// No framing header: the body (if any) ends when the connection closes. Only for
        /// responses to HTTP/1.0 clients, and for bodiless responses (204, 304, 1xx).
        case closeDelimited
    }

    /// A whole request with a Content-Length body. GET, HEAD and friends with an empty
    /// body get no Content-Length, as RFC 9110 8.6 suggests.
    public static func serialize(_ request: HTTPRequest) throws(HTTPError) -> [UInt8] {
        let bodyless = request.body.isEmpty && [.get, .head, .delete, .options, .trace].contains(request.method)
        var bytes = try head(request, framing: bodyless ? .closeDelimited : .contentLength(request.body.count))
        bytes += request.body
        return bytes
    }

    /// A whole response with a Content-Length body. For a HEAD request the length is sent
    /// and the body left out; 1xx, 204 and 304 responses carry neither.
    public static func serialize(_ response: HTTPResponse,
                                 requestMethod: HTTPMethod = .get) throws(HTTPError) -> [UInt8] {
        if response.status.forbidsBody {
            return try head(response, framing: .closeDelimited)
        }
        var bytes = try head(response, framing: .contentLength(response.body.count))
        if requestMethod != .head { bytes += response.body }
        return bytes
    }

    /// Request line and header section, ending with the empty line.
    public static func head(_ request: HTTPRequest, framing: Framing) throws(HTTPError) -> [UInt8] {
        let target = request.target.utf8
        guard !target.isEmpty, target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw .invalidRequestTarget }
        guard HTTPParser.isToken(request.method.rawValue.utf8) else { throw .invalidRequestTarget }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        bytes += request.method.rawValue.utf8
        bytes.append(HTTPParser.space)
        bytes += target
        bytes.append(HTTPParser.space)
        bytes += request.version.description.utf8
        try appendHeaders(request.headers, framing: framing, to: &bytes)
        return bytes
    }

    /// Status line and header section, ending with the empty line.
    public static func head(_ response: HTTPResponse, framing: Framing) throws(HTTPError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        bytes += response.version.description.utf8
        bytes.append(HTTPParser.space)
        // Codes outside 100...999 cannot be written as three digits; send 500 rather than
        // a status line no client can parse.
        let code = (100...999).contains(response.status.code) ? response.status.code : 500
        bytes += String(code).utf8
        bytes.append(HTTPParser.space)
        let reason = response.status.reasonPhrase.utf8
        if reason.allSatisfy(HTTPParser.isFieldContent) { bytes += reason }
        try appendHeaders(response.headers, framing: framing, to: &bytes)
        return bytes
    }

    /// One chunk of a chunked body. An empty piece writes nothing: a zero-size chunk
    /// would end the body early.
    public static func chunk(_ piece: [UInt8]) -> [UInt8] {
        guard !piece.isEmpty else { return [] }
        var bytes = Array(String(piece.count, radix: 16).utf8)
        bytes += crlf
        bytes += piece
        bytes += crlf
        return bytes
    }

    /// The zero-size chunk and empty trailer section that end a chunked body.
    public static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)

    static let crlf: [UInt8] = [0x0D, 0x0A]

    private static func appendHeaders(_ headers: HTTPHeaders, framing: Framing,
                                      to bytes: inout [UInt8]) throws(HTTPError) {
        bytes += crlf
        for (index, field) in headers.enumerated() {
            if HTTPHeaders.namesMatch(field.name, "content-length")
                || HTTPHeaders.namesMatch(field.name, "transfer-encoding") { continue }
            // A CR or LF in a value would end the field early and let its remainder forge
            // new fields or a whole message (header injection), so such a field is refused.
            guard HTTPParser.isToken(field.name.utf8),
                  field.value.utf8.allSatisfy(HTTPParser.isFieldContent)
            else { throw .invalidOutgoingHeader(index: index) }
            bytes += field.name.utf8
            bytes += [HTTPParser.colon, HTTPParser.space]
            bytes += field.value.utf8
            bytes += crlf
        }
        switch framing {
        case .contentLength(let count):
            bytes += "Content-Length: \(count)".utf8
            bytes += crlf
        case .chunked:
            bytes += "Transfer-Encoding: chunked".utf8
            bytes += crlf
        case .closeDelimited:
            break
        }
        bytes += crlf
    }
}
