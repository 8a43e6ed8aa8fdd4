// ExampleScreens.swift - screens from a folder in the Examples/ layout, for
// `sdui screen run --examples DIR`: token screens, block screens and
// normalized payloads, with tokens from a pack or the folder.
#if Server
import Foundation
import SDUI
import SDUICore
import SDUIFlow

/// A ``ScreenProvider`` over a folder laid out as `Examples/` is: any of
/// `screens/` (token payloads), `blocks/` (block screens), `payloads/`
/// (normalized payloads), `tokens/` and `themes/` may be absent.  A screen
/// id is a file name without `.json`, looked for in that order.  A token is
/// taken from the pack when one is given (source `pack`), else from
/// `tokens/ID.json` (standing for the registry: source `network`).
struct ExampleScreens: ScreenProvider {
    let dir: URL
    let pack: CorePack?

    /// The folders a screen may be in, in the order they are searched.
    static let screenFolders = ["screens", "blocks", "payloads"]

    func screen(_ id: String) async throws -> ProvidedScreen {
        guard Self.isFileID(id) else {
            throw SDUIError(.argument, "a screen id is a file name of letters, digits, '_', '-' and '.', not starting with '.'",
                            input: id)
        }
        for folder in Self.screenFolders {
            let url = dir.appendingPathComponent(folder).appendingPathComponent(id + ".json")
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            let data = try FileInput.read(url.path, limit: FileInput.documentLimit)
            let items = try ScreenFormat.items(data, source: "\(folder)/\(id).json")
            var lookups: [String: TokenLookup] = [:]
            for token in items.tokenIDs { lookups[token] = lookup(token) }
            return ProvidedScreen(requested: id, items: items, lookups: lookups)
        }
        throw SDUIError(.notFound, "no screen \"\(id)\" in " + Self.screenFolders.map { "\($0)/" }.joined(separator: ", ")
                        + " of \(dir.path)", input: id)
    }

    /// The token `id` from the pack, else the folder's `tokens/`.
    func lookup(_ id: String) -> TokenLookup {
        if let pack {
            do {
                if let t = try pack.token(id) { return .found(t, .pack) }
            } catch let e as SDUIError {
                return .unavailable(e)
            } catch {
                return .unavailable(SDUIError(.unknown, "\(error)", input: id))
            }
        }
        let url = dir.appendingPathComponent("tokens").appendingPathComponent(id + ".json")
        guard Self.isFileID(id), FileManager.default.fileExists(atPath: url.path) else {
            return .unavailable(SDUIError(.notFound, "no token \"\(id)\" in the pack or tokens/", input: id))
        }
        do {
            let data = try FileInput.read(url.path, limit: FileInput.documentLimit)
            return .found(try DesignToken(json: data, source: "tokens/\(id).json"), .network)
        } catch let e as SDUIError {
            return .unavailable(e)
        } catch {
            return .unavailable(SDUIError(.unknown, "\(error)", input: id))
        }
    }

    /// The folder's themes (`themes/*.json`); a file that is not a theme
    /// is left out and named in `skipped`.
    func themes() -> (themes: [Theme], skipped: [String]) {
        let folder = dir.appendingPathComponent("themes")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".json") }.sorted()
        var themes: [Theme] = [], skipped: [String] = []
        for name in names {
            do { themes.append(try Theme(contentsOf: folder.appendingPathComponent(name))) } catch {
                skipped.append("themes/\(name): \(error)")
            }
        }
        return (themes, skipped)
    }

    /// The folder's string catalogs (`strings/<locale>.json`, default
    /// locale `defaultLocale`), else the pack's `strings`, else nil.
    ///
    /// - Throws: ``SDUIError`` naming the catalog and the place of a fault.
    func strings(defaultLocale: String = "en") throws -> StringCatalog? {
        let folder = dir.appendingPathComponent("strings")
        if FileManager.default.fileExists(atPath: folder.path) {
            return try StringFolder.catalog(folder, defaultLocale: defaultLocale)
        }
        return try pack?.strings()
    }

    /// Whether `id` names a file in a folder and nothing else: no path
    /// separators, no leading dot, at most 128 characters.
    static func isFileID(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 128 && !id.hasPrefix(".")
            && id.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) && $0.isASCII || "_-.".unicodeScalars.contains($0) }
    }
}
#endif
