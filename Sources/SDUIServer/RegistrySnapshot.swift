// RegistrySnapshot.swift - the registry in memory, ready to answer requests.
#if Server
import Foundation
import Logging
import SDUI
import SDUIFlow
import SDUICore

/// An immutable view of the registry at one sequence number.  Servers
/// answer from a snapshot and replace it with ``applying(_:generation:signer:logger:)``
/// when the store has moved on.  Rows that do not parse (written to the
/// database by something else) are logged and left out, never served.
final class RegistrySnapshot: Sendable {
    let generation: Int64
    /// Versions of each id, highest first.
    let tokens: [String: [ServedToken]]
    let screens: [String: ServedScreen]
    let flows: [String: ServedFlow]
    /// Every stored experiment that parses, by key (drafts and stopped ones too).
    let experiments: [String: ServedExperiment]
    /// The running experiments, by key: what requests assign with, sorted once here.
    let runningExperiments: [ServedExperiment]
    /// `GET /experiments`: the running experiments' definitions, by key, and its ETag.
    let experimentsBody: (json: Data, etag: String)
    /// The newest sound catalog of each locale, and the default locale
    /// (``ServedStrings``).
    let strings: ServedStrings

    init(generation: Int64 = 0, tokens: [String: [ServedToken]] = [:], screens: [String: ServedScreen] = [:],
         flows: [String: ServedFlow] = [:], experiments: [String: ServedExperiment] = [:],
         strings: ServedStrings = ServedStrings()) {
        self.generation = generation
        self.strings = strings
        self.tokens = tokens
        self.screens = screens
        self.flows = flows
        self.experiments = experiments
        let running = experiments.values.filter { $0.experiment.status == .running }.sorted { $0.stored.key < $1.stored.key }
        runningExperiments = running
        let json = Data(#"{"experiments":["#.utf8) + Data(running.map(\.stored.json).joined(separator: Data(",".utf8)))
            + Data("]}".utf8)
        experimentsBody = (json, ETag.of(json: json))
    }

    /// This snapshot with `changes` added.
    func applying(_ changes: RegistryChanges, generation: Int64,
                  signer: TokenSigner?, logger: Logger) -> RegistrySnapshot {
        var tokens = self.tokens
        var touched = Set<String>()
        for row in changes.tokens {
            do {
                tokens[row.id, default: []].append(try Self.serve(row, signer: signer))
                touched.insert(row.id)
            } catch {
                logger.error("skipping a stored token that does not parse",
                             metadata: ["id": "\(EchoedInput.quoted(row.id))", "version": "\(row.version)",
                                        "error": "\(EchoedInput.visible("\(error)", maxBytes: 1024))"])
            }
        }
        for id in touched { tokens[id]!.sort { $0.stored.version > $1.stored.version } }
        var screens = self.screens
        for row in changes.screens {
            do {
                let payload = try ScreenPayload(json: row.payload, source: "screen \(row.id)")
                var seen = Set<String>()
                screens[row.id] = ServedScreen(stored: row, tokenIDs: payload.tokens.map(\.id).filter { seen.insert($0).inserted },
                                               etag: ETag.of(json: row.payload))
            } catch {
                logger.error("skipping a stored screen that does not parse",
                             metadata: ["id": "\(EchoedInput.quoted(row.id))",
                                        "error": "\(EchoedInput.visible("\(error)", maxBytes: 1024))"])
            }
        }
        var flows = self.flows
        for row in changes.flows {
            do {
                let flow = try FlowDefinition(json: row.json, source: "flow \(row.id)")
                flows[row.id] = ServedFlow(stored: row, etag: ETag.of(json: row.json),
                                           requirements: Self.requirements(of: flow))
            } catch {
                logger.error("skipping a stored flow that does not parse",
                             metadata: ["id": "\(EchoedInput.quoted(row.id))",
                                        "error": "\(EchoedInput.visible("\(error)", maxBytes: 1024))"])
            }
        }
        var experiments = self.experiments
        for row in changes.experiments {
            do {
                let experiment = try Experiment(json: row.json, source: "experiment \(row.key)")
                guard experiment.key == row.key else {
                    throw RegistryError(.invalid, "row \(row.key) holds experiment \(experiment.key)")
                }
                experiments[row.key] = ServedExperiment(stored: row, assigner: try ExperimentAssigner(experiment))
            } catch {
                experiments[row.key] = nil
                logger.error("skipping a stored experiment that does not parse",
                             metadata: ["key": "\(EchoedInput.quoted(row.key))",
                                        "error": "\(EchoedInput.visible("\(error)", maxBytes: 1024))"])
            }
        }
        var strings = self.strings
        for row in changes.catalogs {
            do {
                try strings.apply(row)
            } catch {
                logger.error("skipping a stored string catalog that does not parse",
                             metadata: ["locale": "\(EchoedInput.quoted(row.locale))", "version": "\(row.version)",
                                        "error": "\(EchoedInput.visible("\(error)", maxBytes: 1024))"])
            }
        }
        return RegistrySnapshot(generation: generation, tokens: tokens, screens: screens, flows: flows,
                                experiments: experiments, strings: strings)
    }

    /// The primitives (and the highest version of each) that the built-in
    /// renderers of a flow's blocks draw with; blocks of unknown types and
    /// blocks whose fields a renderer refuses add nothing (the client shows
    /// a placeholder for them either way).
    static func requirements(of flow: FlowDefinition) -> [(String, Int)] {
        var needs: [String: Int] = [:]
        let style = BlockStyle(settings: [:])
        func walk(_ v: JSONValue) {
            if let p = v["primitive"]?.stringValue, let n = v["primitiveVersion"]?.intValue {
                needs[p] = max(needs[p] ?? 0, Int(n))
            }
            for child in v["props"]?["children"]?.arrayValue ?? [] { walk(child) }
        }
        for screen in flow.screens {
            for block in screen.blocks {
                guard let type = block["type"]?.stringValue,
                      let render = BlockRegistry.builtIn.renderer(for: type),
                      let node = try? render(block.objectValue ?? [:], style) else { continue }
                walk(node)
            }
        }
        return needs.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Parses a row and prepares what is served for it.
    static func serve(_ row: StoredToken, signer: TokenSigner?) throws -> ServedToken {
        let token = try DesignToken(json: row.json, source: "\(row.id)@\(row.version)")
        guard token.id == row.id, token.version == row.version else {
            throw RegistryError(.invalid, "row (\(row.id), \(row.version)) holds \(token.id)@\(token.version)")
        }
        let needs = PrimitiveMap.requirements(of: token)
        let element: [UInt8]
        if let signer { element = Array("\"\(try signer.sign(row.json))\"".utf8) } else { element = Array(row.json) }
        return ServedToken(stored: row, requirements: needs.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                           etag: ETag.of(json: row.json), element: element)
    }

    /// The highest version of `id` whose whole tree `map` supports.
    func best(_ id: String, for map: PrimitiveMap) -> ServedToken? {
        tokens[id]?.first { $0.isSupported(by: map) }
    }
}
#endif
