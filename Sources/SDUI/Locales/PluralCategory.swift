// PluralCategory.swift - CLDR's plural categories.
internal import CSDUI

/// A CLDR plural category, in CLDR's order.
public enum PluralCategory: String, Sendable, Hashable, CaseIterable, Codable {
    case zero, one, two, few, many, other

    /// The position in CLDR's order, the bit of the core's masks.
    var index: Int {
        switch self {
        case .zero: 0
        case .one: 1
        case .two: 2
        case .few: 3
        case .many: 4
        case .other: 5
        }
    }

    /// The category of the core's enum value.
    init(cValue: sdui_plural) {
        self = PluralCategory.allCases.first { $0.index == Int(cValue.rawValue) } ?? .other
    }
}
