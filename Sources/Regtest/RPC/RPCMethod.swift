import Transport

/// One RPC method: its name, declared arguments, help text and handler. The server turns
/// named parameters into positions, checks the count and JSON types exactly as Core's
/// `RPCHelpMan` does, then calls the handler with the positional parameters.
public struct RPCMethod: Sendable {
    public typealias Handler = @Sendable (RPCParameters) async throws -> OrderedJSON

    /// An example in the help's `Examples:` section.
    public enum Example: Sendable {
        /// `> bitcoin-cli <method> <args>`
        case cli(String)
        /// `> curl ... "params": [<args>] ...`
        case rpc(String)
    }

    public let name: String
    public let summary: String
    public let arguments: [RPCArgument]
    public let result: String
    public let examples: [Example]
    public let handler: Handler

    public init(_ name: String, summary: String, arguments: [RPCArgument] = [], result: String,
                examples: [Example], handler: @escaping Handler) {
        self.name = name
        self.summary = summary
        self.arguments = arguments
        self.result = result
        self.examples = examples
        self.handler = handler
    }

    /// Core's `RPCHelpMan::ToString()`, which Core sends as the error message when the
    /// number of parameters is wrong.
    public var help: String {
        var synopsis = name
        var optionalGroupOpen = false
        for argument in arguments {
            if !argument.isRequired && !optionalGroupOpen {
                synopsis += " ("
                optionalGroupOpen = true
            }
            synopsis += " " + argument.synopsis
        }
        if optionalGroupOpen { synopsis += " )" }
        var text = synopsis + "\n\n" + summary + "\n\n"
        if !arguments.isEmpty {
            text += "Arguments:\n"
            for (index, argument) in arguments.enumerated() { text += argument.helpLine(position: index + 1) + "\n" }
            text += "\n"
        }
        text += "Result:\n" + result + "\n\nExamples:\n"
        for example in examples {
            switch example {
            case .cli(let args):
                text += "> bitcoin-cli \(name) \(args)\n"
            case .rpc(let args):
                text += "> curl --user myusername --data-binary '{\"jsonrpc\": \"2.0\", \"id\": \"curltest\", "
                    + "\"method\": \"\(name)\", \"params\": [\(args)]}' -H 'content-type: application/json' "
                    + "http://127.0.0.1:8332/\n"
            }
        }
        return text
    }

    /// Runs the method on the request's `params` (an array, or an object of named ones).
    func call(params: JSONValue) async throws(RPCError) -> OrderedJSON {
        let positional = try positionalParameters(params)
        let required = arguments.filter(\.isRequired).count
        guard positional.count >= required, positional.count <= arguments.count else { throw .misc(help) }
        var mismatches: [OrderedJSON.Member] = []
        for (index, value) in positional.enumerated() {
            if let mismatch = arguments[index].mismatch(value) {
                mismatches.append(OrderedJSON.Member("Position \(index + 1) (\(arguments[index].names))", .string(mismatch)))
            }
        }
        if !mismatches.isEmpty {
            throw .type("Wrong type passed:\n" + OrderedJSON.object(mismatches).pretty(indent: 4))
        }
        do {
            return try await handler(RPCParameters(values: positional, arguments: arguments))
        } catch let error as RPCError {
            throw error
        } catch {
            throw .misc("\(error)")
        }
    }

    /// Core's `transformNamedArguments`: every name (or alias) is looked up in the object and
    /// placed at its position; a name no argument has is refused; trailing absent
    /// parameters are dropped so the count check sees only what was given.
    private func positionalParameters(_ params: JSONValue) throws(RPCError) -> [JSONValue] {
        switch params {
        case .array(let values):
            return values
        case .object(let members):
            var known = Set<String>()
            var positional: [JSONValue?] = Array(repeating: nil, count: arguments.count)
            for (index, argument) in arguments.enumerated() {
                for name in argument.allNames {
                    known.insert(name)
                    if let value = members[name], positional[index] == nil { positional[index] = value }
                }
            }
            for name in members.keys.sorted() where !known.contains(name) {
                throw .invalidParameter("Unknown named parameter \(name)")
            }
            while let last = positional.last, last == nil { positional.removeLast() }
            return positional.map { $0 ?? .null }
        default:
            return []
        }
    }
}
