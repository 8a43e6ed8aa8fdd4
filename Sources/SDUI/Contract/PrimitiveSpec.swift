// PrimitiveSpec.swift - one primitive the engine draws, as one row: name, version, prop rules, plan hints, preview.
import Foundation
import SDUICore

/// Everything the engine knows about one primitive it draws, in one value.
///
/// The table of rows (``builtIn``, in `PrimitiveSpec+BuiltIn.swift`) is the
/// only place a built-in primitive is defined (the built-in blocks and
/// layouts only use primitives, as tokens do).  The rest derives from it:
/// ``PrimitiveMap/builtIn`` (the `X-Primitives` contract) lists each row's
/// name at its version, ``PropRule/builtIn`` and ``PrimitiveMap/propRules(of:)``
/// hand out each row's rules, the resolver's node plan reads each row's
/// theme-name hints, and ``HTMLPreview`` draws a node with its row's
/// drawing function.  Every row must also have an entry in
/// `schemas/primitives.json`; a test holds the two to the same names and
/// rules.  So adding a primitive is one row here, one drawing function, one
/// schema entry and a test.
///
/// An app's own primitives (``PrimitiveMap/adding(_:version:props:)``) have
/// no row: the engine resolves them with the rules the app gives and the
/// preview draws them as a plain column of their children.
public struct PrimitiveSpec: Sendable {
    /// The name nodes use and the `X-Primitives` header lists: `Text`.
    public let name: String
    /// The highest version the engine draws; it draws every version from 1
    /// up to this one (the rule of ``PrimitiveMap``), and it is the version
    /// ``PrimitiveMap/builtIn`` sends.
    public let version: Int
    /// The rules the primitive's props must follow once resolved.
    public let props: [String: PropRule]
    /// Props whose bare string value names a theme value of the primitive's
    /// own (`Spacer`'s `size` a spacing, `Text`'s `style` a typography), on
    /// top of `padding`, `spacing`, `margin` and `gap`, which name spacings
    /// on every primitive.
    let themeNames: [String: NodePlan.Names]
    /// Writes the HTML preview of a node of this primitive.
    let preview: HTMLPreview.Draw
    /// What assistive technology is told about its nodes: the role, where
    /// the label comes from, the traits and the value
    /// (``RenderNode/accessibility``).
    public let accessibility: AccessibilityRule
    /// The gestures its nodes may take (``Gestures``): `swipe`, `longPress`, `pinch`.
    public let gestures: Set<String>

    /// A row: `name` at `version`, its prop rules, the props that name theme
    /// values, its accessibility rule, the gestures it takes, and the
    /// function drawing it in the preview.
    init(_ name: String, version: Int, props: [String: PropRule], themeNames: [String: NodePlan.Names] = [:],
         accessibility: AccessibilityRule, gestures: Set<String> = [], preview: @escaping HTMLPreview.Draw) {
        self.name = name
        self.version = version
        self.props = props
        self.themeNames = themeNames
        self.accessibility = accessibility
        self.gestures = gestures
        self.preview = preview
    }

    /// The built-in row named `name`, or nil (an app's own primitive, or none).
    static func named(_ name: String) -> PrimitiveSpec? { byName[name] }

    /// The rows of ``builtIn`` by name.
    private static let byName: [String: PrimitiveSpec] =
        Dictionary(builtIn.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
}
