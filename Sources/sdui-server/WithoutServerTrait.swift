// WithoutServerTrait.swift - `sdui-server` when the package was built without its
// "Server" trait (SDUICLI's WithoutServerTrait says how to build it).
#if !Server
import SDUICLI

/// The entry point of an `sdui-server` built without the "Server" trait.
@main
enum Main {
    /// Says how to build the real command and exits with status 69.
    static func main() { WithoutServerTrait.exit(building: "sdui-server") }
}
#endif
