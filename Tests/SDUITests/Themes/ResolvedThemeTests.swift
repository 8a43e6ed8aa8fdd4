// ResolvedThemeTests.swift - themes flattened per mode and accessibility scale.
import Foundation
@testable import SDUI
import Testing

@Suite struct ResolvedThemeTests {
    @Test func lightAndDarkReferences() {
        let light = ResolvedTheme(.sdkFallback, mode: .light)
        let dark = ResolvedTheme(.sdkFallback, mode: .dark)
        #expect(light.reference(group: "color", name: "background") == "#FFFFFF")
        #expect(dark.reference(group: "color", name: "background") == "#0F172A")
        #expect(light.reference(group: "colors", name: "primary") == "#1D4ED8")
        #expect(light.reference(group: "spacing", name: "md") == 16)
        #expect(light.reference(group: "radius", name: "lg") == 16)
        #expect(light.reference(group: "animation", name: "quickTransition") == 200)
        #expect(light.reference(group: "typography", name: "bodyMedium")
                == .object(["size": 16, "lineHeight": 24, "weight": 400, "family": "system"]))
        #expect(light.reference(group: "color", name: "nope") == nil)
        #expect(light.reference(group: "shadow", name: "md") == nil)
    }

    @Test func spacingNamesOfBothSeeds() {
        let t = ResolvedTheme(.sdkFallback, mode: .light)
        for (name, points) in [("xs", 4), ("s", 8), ("sm", 8), ("m", 16), ("md", 16), ("l", 24), ("lg", 24), ("xl", 32)] {
            #expect(t.spacing(named: name) == .int(Int64(points)), "\(name)")
        }
        #expect(t.spacing(named: "xxl") == nil)
    }

    @Test func accessibilityScales() {
        let t = ResolvedTheme(.sdkFallback, mode: .light, textScale: 1.5, spacingScale: 1.3)
        #expect(t.typography(named: "bodyMedium") == .object(["size": 24, "lineHeight": 36, "weight": 400, "family": "system"]))
        // Spacing stays on the 4 pt grid: 16 × 1.3 = 20.8 → 20; 24 × 1.3 = 31.2 → 32; 4 × 1.3 → 4.
        #expect(t.spacing(named: "md") == 20)
        #expect(t.spacing(named: "lg") == 32)
        #expect(t.spacing(named: "xs") == 4)
        // Radius does not scale.
        #expect(t.reference(group: "radius", name: "md") == 8)
    }

    /// Scales outside ``ResolvedTheme/scaleRange`` are clamped into it; NaN is 1.
    @Test func scalesOutsideTheRangeAreClamped() {
        #expect(ResolvedTheme.clamped(.nan) == 1)
        #expect(ResolvedTheme.clamped(0) == 0.5 && ResolvedTheme.clamped(-3) == 0.5)
        #expect(ResolvedTheme.clamped(10) == 4 && ResolvedTheme.clamped(.infinity) == 4)
        #expect(ResolvedTheme.clamped(1.25) == 1.25)
        let big = ResolvedTheme(.sdkFallback, mode: .light, textScale: 100)
        #expect(big.typography(named: "bodyMedium")?["size"] == 64)
    }
}
