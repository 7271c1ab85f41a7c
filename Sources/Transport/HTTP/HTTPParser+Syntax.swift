// The RFC 9112 grammar for single lines, as pure functions over the bytes of one line
// (line ending already removed). The state machine in HTTPParser.swift decides which
// grammar applies; these only say whether a line matches and what it holds.

extension HTTPParser {
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A
    static let semicolon: UInt8 = 0x3B
    static let comma: UInt8 = 0x2C

    /// tchar (RFC 9110 5.6.2): the characters of methods and field names.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"),
             UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    static func isToken<C: Collection<UInt8>>(_ bytes: C) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy(isTokenCharacter)
    }

    /// Field values and reason phrases: visible characters, spaces, tabs and obs-text.
    /// Every other control character (CR and NUL above all) is refused, since lenient
    /// handling of them is how request smuggling starts.
    static func isFieldContent(_ byte: UInt8) -> Bool {
        byte == tab || (byte >= 0x20 && byte != 0x7F)
    }

    static func text<C: Collection<UInt8>>(_ bytes: C) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// `HTTP/<digit>.<digit>`; only major version 1 is accepted.
    static func parseVersion(_ bytes: ArraySlice<UInt8>) throws(HTTPError) -> HTTPVersion {
        let prefix: [UInt8] = Array("HTTP/".utf8)
        guard bytes.count == 8, bytes.starts(with: prefix) else { throw .invalidStartLine }
        let major = bytes[bytes.startIndex + 5], dot = bytes[bytes.startIndex + 6]
        let minor = bytes[bytes.startIndex + 7]
        guard isDigit(major), dot == UInt8(ascii: "."), isDigit(minor) else { throw .invalidStartLine }
        guard major == UInt8(ascii: "1") else { throw .unsupportedVersion }
        return HTTPVersion(major: 1, minor: Int(minor - UInt8(ascii: "0")))
    }

    /// `method SP request-target SP HTTP-version`, single spaces exactly.
    static func parseRequestLine(_ line: ArraySlice<UInt8>) throws(HTTPError)
        -> (HTTPMethod, String, HTTPVersion)
    {
        let parts = line.split(separator: space, maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 3, isToken(parts[0]) else { throw .invalidStartLine }
        let target = parts[1]
        guard !target.isEmpty, target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw .invalidStartLine }
        let version = try parseVersion(parts[2])
        return (HTTPMethod(rawValue: text(parts[0])), text(target), version)
    }

    /// `HTTP-version SP 3DIGIT SP reason-phrase`; a missing reason (and its space) is
    /// accepted because some servers omit it.
    static func parseStatusLine(_ line: ArraySlice<UInt8>) throws(HTTPError) -> (HTTPVersion, HTTPStatus) {
        let parts = line.split(separator: space, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2 else { throw .invalidStartLine }
        let version = try parseVersion(parts[0])
        let code = parts[1]
        guard code.count == 3, code.allSatisfy(isDigit), code.first != UInt8(ascii: "0") else {
            throw .invalidStartLine
        }
        let value = code.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        let reason = parts.count == 3 ? parts[2] : []
        guard reason.allSatisfy(isFieldContent) else { throw .invalidStartLine }
        return (version, HTTPStatus(code: value, reasonPhrase: text(reason)))
    }

    /// `field-name ":" OWS field-value OWS`. A line starting with whitespace is an obsolete
    /// folded continuation, which RFC 9112 5.2 lets us refuse, and we do.
    static func parseField(_ line: ArraySlice<UInt8>) throws(HTTPError) -> HTTPHeaders.Field {
        guard let colon = line.firstIndex(of: colon) else { throw .invalidHeader }
        let name = line[line.startIndex..<colon]
        guard isToken(name) else { throw .invalidHeader }
        var value = line[(colon + 1)...]
        while let first = value.first, first == space || first == tab { value = value.dropFirst() }
        while let last = value.last, last == space || last == tab { value = value.dropLast() }
        guard value.allSatisfy(isFieldContent) else { throw .invalidHeader }
        return HTTPHeaders.Field(name: text(name), value: text(value))
    }

    /// The single length all Content-Length fields agree on. Repeats of one value, also as
    /// a comma list, are tolerated (RFC 9110 8.6); different values are refused.
    static func contentLength(_ values: [String]) throws(HTTPError) -> Int? {
        var length: Int?
        for value in values {
            for element in value.utf8.split(separator: comma, omittingEmptySubsequences: false) {
                var digits = element[...]
                while let first = digits.first, first == space || first == tab { digits = digits.dropFirst() }
                while let last = digits.last, last == space || last == tab { digits = digits.dropLast() }
                guard !digits.isEmpty, digits.allSatisfy(isDigit) else { throw .invalidContentLength }
                var number = 0
                for digit in digits {
                    let (shifted, overflowA) = number.multipliedReportingOverflow(by: 10)
                    let (sum, overflowB) = shifted.addingReportingOverflow(Int(digit - UInt8(ascii: "0")))
                    guard !overflowA, !overflowB else { throw .contentLengthOverflow }
                    number = sum
                }
                if let length, length != number { throw .conflictingContentLength }
                length = number
            }
        }
        return length
    }

    /// `chunk-size [ chunk-ext ]`: hexadecimal digits, then optionally whitespace and
    /// `;`-introduced extensions, which are checked for control characters and ignored.
    static func parseChunkSize(_ line: ArraySlice<UInt8>) throws(HTTPError) -> Int {
        var index = line.startIndex
        var size = 0
        while index < line.endIndex, let digit = hexValue(line[index]) {
            let (shifted, overflowA) = size.multipliedReportingOverflow(by: 16)
            let (sum, overflowB) = shifted.addingReportingOverflow(digit)
            guard !overflowA, !overflowB else { throw .chunkSizeOverflow }
            size = sum
            index += 1
        }
        guard index > line.startIndex else { throw .invalidChunkSize }
        while index < line.endIndex, line[index] == space || line[index] == tab { index += 1 }
        guard index < line.endIndex else { return size }
        guard line[index] == semicolon, line[index...].allSatisfy(isFieldContent) else {
            throw .invalidChunkSize
        }
        return size
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(byte - UInt8(ascii: "A")) + 10
        default: return nil
        }
    }
}
