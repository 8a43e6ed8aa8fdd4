// main.swift - opens a Core-Token Pack and reads one token, as an app's first
// paint does: proof that the client library links and works on its own.
//
//     ClientApp PACK.json.gz TOKEN_ID
import Foundation
import SDUI

let args = CommandLine.arguments
guard args.count == 3 else {
    FileHandle.standardError.write(Data("usage: ClientApp PACK.json.gz TOKEN_ID\n".utf8))
    exit(64)
}
do {
    let pack = try CorePack(contentsOf: URL(fileURLWithPath: args[1]))
    guard let token = try pack.token(args[2]) else {
        FileHandle.standardError.write(Data("ClientApp: \(args[2]) is not in \(args[1])\n".utf8))
        exit(1)
    }
    print("SDUIKit \(SDUIKitVersion.string): \(token.id)@\(token.version) is a \(token.primitive)")
} catch {
    FileHandle.standardError.write(Data("ClientApp: \(error)\n".utf8))
    exit(1)
}
