/// An error in the words a user reads, for messages and the log (issue 14). Swift's own
/// rendering of an error without a description is its type and fields
/// ("CancellationError()"), which tells a user nothing; errors of this package describe
/// themselves (`CustomStringConvertible`) and keep the technical names in their fields.
public enum ErrorText {
    public static func describe(_ error: any Error) -> String {
        if error is CancellationError { return "cancelled (the node is stopping or the request ended)" }
        if let described = error as? any CustomStringConvertible { return described.description }
        return "an unexpected failure"
    }
}
