// PlaygroundFolder.swift - the playground's folder as parsed values: the
// last good version of every token, screen, theme and flow, and what is
// wrong with each file that does not parse or breaks a rule.
//
// Every file is read and checked when it changes, not when a screen asks
// for it, so a screen is always drawn from values that passed: a file that
// breaks keeps its last good value in use (the page keeps its last good
// render) and becomes a problem the banner shows, naming the file, the
// place (line and column, or a JSON path) and the rule; the next good save
// clears it.  A file removed is forgotten, and so is its problem.
//
// Thread safety: the maps are read and written under `lock`; parsing
// happens outside it.
#if Server
import Foundation
import SDUI
import SDUICore
import SDUIFlow

/// What is wrong with one file of the folder, for the banner.
package struct FileProblem: Sendable, Hashable {
    /// The file, relative to the folder (`tokens/checkout_header.json`).
    package var file: String
    /// Where: `line 3, column 14`, or a JSON path (`$.screens[1].next[0].to`); empty when unknown.
    package var place: String
    /// Which rule: `json` (it does not parse), `schema`, `limit`, or a flow check's kind.
    package var rule: String
    /// What is wrong, for a person.
    package var message: String

    /// The problem as the page's `errors` list carries it.
    package var json: JSONValue {
        ["file": .string(file), "place": .string(place), "rule": .string(rule), "message": .string(message)]
    }

    /// The problem of `file` from an error thrown while reading it.
    init(file: String, error: any Error) {
        self.file = file
        if let e = error as? SDUIError {
            place = Self.jsonPath(ofSchemaError: e)
                ?? e.line.map { line in "line \(line)" + (e.column.map { ", column \($0)" } ?? "") } ?? ""
            rule = e.category.rawValue
            message = e.message
        } else {
            place = ""
            rule = "unknown"
            message = "\(error)"
        }
    }

    /// The JSON path a token's schema error names (`$.version`,
    /// `$.props.children[2].primitive`), from the core's message: `token
    /// "ID": [PATH: ]"MEMBER" …` or `missing "MEMBER"`.  Its line and column
    /// are the token's start, which says less.  Nil for any other error.
    static func jsonPath(ofSchemaError e: SDUIError) -> String? {
        guard e.category == .schema, e.message.hasPrefix("token \""),
              let idEnd = e.message.range(of: "\": ") else { return nil }
        var rest = e.message[idEnd.upperBound...]
        var path = "$"
        if let colon = rest.range(of: ": "), rest.hasPrefix("props") {
            path += "." + rest[..<colon.lowerBound]
            rest = rest[colon.upperBound...]
        }
        if rest.hasPrefix("missing ") { rest = rest.dropFirst("missing ".count) }
        if rest.hasPrefix("\""), let close = rest.dropFirst().firstIndex(of: "\"") {
            path += "." + rest[rest.index(after: rest.startIndex)..<close]
        }
        return path
    }

    /// A problem from its parts.
    init(file: String, place: String, rule: String, message: String) {
        self.file = file
        self.place = place
        self.rule = rule
        self.message = message
    }
}

/// The folder's tokens, screens, themes and flows, each its last good
/// version (see the file's essay).
package final class PlaygroundFolder: @unchecked Sendable {
    /// The folders read, each of `*.json` files.
    package static let folders = ["tokens", "screens", "blocks", "payloads", "flows", "themes", "strings"]
    /// The default locale of the folder's catalogs (its `strings/en.json`).
    package static let defaultLocale = "en"
    /// The folders a screen id is looked for in, in order.
    package static let screenFolders = ["screens", "blocks", "payloads"]
    /// The most files read from one folder; more are a problem, not read.
    package static let maxFilesPerFolder = 5_000

    /// Where the files are.
    package let root: FolderPath
    /// How flows are checked.
    let validator: FlowValidator

    private let lock = NSLock()
    private var tokens: [String: DesignToken] = [:]
    /// Screen items by relative path (`screens/checkout.json`).
    private var screens: [String: ScreenItems] = [:]
    /// Themes by relative path.
    private var themes: [String: Theme] = [:]
    private var flows: [String: FlowDefinition] = [:]
    /// String catalogs by locale (`strings/de.json`), each checked alone.
    private var catalogs: [String: Data] = [:]
    /// The set built from ``catalogs``, kept until one changes.
    private var builtStrings: StringCatalog?
    /// The problem of each file that has one.
    private var problems: [String: FileProblem] = [:]

    /// Reads every file of ``folders`` under `root`.
    package init(root: FolderPath, validator: FlowValidator = FlowValidator()) {
        self.root = root
        self.validator = validator
        reloadAll()
    }

    /// Reads every file again (at start, and when the watcher lost events):
    /// each file listed is read, and a file known but no longer listed is
    /// forgotten.
    package func reloadAll() {
        for folder in Self.folders {
            let listed = Set(listing(folder).map { "\(folder)/\($0)" })
            let known = locked { () -> Set<String> in
                var paths = Set(problems.keys).union(screens.keys).union(themes.keys)
                paths.formUnion(tokens.keys.map { "tokens/\($0).json" })
                paths.formUnion(flows.keys.map { "flows/\($0).json" })
                paths.formUnion(catalogs.keys.map { "strings/\($0).json" })
                return paths.filter { $0.hasPrefix(folder + "/") }
            }
            for path in known.union(listed).sorted() { reload(path) }
        }
    }

    /// The `*.json` names in `folder`, sorted; at most ``maxFilesPerFolder``
    /// (one more is a problem of the folder).
    private func listing(_ folder: String) -> [String] {
        guard let dir = root.subfolder(folder) else { return [] }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])
            .filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
        if names.count > Self.maxFilesPerFolder {
            locked {
                problems[folder] = FileProblem(file: folder, place: "", rule: "limit",
                                               message: "\(names.count) files; the playground reads the first \(Self.maxFilesPerFolder)")
            }
        }
        return Array(names.prefix(Self.maxFilesPerFolder))
    }

    /// Runs `body` under the lock.
    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: Changes

    /// Reads `relative` again after it changed (or was removed): a good
    /// file replaces its last good value and clears its problem; a bad one
    /// keeps the value and records the problem.  False when the file is
    /// none the playground reads (another folder, not `.json`, hidden).
    @discardableResult
    package func reload(_ relative: String) -> Bool {
        guard let parts = try? FolderPath.components(relative), parts.count == 2,
              Self.folders.contains(parts[0]), parts[1].hasSuffix(".json") else { return false }
        let folder = parts[0], name = parts[1]
        let id = String(name.dropLast(".json".count))
        let data: Data
        do {
            let url = try root.file(relative)
            data = try FileInput.read(url.path, limit: FileInput.documentLimit)
        } catch let e as SDUIError where e.category == .notFound {
            forget(relative, folder: folder, id: id)
            return true
        } catch {
            locked { problems[relative] = FileProblem(file: relative, error: error) }
            return true
        }
        do {
            switch folder {
            case "tokens":
                let token = try DesignToken(json: data, source: relative)
                locked { tokens[id] = token }
            case "flows":
                let flow = try FlowDefinition(json: data, source: relative)
                if let issue = validator.validate(flow).first(where: { $0.severity == .error }) {
                    locked {
                        problems[relative] = FileProblem(file: relative, place: issue.path, rule: issue.kind.rawValue,
                                                         message: (issue.screen.map { "screen \"\($0)\": " } ?? "") + issue.message)
                    }
                    return true
                }
                locked { flows[id] = flow }
            case "themes":
                let theme = try Theme(document: data, fileName: name, source: relative)
                locked { themes[relative] = theme }
            case "strings":
                let tag = try LocaleTag(id).identifier
                guard tag == id else {
                    throw SDUIError(.argument, "name the file by the canonical locale tag: \(tag).json", input: relative)
                }
                _ = try StringCatalog(defaultLocale: tag, catalogs: [tag: data], source: relative)
                locked { catalogs[tag] = data; builtStrings = nil }
            default:
                let items = try ScreenFormat.items(data, source: relative)
                locked { screens[relative] = items }
            }
            locked { problems[relative] = nil }
        } catch {
            locked { problems[relative] = FileProblem(file: relative, error: error) }
        }
        return true
    }

    /// Drops the value and the problem of a removed file.
    private func forget(_ relative: String, folder: String, id: String) {
        locked {
            problems[relative] = nil
            switch folder {
            case "tokens": tokens[id] = nil
            case "flows": flows[id] = nil
            case "themes": themes[relative] = nil
            case "strings": catalogs[id] = nil; builtStrings = nil
            default: screens[relative] = nil
            }
        }
    }

    // MARK: Reading

    /// Every file's problem, by file name.
    package var problemList: [FileProblem] { locked { problems.values.sorted { $0.file < $1.file } } }

    /// The screen ids (file names without `.json`) of ``screenFolders``, each once, sorted.
    package var screenIDs: [(id: String, folder: String)] {
        locked {
            var seen: Set<String> = []
            var out: [(String, String)] = []
            for folder in Self.screenFolders {
                for path in screens.keys.filter({ $0.hasPrefix(folder + "/") }).sorted() {
                    let id = String(path.dropFirst(folder.count + 1).dropLast(".json".count))
                    if seen.insert(id).inserted { out.append((id, folder)) }
                }
            }
            return out.sorted { $0.0 < $1.0 }
        }
    }

    /// The flow ids, sorted.
    package var flowIDs: [String] { locked { flows.keys.sorted() } }

    /// The themes, in file-name order.
    package var themeList: [Theme] { locked { themes.keys.sorted().compactMap { themes[$0] } } }

    /// The locales of the folder's catalogs, sorted.
    package var locales: [String] { locked { catalogs.keys.sorted() } }

    /// The folder's catalogs as one set, whose default locale is
    /// ``defaultLocale`` (or the first locale when it has no catalog); nil
    /// without catalogs.  Built once per change of `strings/`.
    package var strings: StringCatalog? {
        locked {
            if let builtStrings { return builtStrings }
            guard let first = catalogs.keys.sorted().first else { return nil }
            let fallback = catalogs[Self.defaultLocale] != nil ? Self.defaultLocale : first
            builtStrings = try? StringCatalog(defaultLocale: fallback, catalogs: catalogs, source: "strings")
            return builtStrings
        }
    }

    /// The relative path and items of screen `id` (``screenFolders`` in order).
    package func screen(_ id: String) -> (file: String, items: ScreenItems)? {
        locked {
            for folder in Self.screenFolders {
                let path = "\(folder)/\(id).json"
                if let items = screens[path] { return (path, items) }
            }
            return nil
        }
    }

    /// Whether the folder has a file for `target` (good or not).
    package func hasFile(of target: PlaygroundView.Target) -> Bool {
        let candidates: [String]
        switch target {
        case .screen(let id): candidates = Self.screenFolders.map { "\($0)/\(id).json" }
        case .flow(let id): candidates = ["flows/\(id).json"]
        }
        return candidates.contains { (try? root.file($0)) != nil }
    }

    /// Flow `id`'s last good definition.
    package func flow(_ id: String) -> FlowDefinition? { locked { flows[id] } }

    /// Token `id` as a screen's lookup: found (standing for the registry,
    /// source `network`), or not in `tokens/`.
    package func lookup(_ id: String) -> TokenLookup {
        if let token = locked({ tokens[id] }) { return .found(token, .network) }
        return .unavailable(SDUIError(.notFound, "no token \"\(id)\" in tokens/", input: id))
    }

    /// The folder as a screen provider.
    package var provider: any ScreenProvider { Provider(folder: self) }

    /// Screens and their tokens from the folder's last good values.
    struct Provider: ScreenProvider {
        let folder: PlaygroundFolder

        func screen(_ id: String) async throws -> ProvidedScreen {
            guard let (_, items) = folder.screen(id) else {
                throw SDUIError(.notFound, "no screen \"\(id)\" in "
                                + PlaygroundFolder.screenFolders.map { "\($0)/" }.joined(separator: ", "), input: id)
            }
            var lookups: [String: TokenLookup] = [:]
            for token in items.tokenIDs { lookups[token] = folder.lookup(token) }
            return ProvidedScreen(requested: id, items: items, lookups: lookups)
        }
    }
}
#endif
