// ResolverFixtures.swift - tokens, lookups and screens for the suites that resolve screens into trees.
import Foundation
@testable import SDUI
import SDUITestSupport

/// Builders shared by the resolver, node builder and render tree suites.
protocol ResolverFixtures {}

extension ResolverFixtures {
    static var examples: URL { Fixtures.repositoryRoot.appendingPathComponent("Examples") }

    func token(_ id: String, _ json: String) -> DesignToken { try! DesignToken(json: json, source: id) }

    func found(_ tokens: DesignToken...) -> [String: TokenLookup] {
        Dictionary(uniqueKeysWithValues: tokens.map { ($0.id, .found($0, .pack)) })
    }

    func screen(_ ids: String..., bind: [String: JSONValue]? = nil) -> ScreenPayload {
        ScreenPayload(id: "s", tokens: ids.map { ScreenPayload.Item(id: $0, bind: bind) })
    }

    func kinds(_ tree: RenderTree) -> [RenderIssue.Kind] { tree.issues.map(\.kind) }

    /// A card whose props use every kind of resolution: spacing names, theme
    /// references, typography, bindings (whole and inside text).
    static var card: String {
        """
        {"id":"card","version":1,"primitive":"Column","primitiveVersion":3,"props":{
          "padding":{"horizontal":"md","top":"@spacing.lg"},"spacing":"@spacing.sm","background":"@color.surface",
          "cornerRadius":"@radius.md","children":[
            {"primitive":"Text","primitiveVersion":4,"props":{"text":"Hi {{user.name}}","style":"@typography.bodyMedium","color":"@color.textPrimary"}},
            {"primitive":"Text","props":{"text":"{{count}} left","style":"caption","maxLines":"{{lines}}"}},
            {"primitive":"Spacer","props":{"size":"xl"}}]}}
        """
    }
}
