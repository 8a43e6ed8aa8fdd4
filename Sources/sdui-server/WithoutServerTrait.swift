// WithoutServerTrait.swift - `sdui-server` when the package was built
// without its "Server" trait: it says how to build it, and exits.
#if !Server
import Foundation

/// The entry point of an `sdui-server` built without the "Server" trait.  The command
/// links the registry server and its stack, which the trait brings in.
@main
enum SDUIWithoutServerTrait {
    /// Prints how to build the real command and exits with status 69 (EX_UNAVAILABLE).
    static func main() {
        let text = "sdui: this build left out the package trait \"Server\"; build it with `swift build --traits Server --product sdui-server`\n"
        FileHandle.standardError.write(Data(text.utf8))
        exit(69)
    }
}
#endif
