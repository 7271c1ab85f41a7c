/// A non-Sendable value (a libuv handle pointer, a read buffer) that crosses into an
/// actor pinned to the loop. The compiler cannot see that both sides run on the loop
/// thread, so this says it.
///
/// `@unchecked Sendable`: wrap only values created on the loop thread and handed to an
/// actor whose executor is that loop, or used inside `assumeIsolated` there; the value is
/// then never touched by two threads.
struct LoopConfined<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
