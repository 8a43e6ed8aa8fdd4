// ServerHandOff.swift - how the client front `sdui` passes a command line it
// does not run to `sdui-server`: by replacing its process with that
// executable, found beside its own (symbolic links resolved), so the
// arguments, standard streams, environment, exit status and signals are the
// server command's own.
#if Server
import Foundation
import SDUI
import SDUICLI

/// The hand-off of a command line to `sdui-server`.
enum ServerHandOff {
    /// The file name of the executable every other command runs in.
    static let serverName = "sdui-server"

    /// Replaces this process with `sdui-server arguments`; when that cannot
    /// be done (the file is missing or not executable), says so as every
    /// command reports a bad input (one line, `--json` honoured) and exits 1.
    static func replaceProcess(_ arguments: [String]) -> Never {
        let path = ExecutablePath.beside(serverName).path
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) }
        argv.append(nil)
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        CommandOutput.json = CommandRunner.wantsJSON(arguments)
        let what = arguments.first.map { "`sdui \($0)`" } ?? "`sdui` without a command"
        printError(SDUIError(.io, "\(what) runs in \(serverName), which should be beside sdui: \(reason)",
                             input: path))
        exit(1)
    }
}
#endif
