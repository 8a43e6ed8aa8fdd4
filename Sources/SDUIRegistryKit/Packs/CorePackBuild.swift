// CorePackBuild.swift - what a core pack build produced: the pack and its manifest.
import Foundation
import SDUI

/// What a build produced.
public struct CorePackBuild: Sendable {
    /// The gzipped pack.
    public var pack: Data
    /// The manifest, as written next to the pack.
    public var manifest: Manifest

    /// What a build put in the pack and how big it is; `Codable`, so it can
    /// be written as JSON beside the pack.
    public struct Manifest: Codable, Sendable, Equatable {
        /// One token in the pack.
        public struct Entry: Codable, Sendable, Equatable {
            /// The token's id.
            public var id: String
            /// The version packed.
            public var version: Int
            /// The ETag of the token's JSON as given (`ETag.of(json:)`: the quoted
            /// SHA-256).
            public var etag: String
            /// The size of the token's JSON as given, in bytes (before minifying).
            public var bytes: Int
            /// The token's count in the usage telemetry; 0 when it has none.
            public var usage: Int
        }
        /// The manifest's format version: 1.
        public var formatVersion = 1
        /// The budget the gzipped pack had to fit, in bytes.
        public var budgetBytes: Int
        /// The size of the gzipped pack, in bytes.
        public var packBytes: Int
        /// packBytes / budgetBytes.
        public var budgetUsed: Double
        /// The size of the pack's JSON document before gzip, in bytes.
        public var rawBytes: Int
        /// How many candidates the build was given, packed or not.
        public var candidates: Int
        /// The tokens packed, in rank order: highest usage first, ties by id,
        /// tokens without telemetry last.
        public var tokens: [Entry]
        /// The period the usage telemetry covers (``UsageTelemetry/period``); nil
        /// when there was no telemetry or it named no period.
        public var usagePeriod: String?
        /// The size of the previous pack the build was compared with, in bytes;
        /// nil when it was given none.
        public var previousPackBytes: Int?
        /// `packBytes` less `previousPackBytes` (negative when the pack shrank);
        /// nil without a previous pack.
        public var deltaBytes: Int?
    }
}
