// CorePackBuild.swift - what a core pack build produced: the pack and its manifest (seed 000 S-5).
import Foundation
import SDUI

/// What a build produced.
public struct CorePackBuild: Sendable {
    /// The gzipped pack.
    public var pack: Data
    /// The manifest (S-5), as written next to the pack.
    public var manifest: Manifest

    public struct Manifest: Codable, Sendable, Equatable {
        public struct Entry: Codable, Sendable, Equatable {
            public var id: String
            public var version: Int
            public var etag: String
            public var bytes: Int
            public var usage: Int
        }
        public var formatVersion = 1
        public var budgetBytes: Int
        public var packBytes: Int
        /// packBytes / budgetBytes.
        public var budgetUsed: Double
        public var rawBytes: Int
        public var candidates: Int
        public var tokens: [Entry]
        public var usagePeriod: String?
        public var previousPackBytes: Int?
        public var deltaBytes: Int?
    }
}
