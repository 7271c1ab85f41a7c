/// Something that holds libuv handles on a loop. The loop keeps a registry of them so
/// `EventLoop.shutdown()` can close every handle, whoever forgot to.
protocol LoopResource: AnyObject {
    /// Called on the loop thread during shutdown: start closing all handles now. Waiters
    /// are resumed (with nil or `EventLoopError.shutDown`) by the close path.
    func closeForShutdown()
}
