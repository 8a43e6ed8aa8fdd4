// PackGenerator.swift - realistic synthetic packs for the first-paint benchmark.
#if Server
import Foundation
import SDUI
import SDUIRegistryKit

/// Generates design tokens that look like a production registry's (nested
/// Columns and Rows of Text, AsyncImage and Spacer with colours, spacing,
/// copy and CDN URLs) and packs the first N of them so that the gzipped pack
/// lands just under a byte budget; the same JSON can be written seekable.
/// Tokens are in the order they are made, which stands for usage rank (the
/// first are the first screens').  Deterministic for a given seed.
public struct PackGenerator {
    public var seed: UInt64

    public init(seed: UInt64 = 0x5D01) { self.seed = seed }

    /// SplitMix64: small, fast and reproducible.
    struct RNG {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func pick<T>(_ a: [T]) -> T { a[int(a.count)] }
        mutating func chance(_ percent: Int) -> Bool { int(100) < percent }
    }

    static let words = """
        team match score season player goal league fixture ticket stadium home away \
        offer save today members exclusive deal cart checkout order total shipping \
        delivery payment secure account profile settings privacy welcome start plan \
        goal progress daily streak reward badge level unlock premium trial cancel \
        continue back next skip done learn more about help support contact news \
        update story highlight video photo gallery share follow like comment live
        """.split(separator: " ").map(String.init)
    static let screens = ["home", "team", "match", "shop", "cart", "checkout", "login",
                          "profile", "onboarding", "settings", "news", "video", "tickets"]
    static let kinds = ["banner", "card", "list", "row", "header", "footer", "hero", "tile",
                        "carousel", "cta", "badge", "summary", "detail", "section", "promo"]
    static let spacing = ["@spacing.xs", "@spacing.sm", "@spacing.md", "@spacing.lg", "@spacing.xl"]
    static let colors = ["@color.primary", "@color.secondary", "@color.surface",
                         "@color.onSurface", "@color.accent", "@color.error"]

    /// One token's JSON (compact); `id` replaces the generated id.
    func token(_ index: Int, id given: String? = nil, rng: inout RNG) -> String {
        let made = "\(rng.pick(Self.screens))_\(rng.pick(Self.kinds))_\(index)"
        let id = given ?? made
        let root = rng.chance(70) ? "Column" : "Row"
        let node = self.node(root, depth: 0, rng: &rng)
        return #"{"id":"\#(id)","version":\#(1 + rng.int(6)),"primitive":"\#(root)","primitiveVersion":\#(root == "Column" ? 1 + rng.int(3) : 1 + rng.int(2)),"props":\#(node)}"#
    }

    /// A props object for `primitive`, with children for containers.
    func node(_ primitive: String, depth: Int, rng: inout RNG) -> String {
        var props: [String] = []
        func color() -> String {
            rng.chance(50) ? rng.pick(Self.colors)
                : String(format: "#%06X", rng.int(0xFFFFFF))
        }
        func text(_ n: Int) -> String {
            (0..<n).map { _ in rng.pick(Self.words) }.joined(separator: " ")
        }
        switch primitive {
        case "Column", "Row":
            props.append(#""padding":\#(rng.chance(50) ? "\"\(rng.pick(Self.spacing))\"" : String(4 * rng.int(8)))"#)
            if rng.chance(60) { props.append(#""background":"\#(color())""#) }
            props.append(#""alignment":"\#(rng.pick(["START", "CENTER", "END", "STRETCH"]))""#)
            if rng.chance(40) { props.append(#""cornerRadius":\#(2 * rng.int(9))"#) }
            let n = depth >= 2 ? 1 + rng.int(2) : 2 + rng.int(4)
            let kids = (0..<n).map { _ -> String in
                let p: String
                if depth < 3 && rng.chance(25) {
                    p = rng.chance(50) ? "Column" : "Row"
                } else {
                    p = rng.pick(["Text", "Text", "Text", "AsyncImage", "Spacer"])
                }
                let pv = p == "Column" ? 1 + rng.int(3) : p == "Row" ? 1 + rng.int(2)
                    : p == "Text" ? 1 + rng.int(4) : p == "AsyncImage" ? 1 + rng.int(2) : 1
                let v = rng.chance(60) ? #""primitiveVersion":\#(pv),"# : ""
                return #"{"primitive":"\#(p)",\#(v)"props":\#(node(p, depth: depth + 1, rng: &rng))}"#
            }
            props.append(#""children":[\#(kids.joined(separator: ","))]"#)
        case "Text":
            let body = rng.chance(30) ? "{{\(rng.pick(Self.words)).\(rng.pick(Self.words))}}"
                : text(2 + rng.int(9))
            props.append(#""text":"\#(body)""#)
            props.append(#""style":"\#(rng.pick(["title", "headline", "body", "caption", "label"]))""#)
            props.append(#""color":"\#(color())""#)
            if rng.chance(30) { props.append(#""maxLines":\#(1 + rng.int(3))"#) }
        case "AsyncImage":
            let hash = String(format: "%016llx", rng.next())
            props.append(#""url":"https://cdn.sdui.example.com/img/\#(rng.pick(Self.screens))/\#(hash).webp""#)
            props.append(#""aspectRatio":\#(rng.pick(["1.0", "1.5", "1.777", "0.75"]))"#)
            props.append(#""contentMode":"\#(rng.pick(["fill", "fit"]))""#)
            if rng.chance(50) { props.append(#""accessibilityLabel":"\#(text(3))""#) }
        default:
            props.append(#""size":\#(4 * (1 + rng.int(6)))"#)
        }
        return "{" + props.joined(separator: ",") + "}"
    }

    /// The theme the generated tokens' names resolve in: every `@color`,
    /// `@spacing` and text `style` name they use.
    public static let theme: Theme = {
        func c(_ hex: String) -> Theme.ColorPair { Theme.ColorPair(try! RGBColor(hex: hex)) }
        return Theme(id: "bench_theme",
                     colors: ["primary": c("#1D4ED8"), "secondary": c("#0F766E"), "surface": c("#F3F4F6"),
                              "onSurface": c("#111827"), "accent": c("#C2410C"), "error": c("#B91C1C"),
                              "background": c("#FFFFFF")],
                     typography: ["title": .init(size: 22, lineHeight: 28, weight: 600),
                                  "headline": .init(size: 28, lineHeight: 34, weight: 700),
                                  "body": .init(size: 16, lineHeight: 24),
                                  "caption": .init(size: 12, lineHeight: 16),
                                  "label": .init(size: 14, lineHeight: 20, weight: 500)],
                     spacing: ["xs": 4, "sm": 8, "md": 16, "lg": 24, "xl": 32])
    }()

    /// A generated pack: its JSON document, that document gzipped as one
    /// member, and its token count.
    public struct Generated: Sendable {
        /// The pack document, one token a line.
        public var json: Data
        /// `json` gzipped as one member.
        public var plain: Data
        /// Tokens in the pack.
        public var tokens: Int
    }

    /// The seekable encoding of the same pack: the same JSON (so the same
    /// tokens in the same order), written by `writer`.
    public func seekable(_ generated: Generated, writer: SeekablePackWriter = SeekablePackWriter()) throws -> Data {
        try writer.write(generated.json, source: "the generated pack")
    }

    /// The pack of the most tokens whose gzipped JSON, written as `sdui
    /// pack build` writes a plain pack (`CorePackBuilder.gzip`), fits
    /// within `budget` bytes.
    public func pack(budget: Int, level: Int = 12) throws -> Generated {
        var rng = RNG(state: seed)
        var tokens: [String] = []
        var json = Data()
        func build(_ n: Int) throws -> Data {
            while tokens.count < n { tokens.append(token(tokens.count, rng: &rng)) }
            // One token per line, as `sdui pack build` writes packs.
            let doc = #"{"formatVersion":1,"generator":"sdui bench","tokens":["#
                + "\n" + tokens.prefix(n).joined(separator: ",\n") + "\n]}"
            json = Data(doc.utf8)
            return try CorePackBuilder.gzip(json, level: level)
        }
        // Estimate from a sample, then correct until just under the budget.
        var n = 500
        var packed = try build(n)
        for _ in 0..<6 {
            let perToken = Double(packed.count) / Double(n)
            let next = max(1, Int(Double(budget) / perToken * 0.998))
            if next == n { break }
            n = next
            packed = try build(n)
        }
        while packed.count > budget && n > 1 {
            n -= max(1, n / 500)
            packed = try build(n)
        }
        return Generated(json: json, plain: packed, tokens: n)
    }
}
#endif
