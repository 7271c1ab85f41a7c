import Transport

/// The control API's wire format: newline-delimited JSON over the unix socket.
///
///     -> {"command": "contacts.add", "args": {"name": "bob", ...}}
///     <- {"progress": {...}}                       (zero or more, long commands only)
///     <- {"ok": true, "result": {...}}             or
///     <- {"ok": false, "error": {"code": "...", "message": "..."}}
///
/// Each line is one JSON value in canonical form (no raw newlines inside). A connection
/// may send several requests one after the other; each gets its lines before the next
/// is read.
public enum ControlMessage {
    /// The longest request line accepted; requests are a command name and a few fields.
    public static let maxLineBytes = 64 * 1024

    /// Commands that follow a swap while it waits for blocks: a shutdown detaches them
    /// (answers `detached`) instead of waiting for the swap to end (`ControlServer`).
    public static let attachedCommands: Set<String> = ["pay", "swap-out", "swap-in", "swap.watch"]

    public struct Request: Sendable, Equatable {
        public let command: String
        /// Always an object (empty when the request had none).
        public let args: JSONValue

        public init(command: String, args: JSONValue = .object([:])) {
            self.command = command
            self.args = args
        }

        public var line: [UInt8] {
            JSONValue.object(["command": .string(command), "args": args]).canonicalBytes + [0x0A]
        }

        public static func parse(_ line: [UInt8]) throws(ControlError) -> Request {
            let value: JSONValue
            do {
                value = try JSONParser.parse(line, limits: JSONParser.Limits(maxLength: maxLineBytes, maxDepth: 16))
            } catch {
                throw .invalidRequest("the request is not JSON: \(error)")
            }
            guard case .object = value else { throw .invalidRequest("the request is not a JSON object") }
            guard let command = value["command"]?.stringValue, !command.isEmpty else {
                throw .invalidRequest("the request has no \"command\" string")
            }
            let args = value["args"] ?? .object([:])
            guard case .object = args else { throw .invalidRequest("\"args\" is not an object") }
            return Request(command: command, args: args)
        }
    }

    /// One line from the daemon.
    public enum Reply: Sendable, Equatable {
        case progress(JSONValue)
        case result(JSONValue)
        case error(ControlError)

        public var line: [UInt8] {
            let value: JSONValue
            switch self {
            case .progress(let progress):
                value = .object(["progress": progress])
            case .result(let result):
                value = .object(["ok": .bool(true), "result": result])
            case .error(let error):
                value = .object(["ok": .bool(false),
                                 "error": .object(["code": .string(error.code), "message": .string(error.message)])])
            }
            return value.canonicalBytes + [0x0A]
        }

        public static func parse(_ line: [UInt8]) throws(ControlError) -> Reply {
            let value: JSONValue
            do {
                value = try JSONParser.parse(line, limits: JSONParser.Limits(maxLength: 16 << 20, maxDepth: 32))
            } catch {
                throw ControlError(code: ControlError.Code.internal, message: "the daemon's reply is not JSON: \(error)")
            }
            if let progress = value["progress"] { return .progress(progress) }
            switch value["ok"]?.boolValue {
            case true?:
                return .result(value["result"] ?? .object([:]))
            case false?:
                let code = value["error"]?["code"]?.stringValue ?? ControlError.Code.internal
                let message = value["error"]?["message"]?.stringValue ?? "the daemon gave no reason"
                return .error(ControlError(code: code, message: message))
            case nil:
                throw ControlError(code: ControlError.Code.internal, message: "the daemon's reply has no \"ok\"")
            }
        }
    }
}
