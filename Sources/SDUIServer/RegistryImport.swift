// RegistryImport.swift - reads tokens and screens from files and checks them before they are published.
#if Server
import Foundation
import SDUI
import SDUIFlow

/// Loads what `sdui registry import` publishes and refuses anything that
/// breaks a rule, naming the token (or screen), its file and the rule:
///
/// - `id`: ids follow ``RegistryID``;
/// - `size`: token JSON of at most 32 KB;
/// - `schema`: the design-token schema (schemas/design-token.json, checked
///   by the C core) and, for screens, schemas/screen-payload.json;
/// - `image-url`: every image URL is HTTPS on the configured CDN hosts;
/// - `action`: every `action` in a token's props parses as a row of the
///   action table and its URLs pass the link and endpoint policies
///   (``FlowValidator/actionFaults(in:at:limit:)``), so a button whose action can never run is
///   refused here, not found by a user;
/// - `duplicate`: an (id, version) given twice in one import;
/// - `flow`: a flow that does not decode or does not validate
///   (``FlowValidator``: targets, reachability, completion, conditions,
///   keys, blocks, actions); each fault names the screen and JSON path;
/// - `a11y`: a screen the accessibility lint finds an error in, resolved as
///   an app draws it (``AccessibilityLint``: labels, text alternatives,
///   touch targets, contrast); warnings are reported, not refused;
/// - `experiment`: an experiment definition (schemas/experiment.json) that
///   does not decode, whose key or a variation id is not a registry id, or
///   whose variations name screens or tokens neither the import nor the
///   store has, or that no app of ``supportedApps`` can render
///   (``Experiment/issues(in:)``, against the newest version of each
///   token); each fault names the JSON path (`$.variations[1].screens.checkout`).
///
/// - **strings**: each `strings/<locale>.json` is a sound catalog (checked
///   by the C core; a fault names the file, JSON path and byte), named by
///   its canonical tag, and the default locale's is there; the report of
///   missing, unused and undefined keys, argument mismatches and plural
///   forms a locale needs is added to the warnings.
///
/// Sources: a folder with `tokens/`, `screens/`, `flows/`, `experiments/` and `strings/` (like Examples/), a
/// folder of token files, or a Core-Token Pack (`.gz`).  A screen file may
/// carry `"fallbackScreenId"`, the screen the 409 answer names.
public struct RegistryImporter: Sendable {
    /// The image-URL rule tokens are checked against (the `image-url` rule).
    public var imagePolicy: ImageURLPolicy
    /// Token size and depth limits (the `size` and `schema` rules), also used
    /// to open a pack.
    public var limits: PackLimits
    /// The `X-Primitives` of each app version supported: every variation of
    /// an experiment must be renderable by at least one (empty: not checked).
    public var supportedApps: [PrimitiveMap]

    /// The accessibility lint each screen passes (`a11y`): its errors
    /// refuse the import, its warnings are reported in
    /// ``Batch/warnings``; nil lints nothing.
    public var accessibility: AccessibilityLint?

    /// The locale that ends every fallback chain of the catalogs imported
    /// from `strings/` (its file must be there when the folder is).
    public var defaultLocale = "en"

    /// An importer with an image-URL policy and limits (default
    /// `PackLimits.default`); screens are linted for iOS's targets unless
    /// `accessibility` says otherwise.
    public init(imagePolicy: ImageURLPolicy, limits: PackLimits = .default, supportedApps: [PrimitiveMap] = [],
                accessibility: AccessibilityLint? = AccessibilityLint()) {
        self.imagePolicy = imagePolicy
        self.limits = limits
        self.supportedApps = supportedApps
        self.accessibility = accessibility
    }

    /// What a source holds, checked.
    public struct Batch: Sendable {
        /// The token versions, in the order read (files by name, or the pack's
        /// order); `seq` is 0 until a store writes them.
        public var tokens: [StoredToken] = []
        /// The screens, in file-name order; only a folder with `tokens/` and
        /// `screens/` has any.
        public var screens: [StoredScreen] = []
        /// The flows, in file-name order, from a folder's `flows/`.
        public var flows: [StoredFlow] = []
        /// The experiment definitions, in file-name order, from a folder's `experiments/`.
        public var experiments: [StoredExperiment] = []
        /// The string catalogs, by locale, from a folder's `strings/`
        /// (`<locale>.json`), the default locale's marked.
        public var catalogs: [StoredCatalog] = []
        /// ``catalogs`` as one set, built once by the import's check and
        /// read by the lint.
        var strings: StringCatalog?
        /// Warnings, each starting with what made it: `a11y: screen (file): node: rule [WCAG x]: message` from
        /// the accessibility lint, `strings: kind: message` from the catalogs' report.
        public var warnings: [String] = []
    }

    /// One broken rule.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// The token or screen at fault: its id, or the file name when no id
        /// could be read.
        public var subject: String
        /// The name of the file it came from (its last path component).
        public var file: String
        /// The rule broken: `id`, `size`, `schema`, `image-url`, `action`,
        /// `duplicate`, `flow` or `experiment`.
        public var rule: String
        /// What exactly is wrong.
        public var detail: String
        /// `subject (file): rule: detail`.
        public var description: String { "\(subject) (\(file)): \(rule): \(detail)" }
    }

    /// Reads and checks `url`; throws an `.invalid` error listing every
    /// problem.  Experiments are checked against what the batch holds and
    /// `known` (the screens and tokens already stored).
    public func load(_ url: URL, known: ExperimentCatalog = ExperimentCatalog()) throws -> Batch {
        var batch = Batch()
        var problems: [Problem] = []
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir) else {
            throw RegistryError(.notFound, "no such file or folder", subject: url.path)
        }
        if !isDir.boolValue {
            try checkPack(try CorePack(contentsOf: url, limits: limits), file: url.lastPathComponent,
                      into: &batch, &problems)
        } else {
            let tokensDir = url.appendingPathComponent("tokens")
            let screensDir = url.appendingPathComponent("screens")
            let hasLayout = FileManager.default.fileExists(atPath: tokensDir.path)
            for file in try Self.jsonFiles(hasLayout ? tokensDir : url) {
                check(try Self.read(file), file: file.lastPathComponent, into: &batch, &problems)
            }
            // What experiments and the lint are checked against, made once when first needed.
            var checkedAgainst: ExperimentCatalog?
            func knownCatalog(_ batch: Batch) -> ExperimentCatalog {
                if let c = checkedAgainst { return c }
                let c = self.catalog(of: batch, over: known)
                checkedAgainst = c
                return c
            }
            var files: [String: String] = [:]   // screen id → its file
            if hasLayout, FileManager.default.fileExists(atPath: screensDir.path) {
                for file in try Self.jsonFiles(screensDir) {
                    let before = batch.screens.count
                    checkScreen(try Self.read(file), file: file.lastPathComponent, into: &batch, &problems)
                    if batch.screens.count > before, let id = batch.screens.last?.id { files[id] = file.lastPathComponent }
                }
            }
            let flowsDir = url.appendingPathComponent("flows")
            if hasLayout, FileManager.default.fileExists(atPath: flowsDir.path) {
                for file in try Self.jsonFiles(flowsDir) {
                    checkFlow(try Self.read(file), file: file.lastPathComponent, into: &batch, &problems)
                }
            }
            let experimentsDir = url.appendingPathComponent("experiments")
            if hasLayout, FileManager.default.fileExists(atPath: experimentsDir.path) {
                let catalog = knownCatalog(batch)
                var keys = Set<String>()
                for file in try Self.jsonFiles(experimentsDir) {
                    checkExperiment(try Self.read(file), file: file.lastPathComponent, catalog: catalog,
                                    keys: &keys, into: &batch, &problems)
                }
            }
            let stringsDir = url.appendingPathComponent("strings")
            if hasLayout, FileManager.default.fileExists(atPath: stringsDir.path) {
                try checkStrings(stringsDir, into: &batch, &problems)
            }
            // Linted last, with the catalogs, so screens read as an app shows them.
            if let accessibility, !batch.screens.isEmpty {
                lint(batch.screens, files: files, catalog: knownCatalog(batch), with: accessibility, into: &batch, &problems)
            }
        }
        return try finish(batch, problems, file: url.lastPathComponent, subject: url.path)
    }

    /// Reads and checks the tokens of a pack already opened (one read from
    /// standard input, say); errors name `name`.
    public func load(pack: CorePack, name: String) throws -> Batch {
        var batch = Batch()
        var problems: [Problem] = []
        try checkPack(pack, file: name, into: &batch, &problems)
        return try finish(batch, problems, file: name, subject: name)
    }

    /// Checks every token of `pack` into `batch`, or a problem each.
    private func checkPack(_ pack: CorePack, file: String, into batch: inout Batch, _ problems: inout [Problem]) throws {
        for id in pack.ids {
            do {
                guard let t = try pack.token(id) else { continue }
                check(t.json, file: file, into: &batch, &problems)
            } catch let e as SDUIError {
                problems.append(Problem(subject: id, file: file, rule: "schema", detail: e.message))
            }
        }
    }

    /// The batch, once versions published twice are found; an `.invalid`
    /// error listing every problem when there is any.
    private func finish(_ batch: Batch, _ found: [Problem], file: String, subject: String) throws -> Batch {
        var problems = found
        var seen = Set<String>()
        for t in batch.tokens where !seen.insert("\(t.id)@\(t.version)").inserted {
            problems.append(Problem(subject: t.id, file: file, rule: "duplicate",
                                    detail: "version \(t.version) appears twice"))
        }
        guard problems.isEmpty else {
            throw RegistryError(.invalid, "\(problems.count) problem(s):\n  "
                                + problems.map(\.description).joined(separator: "\n  "), subject: subject)
        }
        return batch
    }

    /// Checks one token's JSON and adds it when it passes.
    func check(_ json: Data, file: String, into batch: inout Batch, _ problems: inout [Problem]) {
        // For failures only: the id a token that does not parse claims.
        func fallbackID() -> String { Self.peekID(json) ?? file }
        let token: DesignToken
        switch TokenPolicy(limits: limits, imagePolicy: imagePolicy).admit(json, source: file) {
        case .success(let t):
            token = t
        case .failure(let error):
            let detail: String
            switch error.rule {
            case .size: detail = "\(json.count) bytes; the limit is \(limits.maxTokenBytes)"
            case .schema: detail = error.error.description
            case .imageURL: detail = error.violations.map(\.description).joined(separator: "; ")
                + " (HTTPS on \(imagePolicy.allowedHosts.joined(separator: ", ")) only)"
            }
            let subject = error.rule == .imageURL ? (Self.peekID(json) ?? file) : fallbackID()
            problems.append(Problem(subject: subject, file: file, rule: error.rule.rawValue, detail: detail))
            return
        }
        guard RegistryID.isValid(token.id) else {
            problems.append(Problem(subject: token.id, file: file, rule: "id",
                                    detail: "ids are 1–128 of A–Z a–z 0–9 _ - . : (no leading '.', no '..')"))
            return
        }
        let faults = FlowValidator().actionFaults(in: token.props, at: "props")
        guard faults.isEmpty else {
            for f in faults { problems.append(Problem(subject: token.id, file: file, rule: "action", detail: "\(f.path): \(f.message)")) }
            return
        }
        batch.tokens.append(StoredToken(id: token.id, version: token.version, json: json,
                                        primitiveVersion: token.primitiveVersion))
    }

    /// Checks one screen file and adds it when it passes.
    func checkScreen(_ json: Data, file: String, into batch: inout Batch, _ problems: inout [Problem]) {
        do {
            let payload = try ScreenPayload(json: json, source: file)
            for id in [payload.id] + payload.tokens.map(\.id) where !RegistryID.isValid(id) {
                problems.append(Problem(subject: payload.id, file: file, rule: "id", detail: "\"\(id)\" is not a valid id"))
                return
            }
            let extra = try? JSONDecoder().decode([String: JSONValue].self, from: json)
            var fallback: String?
            if let f = extra?["fallbackScreenId"] {
                guard let s = f.stringValue, RegistryID.isValid(s) else {
                    problems.append(Problem(subject: payload.id, file: file, rule: "schema",
                                            detail: "fallbackScreenId must be a screen id"))
                    return
                }
                fallback = s
            }
            batch.screens.append(StoredScreen(id: payload.id, payload: json, fallbackScreenID: fallback))
        } catch let e as SDUIError {
            problems.append(Problem(subject: file, file: file, rule: "schema", detail: e.message))
        } catch {
            problems.append(Problem(subject: file, file: file, rule: "schema", detail: "\(error)"))
        }
    }

    /// Checks one flow file and adds it when it decodes and validates
    /// without errors (warnings do not stop it).
    func checkFlow(_ json: Data, file: String, into batch: inout Batch, _ problems: inout [Problem]) {
        do {
            let flow = try FlowDefinition(json: json, source: file)
            guard RegistryID.isValid(flow.id) else {
                problems.append(Problem(subject: flow.id, file: file, rule: "id", detail: "\"\(flow.id)\" is not a valid id"))
                return
            }
            if batch.flows.contains(where: { $0.id == flow.id }) {
                problems.append(Problem(subject: flow.id, file: file, rule: "duplicate", detail: "flow given twice"))
                return
            }
            let errors = FlowValidator().errors(flow)
            guard errors.isEmpty else {
                for e in errors { problems.append(Problem(subject: flow.id, file: file, rule: "flow", detail: e.description)) }
                return
            }
            batch.flows.append(StoredFlow(id: flow.id, json: json))
        } catch let e as SDUIError {
            problems.append(Problem(subject: Self.peekID(json) ?? file, file: file, rule: "flow", detail: e.description))
        } catch {
            problems.append(Problem(subject: file, file: file, rule: "flow", detail: "\(error)"))
        }
    }

    /// `known` with the batch's screens and tokens added (a token's newest
    /// version wins) and ``supportedApps``: what experiments are checked
    /// against.
    func catalog(of batch: Batch, over known: ExperimentCatalog) -> ExperimentCatalog {
        var catalog = known
        catalog.supportedApps = supportedApps
        for s in batch.screens {
            guard let payload = try? ScreenPayload(json: s.payload, source: s.id) else { continue }
            catalog.screens[s.id] = payload.tokens.map(\.id)
        }
        for t in batch.tokens where (catalog.tokens[t.id]?.version ?? Int.min) < t.version {
            if let token = try? DesignToken(json: t.json, source: t.id) { catalog.tokens[t.id] = token }
        }
        return catalog
    }

    /// Checks one experiment file against `catalog` and adds it when
    /// sound; `keys` holds the keys of the files read before (sound or not).
    func checkExperiment(_ json: Data, file: String, catalog: ExperimentCatalog, keys: inout Set<String>,
                         into batch: inout Batch, _ problems: inout [Problem]) {
        do {
            let experiment = try Experiment(json: json, source: file)
            var faults: [String] = []
            if !RegistryID.isValid(experiment.key) {
                faults.append("$.key: \"\(experiment.key)\" is not a registry id (1–128 of A–Z a–z 0–9 _ - . :)")
            }
            for (i, v) in experiment.variations.enumerated() where !RegistryID.isValid(v.id) {
                faults.append("$.variations[\(i)].id: \"\(v.id)\" is not a registry id (1–128 of A–Z a–z 0–9 _ - . :)")
            }
            if !keys.insert(experiment.key).inserted {
                problems.append(Problem(subject: experiment.key, file: file, rule: "duplicate", detail: "experiment given twice"))
                return
            }
            faults += experiment.issues(in: catalog).map(\.description)
            guard faults.isEmpty else {
                for f in faults { problems.append(Problem(subject: experiment.key, file: file, rule: "experiment", detail: f)) }
                return
            }
            batch.experiments.append(StoredExperiment(key: experiment.key, json: json))
        } catch let e as SDUIError {
            problems.append(Problem(subject: Self.peekKey(json) ?? file, file: file, rule: "experiment", detail: e.message))
        } catch {
            problems.append(Problem(subject: file, file: file, rule: "experiment", detail: "\(error)"))
        }
    }

    /// Resolves each screen of the batch as an app draws it (its tokens'
    /// newest versions, from the batch or the store; the SDK's theme) and
    /// lints it (`files`: each screen's file by id): an error is a problem
    /// (`a11y`) naming the screen's file,
    /// the node and the WCAG criterion; a warning goes to the batch's
    /// warnings.  A token neither has is left to the screen's own check.
    func lint(_ screens: [StoredScreen], files: [String: String], catalog: ExperimentCatalog, with lint: AccessibilityLint,
              into batch: inout Batch, _ problems: inout [Problem]) {
        var context = RenderContext()
        context.strings = batch.strings
        let resolver = ScreenResolver(context)
        for stored in screens {
            guard let payload = try? ScreenPayload(json: stored.payload, source: stored.id) else { continue }
            var lookups: [String: TokenLookup] = [:]
            for item in payload.tokens {
                if let t = catalog.tokens[item.id] { lookups[item.id] = .found(t, .network) }
            }
            let file = files[stored.id] ?? stored.id + ".json"
            for f in lint.findings(in: resolver.resolve(payload, lookups: lookups)) {
                let text = "\(f.node): \(f.rule)\(f.wcag.map { " [WCAG \($0)]" } ?? ""): \(f.message)"
                if f.severity == .error {
                    problems.append(Problem(subject: stored.id, file: file, rule: "a11y", detail: text))
                } else {
                    batch.warnings.append("a11y: \(stored.id) (\(file)): \(text)")
                }
            }
        }
    }

    /// The `"key"` of a JSON object, when it has a string one (for messages).
    static func peekKey(_ json: Data) -> String? {
        (try? JSONDecoder().decode([String: JSONValue].self, from: json))?["key"]?.stringValue
    }

    /// Checks `url` and publishes it: tokens first, then screens, flows and
    /// experiments.  Experiments are checked against the import and what
    /// `store` already holds.  Returns how many token versions were new,
    /// and the screens, flows and experiments written.
    public func importInto(_ store: any RegistryStore, from url: URL)
        async throws -> (added: Int, skipped: Int, screens: Int, flows: Int, experiments: Int, warnings: [String]) {
        var known = ExperimentCatalog()
        if FileManager.default.fileExists(atPath: url.appendingPathComponent("experiments").path)
            || (accessibility != nil && FileManager.default.fileExists(atPath: url.appendingPathComponent("screens").path)) {
            let contents = try await RegistryContents.load(store)
            known = contents.experimentCatalog
        }
        return try await publish(try load(url, known: known), into: store)
    }

    /// Checks the tokens of an opened pack and publishes them.
    public func importInto(_ store: any RegistryStore, pack: CorePack, name: String)
        async throws -> (added: Int, skipped: Int, screens: Int, flows: Int, experiments: Int, warnings: [String]) {
        try await publish(try load(pack: pack, name: name), into: store)
    }

    /// Publishes a checked batch: tokens first, then screens, flows and
    /// experiments (so an experiment is never served before what it names).
    private func publish(_ batch: Batch, into store: any RegistryStore)
        async throws -> (added: Int, skipped: Int, screens: Int, flows: Int, experiments: Int, warnings: [String]) {
        let added = try await store.publish(batch.tokens)
        if !batch.screens.isEmpty { try await store.putScreens(batch.screens) }
        if !batch.flows.isEmpty { try await store.putFlows(batch.flows) }
        if !batch.experiments.isEmpty { try await store.putExperiments(batch.experiments) }
        if !batch.catalogs.isEmpty { try await store.putCatalogs(batch.catalogs) }
        return (added, batch.tokens.count - added, batch.screens.count, batch.flows.count, batch.experiments.count,
                batch.warnings)
    }

    static func jsonFiles(_ dir: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: dir, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// A file's bytes, bounded before they are read (``FileInput``).
    static func read(_ url: URL) throws -> Data {
        do { return try FileInput.read(url.path, limit: FileInput.documentLimit) } catch let e as SDUIError {
            throw RegistryError(e.category == .limit ? .invalid : .notFound, e.message, subject: url.path)
        }
    }

    /// Checks the catalogs of `dir` (`<locale>.json`, each by the C core,
    /// a fault naming its file, the JSON path and byte) into `batch`, and
    /// adds their report to the warnings: keys missing per locale, unused
    /// and undefined keys (against what the batch's tokens, screens and
    /// flows refer to), argument mismatches, plural forms a locale needs.
    func checkStrings(_ dir: URL, into batch: inout Batch, _ problems: inout [Problem]) throws {
        var catalogs: [String: Data] = [:]
        for file in try Self.jsonFiles(dir) {
            let name = String(file.lastPathComponent.dropLast(5))
            let json = try Self.read(file)
            let tag: String
            do { tag = try LocaleTag(name).identifier } catch {
                problems.append(Problem(subject: name, file: "strings/\(file.lastPathComponent)", rule: "strings",
                                        detail: "the file name is not a locale tag (de.json, pt-BR.json)"))
                continue
            }
            guard tag == name else {
                problems.append(Problem(subject: name, file: "strings/\(file.lastPathComponent)", rule: "strings",
                                        detail: "name the file by the canonical tag: \(tag).json"))
                continue
            }
            do {
                _ = try StringCatalog(defaultLocale: tag, catalogs: [tag: json], source: "strings/\(file.lastPathComponent)")
                catalogs[tag] = json
            } catch let e as SDUIError {
                problems.append(Problem(subject: tag, file: "strings/\(file.lastPathComponent)", rule: "strings",
                                        detail: e.description))
            }
        }
        let fallback: String
        do { fallback = try LocaleTag(defaultLocale).identifier } catch {
            problems.append(Problem(subject: defaultLocale, file: "strings", rule: "strings",
                                    detail: "the default locale is not a locale tag"))
            return
        }
        guard !catalogs.isEmpty else { return }
        guard catalogs[fallback] != nil else {
            problems.append(Problem(subject: fallback, file: "strings", rule: "strings",
                                    detail: "no catalog of the default locale (strings/\(fallback).json)"))
            return
        }
        guard problems.isEmpty else { return }
        let set = try StringCatalog(defaultLocale: fallback, catalogs: catalogs, source: "strings")
        for f in try set.check(usedKeys: Self.stringKeys(of: batch).sorted()) {
            batch.warnings.append("strings: \(f.kind.rawValue): \(f.message)")
        }
        batch.catalogs = catalogs.keys.sorted().map { StoredCatalog(locale: $0, json: catalogs[$0]!, isDefault: $0 == fallback) }
        batch.strings = set
    }

    /// Every catalog key the batch's tokens, screens and flows refer to.
    static func stringKeys(of batch: Batch) -> Set<String> {
        var keys = Set<String>()
        for json in batch.tokens.map(\.json) + batch.screens.map(\.payload) + batch.flows.map(\.json) {
            if let v = try? JSONValue(json: json) { StringReference.keys(in: v, into: &keys) }
        }
        return keys
    }

    /// The `"id"` of a JSON object, when it has a string one (for messages).
    static func peekID(_ json: Data) -> String? {
        (try? JSONDecoder().decode([String: JSONValue].self, from: json))?["id"]?.stringValue
    }
}
#endif
