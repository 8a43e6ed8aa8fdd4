// SDUIKitVersion.swift - the engine's version, as reported in events.
import Foundation
internal import CSDUI
import SDUICore

/// The library's semantic version (seed 000 C-1), the same as the C core's.
public enum SDUIKitVersion {
    public static let string = SDUI_VERSION_STRING
    public static let major = Int(SDUI_VERSION_MAJOR)
    public static let minor = Int(SDUI_VERSION_MINOR)
    public static let patch = Int(SDUI_VERSION_PATCH)
}
