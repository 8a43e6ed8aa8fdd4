// main.swift - hands the process to libFuzzer's driver, which calls
// LLVMFuzzerTestOneInput (FuzzPayload.swift) once per input.
import CFuzzDriver
import Foundation

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput))
