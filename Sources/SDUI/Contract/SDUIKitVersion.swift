// SDUIKitVersion.swift - the engine's version, as reported in events.
import Foundation
internal import CSDUI
import SDUICore

/// The library's semantic version, read from the C core's one place
/// (`include/sdui/version.h`), so the C macros, `sdui.pc`, this and
/// `sdui --version` cannot disagree.
public enum SDUIKitVersion {
    /// The version the Swift modules were built against ("0.2.0").
    public static let string = SDUI_VERSION_STRING
    /// The version of the C core actually linked (`sdui_version()`): the
    /// same as ``string`` unless a different libsdui is loaded.
    public static var linked: String { String(cString: sdui_version()) }
    /// The major part of ``string``.
    public static let major = Int(SDUI_VERSION_MAJOR)
    /// The minor part of ``string``.
    public static let minor = Int(SDUI_VERSION_MINOR)
    /// The patch part of ``string``.
    public static let patch = Int(SDUI_VERSION_PATCH)
}
