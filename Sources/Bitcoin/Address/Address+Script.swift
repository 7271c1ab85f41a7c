extension Address {
    /// The output script that pays this address.
    public var script: Script { Script(bytes: scriptPubKey) }

    /// The address an output script pays, if it is one of the standard templates.
    public init(script: Script) throws {
        try self.init(scriptPubKey: script.bytes)
    }
}
