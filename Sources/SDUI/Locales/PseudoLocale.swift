// PseudoLocale.swift - text made to look translated and 40 % longer, so a
// screen's layout can be checked against long translations before any
// exist (`sdui strings check --pseudo`).
import SDUICore

/// A pseudo-locale: every letter of a text accented (`a` → `å`, `S` → `Ŝ`)
/// and the text lengthened by at least 40 % with `~`, in brackets
/// (`[Ŝûƀţöţåļ ~~~~]`), so that text a layout cannot take, and text
/// that never went through the catalogs, both show.
public enum PseudoLocale {
    /// The tag it is reported as (CLDR's pseudo-locale for accents).
    public static let tag = "en-XA"
    /// The props of a node that hold text a user reads.
    public static let textProps: Set<String> = ["text", "label", "title", "subtitle", "placeholder", "caption"]

    /// The accented form of each ASCII letter.
    private static let accents: [Character: Character] = {
        let plain = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        let marked = Array("åƀçđéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÅƁÇĐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ")
        return Dictionary(uniqueKeysWithValues: zip(plain, marked))
    }()

    /// `text` in the pseudo-locale: accented, at least 40 % longer, bracketed.
    public static func text(_ text: String) -> String {
        guard !text.isEmpty else { return text }
        let accented = String(text.map { accents[$0] ?? $0 })
        let count = text.count
        let pad = max(1, (count * 4 + 9) / 10 - 3)   // with the brackets and the space, 40 % more characters
        return "[" + accented + " " + String(repeating: "~", count: pad) + "]"
    }

    /// `tree` with every text prop (``textProps``) of every node in the
    /// pseudo-locale.
    public static func tree(_ tree: RenderTree) -> RenderTree {
        var out = tree
        out.root = node(tree.root)
        return out
    }

    /// One node and its descendants in the pseudo-locale.
    private static func node(_ n: RenderNode) -> RenderNode {
        var out = n
        for key in textProps {
            if case .string(let s)? = n.props[key] { out.props[key] = .string(text(s)) }
        }
        out.children = n.children.map(node)
        return out
    }
}
