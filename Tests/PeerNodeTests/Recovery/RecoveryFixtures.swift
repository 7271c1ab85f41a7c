import Bitcoin
import Foundation
import HTLC
@testable import PeerNode
import Transport
import XCTest

/// What a node loses with its database: the SQLite file and its WAL and shared-memory files.
func deleteDatabase(at path: String) throws {
    for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
        try FileManager.default.removeItem(atPath: path + suffix)
    }
}

/// The swap parameters a client still holds outside its database (its SwapAccept and the
/// terms it asked for), read from its record before the record is lost.
func clientRecoveryParameters(_ store: SQLiteSwapStore, swapID: String) async throws -> JSONValue {
    let stored = try await store.swap(swapID)
    let record = try XCTUnwrap(stored)
    let accepted = try await store.events(of: swapID).first { $0.kind == ClientSwapPhase.accepted.rawValue }
    let accept = try XCTUnwrap(accepted?.data["accept"])
    return .object(["role": .string("client"), "swap_index": .integer(record.swapIndex), "terms": record.contract,
                    "accept": accept])
}

/// The provider's parameters: its accept, quote and the client's request, and who the client is.
func providerRecoveryParameters(_ store: SQLiteSwapStore, swapID: String) async throws -> JSONValue {
    let stored = try await store.swap(swapID)
    let record = try XCTUnwrap(stored)
    return .object(["role": .string("provider"), "swap_index": .integer(record.swapIndex), "client": .string(record.peer),
                    "accept": try XCTUnwrap(record.contract["accept"]), "quote": try XCTUnwrap(record.contract["quote"]),
                    "request": try XCTUnwrap(record.contract["request"])])
}
