// WithoutServerTrait.swift - what `sdui` and `sdui-server` do when the
// package was built without its "Server" trait: say how to build them, and
// exit.
#if !Server
import Foundation

/// The entry points of the executables built without the "Server" trait:
/// the commands link the argument parser and, for the server, its stack,
/// which the trait brings in.
package enum WithoutServerTrait {
    /// Prints how to build `product` with the trait and exits with status
    /// 69 (EX_UNAVAILABLE).
    package static func exit(building product: String) -> Never {
        let text = "sdui: this build left out the package trait \"Server\"; "
            + "build it with `swift build --traits Server --product \(product)`\n"
        FileHandle.standardError.write(Data(text.utf8))
        Foundation.exit(69)
    }
}
#endif
