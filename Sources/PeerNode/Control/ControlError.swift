/// A control command's failure as the API reports it: a stable `code` scripts switch on
/// and a `message` a person can act on. Messages never carry secrets.
public struct ControlError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: String
    public let message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(message) (\(code))" }

    /// The request is not a JSON object with a string `command` and an object `args`,
    /// or an argument is missing or malformed.
    public static func invalidRequest(_ message: String) -> ControlError { ControlError(code: Code.invalidRequest, message: message) }
    public static func unknownCommand(_ name: String) -> ControlError {
        ControlError(code: Code.unknownCommand, message: "unknown command \"\(name)\"")
    }
    public static func notFound(_ message: String) -> ControlError { ControlError(code: Code.notFound, message: message) }
    /// The command exists but what it needs is not part of this build or this node yet.
    public static func notAvailable(_ message: String) -> ControlError { ControlError(code: Code.notAvailable, message: message) }
    /// A backend (Bitcoin Core, LND, a peer) failed or refused.
    public static func backend(_ message: String) -> ControlError { ControlError(code: Code.backend, message: message) }
    /// Saving would silently change an existing contact (`ContactConflict`); nothing changed.
    public static func contactConflict(_ message: String) -> ControlError { ControlError(code: Code.contactConflict, message: message) }
    public static func failed(_ message: String) -> ControlError { ControlError(code: Code.failed, message: message) }
    /// The daemon is shutting down and takes no new commands.
    public static let shuttingDown = ControlError(code: Code.shuttingDown, message: "the daemon is shutting down")

    /// The daemon stopped while an attached command (`pay`, `swap-out`, `swap.watch`)
    /// waited on its swap: the swap is stored and goes on when the daemon runs again.
    public static let detached = ControlError(code: Code.detached, message: "the daemon is stopping; the swap is saved "
                                                  + "and goes on when the daemon runs again")

    /// The codes of the control API.
    public enum Code {
        public static let invalidRequest = "invalid_request"
        public static let unknownCommand = "unknown_command"
        public static let notFound = "not_found"
        public static let notAvailable = "not_available"
        public static let backend = "backend_error"
        public static let failed = "failed"
        public static let shuttingDown = "shutting_down"
        public static let detached = "detached"
        public static let contactConflict = "contact_conflict"
        public static let `internal` = "internal"
    }
}
