import XCTest

/// A provider node on the hub for each test (`ProviderHarness`), stopped after it.
class ProviderHarnessTestCase: XCTestCase {
    var harness: ProviderHarness!

    override func setUp() async throws {
        harness = try await ProviderHarness.start(storePath: try StoreFixture.directory(for: self) + "/provider.sqlite")
    }

    override func tearDown() async throws {
        await harness?.shutDown()
        harness = nil
    }
}
