import Bitcoin
import Transport

/// The status API's bearer token: 32 random bytes, hex, in `<datadir>/status.token`
/// (mode 0600), made at the first start with `status_listen` set and read at every later
/// one, so a scraper's configuration survives restarts. Whoever can read the file may read
/// the node's status; nothing the API serves can move money.
public struct StatusToken: Sendable {
    public static let fileName = "status.token"
    static let byteCount = 32

    /// The token as written in the file and sent by clients (64 lowercase hex digits).
    let hex: String

    init(hex: String) {
        self.hex = hex
    }

    /// A fresh random token (from the system's CSPRNG).
    static func random() -> StatusToken {
        StatusToken(hex: randomHex(byteCount: byteCount))
    }

    /// Reads `<datadir>/status.token`, or creates it (0600, O_EXCL) when it is missing.
    /// A file that is not 64 hex digits, or that others can read, stops the start: the
    /// operator fixes or removes it (a new token is then made).
    static func loadOrCreate(datadir: String) throws(DaemonError) -> StatusToken {
        let path = NodeConfig.path(datadir, fileName)
        if PosixFile.kind(of: path) == nil {
            let token = random()
            do {
                try PosixFile.create(path, text: token.hex + "\n", mode: 0o600)
            } catch {
                throw .file("cannot create the status token \(path): \(error)")
            }
            return token
        }
        if let mode = PosixFile.permissions(of: path), mode & 0o077 != 0 {
            throw .file("the status token \(path) has mode \(String(mode, radix: 8)): others can read it; chmod 600 \(path)")
        }
        let bytes: [UInt8]
        do {
            bytes = try PosixFile.read(path, limit: 1_024)
        } catch {
            throw .file("cannot read the status token \(path): \(error)")
        }
        let text = String(decoding: bytes, as: UTF8.self).trimmingSuffixWhitespace
        guard text.utf8.count == byteCount * 2, text.utf8.allSatisfy(Self.isLowerHex) else {
            throw .file("the status token \(path) is not \(byteCount * 2) hex digits; remove it and a new one is made at the next start")
        }
        return StatusToken(hex: text)
    }

    /// Whether `candidate` is the token, in time that depends only on its length (which is
    /// public), never on how many leading bytes match.
    func matches(_ candidate: String) -> Bool {
        Self.constantTimeEqual(Array(hex.utf8), Array(candidate.utf8))
    }

    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }

    static func randomHex(byteCount: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: byteCount)
        for index in bytes.indices { bytes[index] = generator.next() }
        return bytes.hex
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}

private extension String {
    var trimmingSuffixWhitespace: String {
        var text = Substring(self)
        while let last = text.last, last == "\n" || last == "\r" || last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
