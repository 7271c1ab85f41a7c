/// One decision of the submarine machine: the state to store (nil: unchanged), then the
/// actions to run, in order. The engine stores `next` durably before it runs any action,
/// so every act (above all `pay`) is preceded on disk by the state that announced it.
public struct SubmarineProviderStep: Sendable, Hashable {
    public var next: SubmarineProviderState?
    public var actions: [SubmarineProviderAction]

    public init(next: SubmarineProviderState? = nil, actions: [SubmarineProviderAction] = []) {
        self.next = next
        self.actions = actions
    }

    static let none = SubmarineProviderStep()
}
